import Foundation
import Roads
import Traffic

/// The roads of a network as the basemap draws them: one entry per road (a two-way road's
/// two directed segments are drawn once), indexed by bounding box.
struct BasemapIndex: Sendable {
  let network: RoadNetwork
  private let tree: RTree<Int32>

  /// Indexes a network.
  ///
  /// - Complexity: O(n log n) for n segments.
  init(network: RoadNetwork) {
    self.network = network
    var entries: [(box: RTreeBox, payload: Int32)] = []
    entries.reserveCapacity(network.segments.count)
    for segment in network.segments {
      if let opposite = segment.oppositeID, opposite < segment.id { continue }
      for box in RTreeBox.covering(segment.geometry.boundingBox) {
        entries.append((box, Int32(segment.id)))
      }
    }
    tree = RTree(entries)
  }

  /// The roads of the visible classes whose boxes meet `box`, minor ones first.
  ///
  /// - Complexity: O(log n + k log k) for k roads found.
  func roads(in box: GeoBox, zoom: Double) -> [RoadSegment] {
    let classes = TrafficMapStyle.visibleClasses(zoom: zoom)
    var ids = Set<Int32>()
    for query in RTreeBox.covering(box) {
      tree.visit(intersecting: query) { payload, _ in
        ids.insert(payload)
        return true
      }
    }
    return ids.map { network.segments[Int($0)] }
      .filter { classes.contains($0.functionalClass) }
      .sorted { ($1.functionalClass, $0.id) < ($0.functionalClass, $1.id) }
  }
}
