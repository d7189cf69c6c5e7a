import Geo

/// The travel times and distances of the fastest routes from each origin to each
/// destination (HERE Matrix Routing v8, OSRM's `table`): a row per origin, a column per
/// destination, `nil` where no road leads from one to the other.
public struct RouteMatrix: Hashable, Sendable {
  /// Where a waypoint meets the road: the point routes leave or reach, and how far it is
  /// from the point asked for.
  public struct Place: Hashable, Sendable {
    /// The point on the road (the nearest one the routes may use).
    public var location: GeoCoordinates
    /// The point asked for.
    public var originalLocation: GeoCoordinates
    /// Meters from the point asked for to the road.
    public var distanceInMeters: Double
    /// The name (else the number) of the road there, when it has one.
    public var roadName: String? = nil
  }

  /// Seconds from each origin (row) to each destination (column), with the traffic the
  /// options take into account; `nil`: no route.
  public var travelTimesInSeconds: [[Double?]]
  /// Meters driven on those routes; `nil`: no route.
  public var distancesInMeters: [[Double?]]
  /// The origins as routed, in order.
  public var origins: [Place]
  /// The destinations as routed, in order.
  public var destinations: [Place]

  /// The most cells (origins × destinations) a matrix is computed for: 100 × 100.
  public static let maximumCells = 10_000
}
