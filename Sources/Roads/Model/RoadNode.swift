import Geo

/// A junction or dead end of a road network: where segments start and end.
public struct RoadNode: Hashable, Sendable, Identifiable {
  /// Position in ``RoadNetwork/nodes``.
  public let id: Int
  /// The node's id in the source data: the OpenStreetMap node id in decimal, or the SUMO
  /// junction id.
  public let sourceID: String
  /// Where the node lies.
  public let coordinates: GeoCoordinates

  /// Creates a node.
  public init(id: Int, sourceID: String, coordinates: GeoCoordinates) {
    self.id = id
    self.sourceID = sourceID
    self.coordinates = coordinates
  }
}
