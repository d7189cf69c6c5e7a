/// A point on a road network: a segment and a distance along it from its start.
public struct RoadPosition: Hashable, Sendable {
  /// The segment's id.
  public let segmentID: Int
  /// Distance from the segment's start, meters (0...segment length).
  public let offsetInMeters: Double

  /// Creates a position.
  public init(segmentID: Int, offsetInMeters: Double) {
    self.segmentID = segmentID
    self.offsetInMeters = offsetInMeters
  }
}
