import Codec
import Foundation
import Roads
import Traffic

/// Valhalla's historical ("predicted") traffic CSV for `valhalla_add_predicted_traffic`:
/// `edge_id,freeflow_speed,constrained_speed,historical_speeds` per graph edge, speeds in
/// whole km/h, the week as Valhalla's compressed form — 200 DCT-II coefficients of the
/// 2,016 five-minute speeds, rounded to int16, big-endian, base64. Valhalla's week starts on
/// Sunday 00:00 local time (its `second_of_week`), ours on Monday: the bins are rotated.
///
/// Valhalla names edges by its own graph ids (`level/tile/id`), which only Valhalla's tiles
/// know; `valhalla_ways_to_edges` writes them per OpenStreetMap way (`way_edges.txt`:
/// `way_id,direction,graph_id[,direction,graph_id]...`, direction 1 along the way). Every
/// edge of a way in one direction gets the week of that way's segments in that direction
/// (the file says no more of where each edge lies): per bin the length-weighted harmonic
/// mean of all of them, each at its typical speed there, else its free flow, so that the
/// week keeps the way's time end to end. `freeflow_speed` is the week's 85th percentile (its fast
/// periods), `constrained_speed` the harmonic mean of weekdays 07:00–19:00.
package enum ValhallaSpeedExport {
  /// Valhalla's coefficient count.
  package static let coefficientCount = 200
  private static let normalization = (2.0 / 2016.0).squareRoot()

  /// Why an export cannot be made.
  package struct Failure: Error, CustomStringConvertible {
    package var description: String
  }

  /// The edges of a way in one direction, as `valhalla_ways_to_edges` lists them.
  package struct WayEdges: Sendable {
    /// Graph ids by (way id, along the way).
    package var edges: [WayDirection: [UInt64]] = [:]

    package init() {}
  }

  package struct WayDirection: Hashable, Sendable {
    package var way: Int64
    package var forward: Bool
  }

  /// Reads `way_edges.txt`.
  ///
  /// - Throws: ``Failure`` naming the line of a malformed row.
  package static func wayEdges(_ text: String) throws(Failure) -> WayEdges {
    var result = WayEdges()
    // Any line end: LF, CRLF (one Character in Swift) or CR.
    for (number, line) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
      .enumerated()
    {
      let fields = line.split(separator: ",", omittingEmptySubsequences: false)
        .map { $0.trimmingCharacters(in: .whitespaces) }
      if fields.count == 1, fields[0].isEmpty { continue }
      guard fields.count >= 3, fields.count % 2 == 1, let way = Int64(fields[0]) else {
        throw Failure(
          description: "way_edges line \(number + 1) is not way_id,direction,graph_id[,...]")
      }
      for k in stride(from: 1, to: fields.count, by: 2) {
        guard let direction = Int(fields[k]), direction == 0 || direction == 1,
          let graph = UInt64(fields[k + 1])
        else {
          throw Failure(
            description:
              "way_edges line \(number + 1): \"\(fields[k]),\(fields[k + 1])\" is not a "
              + "direction (0 or 1) and a graph id")
        }
        result.edges[WayDirection(way: way, forward: direction == 1), default: []].append(graph)
      }
    }
    return result
  }

  /// Valhalla's string form of a graph id: `level/tile/id` (3, 22 and 21 bits).
  package static func graphID(_ value: UInt64) -> String {
    "\(value & 0x7)/\((value >> 3) & 0x3F_FFFF)/\((value >> 25) & 0x1F_FFFF)"
  }

  /// The CSV for the ways of the picture's segments that `edges` lists.
  ///
  /// - Returns: The text (with its header) and the number of edges written.
  package static func csv(
    _ picture: SpeedPicture, edges: WayEdges
  ) -> (text: String, edges: Int) {
    let rows = self.rows(picture, edges: edges)
    var text = "edge_id,freeflow_speed,constrained_speed,historical_speeds\n"
    for row in rows { text += row.line }
    return (text, rows.count)
  }

  /// The rows split by Valhalla tile, as `valhalla_add_predicted_traffic` reads a traffic
  /// tile directory: one CSV per tile at the tile's path (`1/047/701.csv` for level 1, tile
  /// 47701), without a header.
  ///
  /// - Returns: Relative paths and their text.
  package static func tiles(
    _ picture: SpeedPicture, edges: WayEdges
  ) -> [(path: String, text: String)] {
    var files: [String: String] = [:]
    for row in rows(picture, edges: edges) {
      files[tilePath(row.graph), default: ""] += row.line
    }
    return files.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
  }

  /// A tile's file path as Valhalla names it (`GraphTile::FileSuffix`): the level, then the
  /// tile id zero-padded to the digits of the level's largest tile id (rounded up to a
  /// multiple of three) in groups of three; `.csv`.
  package static func tilePath(_ graph: UInt64) -> String {
    let level = Int(graph & 0x7)
    let tile = Int((graph >> 3) & 0x3F_FFFF)
    // Tiles of 4°, 1° and 0.25° (levels 0, 1, 2; transit, 3, as 2).
    let size = [4.0, 1.0, 0.25, 0.25][min(level, 3)]
    let maximum = Int(360 / size) * Int(180 / size) - 1
    var digits = String(maximum).count
    if digits % 3 != 0 { digits += 3 - digits % 3 }
    let padded = String(repeating: "0", count: max(0, digits - String(tile).count)) + String(tile)
    var groups: [Substring] = []
    var rest = padded[...]
    while !rest.isEmpty {
      groups.append(rest.prefix(3))
      rest = rest.dropFirst(3)
    }
    return "\(level)/" + groups.joined(separator: "/") + ".csv"
  }

  private struct Row {
    var graph: UInt64
    var line: String
  }

  private static func rows(_ picture: SpeedPicture, edges: WayEdges) -> [Row] {
    let network = picture.network
    let today = TypicalSpeeds.day(of: picture.time)
    // Every segment of the ways and directions where one has a typical week: those without
    // one drive at free flow, so that the way's week keeps its whole length's time (the
    // week of a few jammed segments was given to every edge of a long way).
    var groups: [WayDirection: [Int]] = [:]
    var observed = Set<WayDirection>()
    for id in picture.segmentIDs {
      let segment = network.segments[id]
      guard let way = Int64(segment.sourceID) else { continue }
      // Only the ways the edge file lists (a region's millions of others have no row).
      let key = WayDirection(way: way, forward: !segment.isReversed)
      guard edges.edges[key] != nil else { continue }
      groups[key, default: []].append(id)
      if picture.typicalWeek(id) != nil { observed.insert(key) }
    }
    groups = groups.filter { observed.contains($0.key) }
    var rows: [Row] = []
    for key in groups.keys.sorted(by: {
      ($0.way, $0.forward ? 1 : 0) < ($1.way, $1.forward ? 1 : 0)
    }) {
      guard let graphIDs = edges.edges[key], let members = groups[key] else { continue }
      var speeds = [Double](repeating: 0, count: TypicalWeek.binCount)
      for bin in 0..<TypicalWeek.binCount {
        var meters = 0.0, seconds = 0.0
        for id in members {
          let length = network.segments[id].lengthInMeters
          let free = picture.flow(id).freeFlowSpeedInMetersPerSecond
          let speed =
            picture.typicalWeek(id)?.typical(atBin: bin, today: today)?.speed ?? free
          guard speed > 0 else { continue }
          meters += length
          seconds += length / speed
        }
        speeds[bin] = seconds > 0 ? meters / seconds * 3.6 : 0
      }
      // Ours start on Monday, Valhalla's on Sunday: its bin v is our bin v - 288.
      let sundayFirst = (0..<TypicalWeek.binCount).map {
        speeds[($0 + 6 * TypicalWeek.binsPerDay) % TypicalWeek.binCount]
      }
      let coefficients = compress(sundayFirst)
      let free = percentile(speeds, 0.85)
      var dayMeters = 0.0, daySeconds = 0.0
      for day in 0..<5 {
        for slot in (7 * 12)..<(19 * 12) where speeds[day * 288 + slot] > 0 {
          dayMeters += 1
          daySeconds += 1 / speeds[day * 288 + slot]
        }
      }
      let constrained = daySeconds > 0 ? dayMeters / daySeconds : free
      let encoded = encode(coefficients)
      for graph in graphIDs {
        rows.append(
          Row(
            graph: graph,
            line:
              "\(graphID(graph)),\(Int(free.rounded())),\(Int(constrained.rounded())),"
              + "\(encoded)\n"))
      }
    }
    return rows
  }

  /// Valhalla's compression of a week of 2,016 speeds: DCT-II with its normalisation,
  /// the first `coefficientCount` coefficients rounded to int16.
  package static func compress(_ speeds: [Double]) -> [Int16] {
    precondition(speeds.count == TypicalWeek.binCount)
    var coefficients = [Double](repeating: 0, count: coefficientCount)
    let table = cosines
    for (bin, speed) in speeds.enumerated() where speed != 0 {
      let row = bin * coefficientCount
      for c in 0..<coefficientCount { coefficients[c] += table[row + c] * speed }
    }
    coefficients[0] /= 2.0.squareRoot()
    return coefficients.map {
      Int16(clamping: Int((normalization * $0).rounded()))
    }
  }

  /// One bin of a compressed week (DCT-III), as Valhalla decodes it.
  package static func decompress(_ coefficients: [Int16], bin: Int) -> Double {
    let angle = Double.pi / 2016 * (Double(bin) + 0.5)
    var speed = Double(coefficients[0]) / 2.0.squareRoot()
    for c in 1..<coefficients.count { speed += Double(coefficients[c]) * cos(angle * Double(c)) }
    return speed * normalization
  }

  /// The coefficients as Valhalla stores them in the CSV: int16 big-endian, base64.
  package static func encode(_ coefficients: [Int16]) -> String {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(2 * coefficients.count)
    for value in coefficients {
      let bits = UInt16(bitPattern: value)
      bytes.append(UInt8(bits >> 8))
      bytes.append(UInt8(bits & 0xFF))
    }
    return Base64.encode(bytes)
  }

  /// `cos(π / 2016 × (bin + 0.5) × c)` by bin, then coefficient (3.2 MB, made once).
  private static let cosines: [Double] = {
    var table = [Double](repeating: 0, count: TypicalWeek.binCount * coefficientCount)
    for bin in 0..<TypicalWeek.binCount {
      let angle = Double.pi / 2016 * (Double(bin) + 0.5)
      for c in 0..<coefficientCount { table[bin * coefficientCount + c] = cos(angle * Double(c)) }
    }
    return table
  }()

  private static func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.filter { $0 > 0 }.sorted()
    guard !sorted.isEmpty else { return 0 }
    return sorted[min(sorted.count - 1, Int((p * Double(sorted.count)).rounded(.up)) - 1)]
  }
}
