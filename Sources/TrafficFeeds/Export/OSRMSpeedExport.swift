import Foundation
import Roads
import Traffic

/// OSRM's segment speed file (`osrm-customize --segment-speed-file`, `osrm-contract`):
/// `from_osm_node,to_osm_node,speed_kmh` per pair of directly connected OpenStreetMap nodes,
/// in the direction of travel.
///
/// A row is written for every node pair of every segment whose speed rests on data —
/// live, typical or learned free flow (confidence above 0.5) —, at the picture's time:
/// the current picture, or the typical one of another time. Speeds are whole km/h, at least
/// 1; a closed segment is written as 0, which OSRM reads as not routable. Segments with only
/// a speed limit are left out, so OSRM keeps its own profile's speed for them.
package enum OSRMSpeedExport {
  /// Why a network cannot be exported.
  package struct Failure: Error, CustomStringConvertible {
    package var description: String
  }

  /// The CSV of a picture.
  ///
  /// - Returns: The text and the number of segments written.
  /// - Throws: ``Failure`` when the network has no OpenStreetMap node ids (a SUMO network,
  ///   or one imported before this version kept them).
  package static func csv(_ picture: SpeedPicture) throws(Failure) -> (text: String, segments: Int)
  {
    let network = picture.network
    guard let ids = network.segmentNodeIDs else {
      throw Failure(
        description:
          "the road network has no OpenStreetMap node ids (a SUMO network, or one imported "
          + "before they were kept); import it again with traffic network import FILE.osm.pbf")
    }
    var text = ""
    var seen: Set<Pair> = []
    var segments = 0
    for id in picture.segmentIDs {
      let flow = picture.flow(id)
      guard flow.confidence > 0.5, let path = ids.path(of: network.segments[id], in: network)
      else { continue }
      let speed =
        flow.traversability == .closed
        ? 0 : max(1, Int((flow.speedUncappedInMetersPerSecond * 3.6).rounded()))
      var wrote = false
      for (from, to) in zip(path, path.dropFirst()) where from != to {
        guard seen.insert(Pair(from: from, to: to)).inserted else { continue }
        text += "\(from),\(to),\(speed)\n"
        wrote = true
      }
      if wrote { segments += 1 }
    }
    return (text, segments)
  }

  private struct Pair: Hashable {
    var from: Int64
    var to: Int64
  }
}
