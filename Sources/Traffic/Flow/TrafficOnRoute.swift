import Foundation

/// Traffic along a route: how fast each stretch flows, the delay it causes, and the
/// incidents on the way — the guide's "indicate the traffic along a Route".
public struct TrafficOnRoute: Hashable, Sendable {
  /// One stretch of the route on one road segment.
  public struct Span: Hashable, Sendable {
    /// Distance from the route's start to the span's start, meters (along the network).
    public var offsetInMeters: Double
    /// The span's length, meters: on a network whose segments leave the way across a
    /// junction out (SUMO's), with the way across the junction before it.
    public var lengthInMeters: Double
    /// The network segment driven.
    public var segmentID: Int
    /// The road's name or number, when known.
    public var roadName: String?
    /// The speed without congestion (free flow), meters per second.
    public var baseSpeedInMetersPerSecond: Double
    /// The current speed (uncapped), meters per second; 0 on a closed road.
    public var trafficSpeedInMetersPerSecond: Double
    /// Congestion 0...10 (10: closed or blocked).
    public var jamFactor: Double
    /// The confidence of the flow value (see ``TrafficFlow/confidence``).
    public var confidence: Double
    /// Whether the span can be driven.
    public var traversability: Traversability
    /// Extra time over free flow, seconds: negative when traffic is faster than free flow;
    /// `nil` on a closed or blocked span (it cannot be driven).
    public var delayInSeconds: Double?
    /// The segment's speed limit, meters per second, when known.
    public var speedLimitInMetersPerSecond: Double?
    /// The segment's functional road class 1...5, when known.
    public var functionalClass: Int?

    /// A span (routers and decoders of route answers build them).
    package init(
      offsetInMeters: Double, lengthInMeters: Double, segmentID: Int, roadName: String?,
      baseSpeedInMetersPerSecond: Double, trafficSpeedInMetersPerSecond: Double,
      jamFactor: Double, confidence: Double, traversability: Traversability,
      delayInSeconds: Double?, speedLimitInMetersPerSecond: Double? = nil,
      functionalClass: Int? = nil
    ) {
      self.offsetInMeters = offsetInMeters
      self.lengthInMeters = lengthInMeters
      self.segmentID = segmentID
      self.roadName = roadName
      self.baseSpeedInMetersPerSecond = baseSpeedInMetersPerSecond
      self.trafficSpeedInMetersPerSecond = trafficSpeedInMetersPerSecond
      self.jamFactor = jamFactor
      self.confidence = confidence
      self.traversability = traversability
      self.delayInSeconds = delayInSeconds
      self.speedLimitInMetersPerSecond = speedLimitInMetersPerSecond
      self.functionalClass = functionalClass
    }
  }

  /// An incident on the route.
  public struct IncidentOnRoute: Hashable, Sendable {
    /// The incident.
    public var incident: TrafficIncident
    /// Distance from the route's start to where the incident begins on it, meters along the
    /// route polyline.
    public var offsetInMeters: Double

    package init(incident: TrafficIncident, offsetInMeters: Double) {
      self.incident = incident
      self.offsetInMeters = offsetInMeters
    }
  }

  /// The stretches, in route order; parts of the route away from the network have none.
  public var spans: [Span]
  /// The incidents within the corridor of the route, by offset.
  public var incidents: [IncidentOnRoute]
  /// The length of the route polyline, meters.
  public var lengthInMeters: Double
  /// Travel time over the spans at free flow, seconds.
  public var baseDurationInSeconds: Double
  /// Travel time over the open spans at current speeds, seconds.
  public var trafficDurationInSeconds: Double
  /// The sum of the spans' delays, seconds (closed spans excluded).
  public var totalDelayInSeconds: Double
  /// Whether a span is closed or blocked.
  public var isBlocked: Bool

  /// The traffic along a route (routers and decoders of route answers build it).
  package init(
    spans: [Span], incidents: [IncidentOnRoute], lengthInMeters: Double,
    baseDurationInSeconds: Double, trafficDurationInSeconds: Double,
    totalDelayInSeconds: Double, isBlocked: Bool
  ) {
    self.spans = spans
    self.incidents = incidents
    self.lengthInMeters = lengthInMeters
    self.baseDurationInSeconds = baseDurationInSeconds
    self.trafficDurationInSeconds = trafficDurationInSeconds
    self.totalDelayInSeconds = totalDelayInSeconds
    self.isBlocked = isBlocked
  }
}
