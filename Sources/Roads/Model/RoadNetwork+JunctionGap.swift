import Geo

extension RoadNetwork {
  /// The way across the junction from the end of segment `from` to the start of segment
  /// `to`, meters (a straight line): 0 where they meet at a node, as OpenStreetMap ways do;
  /// more where the network leaves its junctions out of its edges, as SUMO's does (an edge
  /// ends at the junction's border; there the way across is a third of a short city edge's).
  ///
  /// Flow counts the time driven there on neither segment, and routes add it to their
  /// durations and its meters to their lengths (their geometry draws it).
  ///
  /// - Complexity: O(1).
  public func junctionGap(from: Int, to: Int) -> Double {
    let end = segments[from].geometry.vertices[segments[from].geometry.vertices.count - 1]
    let start = segments[to].geometry.vertices[0]
    guard end != start else { return 0 }
    return end.fastDistance(to: start)
  }
}
