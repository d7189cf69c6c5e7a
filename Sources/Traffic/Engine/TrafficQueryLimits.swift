/// The largest areas a query may cover. The defaults are the limits HERE documents for its
/// Traffic API v7; a self-hosted deployment may widen or narrow them.
public struct TrafficQueryLimits: Hashable, Sendable {
  /// Largest circle radius, meters (HERE: 50 000).
  public var maxCircleRadiusInMeters: Double
  /// Largest box width and height, degrees (HERE: 1).
  public var maxBoxSideInDegrees: Double
  /// Longest corridor path, meters (HERE: 500 000).
  public var maxCorridorLengthInMeters: Double
  /// Largest corridor half width, meters (HERE: 5 000).
  public var maxCorridorHalfWidthInMeters: Double
  /// Most corridor vertices (HERE: 300).
  public var maxCorridorPoints: Int
  /// Most incidents one query answers (10 000; an addition to HERE's limits): a query
  /// matching more without a `limit` at most this is refused with HTTP 413 naming the count,
  /// so that an answer's size stays bounded whatever the store holds.
  public var maxResults: Int
  /// Most road segments one flow query answers (100 000; an addition to HERE's limits): on
  /// a dense network a 1° box holds hundreds of thousands, an answer of hundreds of
  /// megabytes. More are refused with HTTP 413 naming the count.
  public var maxFlowResults: Int = 100_000

  /// HERE Traffic API v7's limits.
  public static let here = TrafficQueryLimits()

  /// No limits at all (for trusted, in-process use).
  public static let unlimited = TrafficQueryLimits(
    maxCircleRadiusInMeters: .infinity, maxBoxSideInDegrees: 360,
    maxCorridorLengthInMeters: .infinity, maxCorridorHalfWidthInMeters: .infinity,
    maxCorridorPoints: .max, maxResults: .max, maxFlowResults: .max)

  /// Creates limits; every argument defaults to HERE's value.
  public init(
    maxCircleRadiusInMeters: Double = 50_000, maxBoxSideInDegrees: Double = 1,
    maxCorridorLengthInMeters: Double = 500_000, maxCorridorHalfWidthInMeters: Double = 5_000,
    maxCorridorPoints: Int = 300, maxResults: Int = 10_000, maxFlowResults: Int = 100_000
  ) {
    self.maxCircleRadiusInMeters = maxCircleRadiusInMeters
    self.maxBoxSideInDegrees = maxBoxSideInDegrees
    self.maxCorridorLengthInMeters = maxCorridorLengthInMeters
    self.maxCorridorHalfWidthInMeters = maxCorridorHalfWidthInMeters
    self.maxCorridorPoints = maxCorridorPoints
    self.maxResults = maxResults
    self.maxFlowResults = maxFlowResults
  }

  /// Checks that a flow answer of `count` road segments is within ``maxFlowResults``.
  ///
  /// - Throws: `TrafficQueryError.httpError` 413 naming the count and how to narrow it.
  public func check(flowResults count: Int) throws(TrafficQueryError) {
    guard count > maxFlowResults else { return }
    throw .httpError(
      status: 413,
      "\(count) road segments match, more than the \(maxFlowResults) one flow answer holds: "
        + "narrow the area, or filter by functionalClasses or jam factor")
  }

  /// Checks that an answer of `count` matches, cut to `limit`, is within ``maxResults``.
  ///
  /// - Throws: `TrafficQueryError.httpError` 413 naming the count and how to narrow it.
  public func check(results count: Int, limit: Int?) throws(TrafficQueryError) {
    guard min(count, limit ?? .max) > maxResults else { return }
    throw .httpError(
      status: 413,
      "\(count) incidents match, more than the \(maxResults) one answer holds: narrow the area"
        + " or the filters, or give a limit of at most \(maxResults)")
  }

  /// Checks an area against the limits.
  ///
  /// - Throws: `TrafficQueryError.invalidGeometry` naming the limit exceeded, or
  ///   `.invalidIn` for an area of a kind the engine does not query.
  /// - Complexity: O(n) for a corridor of n vertices, O(1) otherwise.
  public func check(_ area: any GeoArea) throws(TrafficQueryError) {
    switch area {
    case let circle as GeoCircle:
      guard circle.radiusInMeters <= maxCircleRadiusInMeters else {
        throw .invalidGeometry(
          "circle radius \(circle.radiusInMeters) m exceeds the limit of \(maxCircleRadiusInMeters) m"
        )
      }
    case let box as GeoBox:
      guard box.widthInDegrees <= maxBoxSideInDegrees, box.heightInDegrees <= maxBoxSideInDegrees
      else {
        throw .invalidGeometry(
          "box of \(box.widthInDegrees) x \(box.heightInDegrees) degrees exceeds the limit of "
            + "\(maxBoxSideInDegrees) degrees per side")
      }
    case let corridor as GeoCorridor:
      guard corridor.polyline.count <= maxCorridorPoints else {
        throw .invalidGeometry(
          "corridor of \(corridor.polyline.count) points exceeds the limit of \(maxCorridorPoints)")
      }
      guard corridor.halfWidthInMeters <= maxCorridorHalfWidthInMeters else {
        throw .invalidGeometry(
          "corridor half width \(corridor.halfWidthInMeters) m exceeds the limit of "
            + "\(maxCorridorHalfWidthInMeters) m")
      }
      let length = corridor.path.lengthInMeters
      guard length <= maxCorridorLengthInMeters else {
        throw .invalidGeometry(
          "corridor length \((length * 10).rounded(.up) / 10) m exceeds the limit of "
            + "\(maxCorridorLengthInMeters) m")
      }
    default:
      throw .invalidIn("unsupported area \(type(of: area)); use a circle, a box or a corridor")
    }
  }
}
