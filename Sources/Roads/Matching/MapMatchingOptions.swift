/// The parameters of hidden-Markov-model map matching (Newson & Krumm 2009, "Hidden Markov
/// Map Matching Through Noise and Sparseness").
///
/// The defaults suit probes sampled every 1 to 30 seconds with consumer GPS noise: the
/// paper's sigma was 4.07 m; its beta grows with the sampling interval (about 1 m at 1 s,
/// about 5 m at 30 s), so the default of 3 m sits between.
public struct MapMatchingOptions: Hashable, Sendable {
  /// Road segments within this distance of a probe are its candidates, meters.
  public var searchRadiusInMeters: Double = 50
  /// At most this many candidates per probe, nearest first.
  public var maxCandidates: Int = 10
  /// Standard deviation of GPS noise when a probe gives no accuracy, meters (emission
  /// probability, section 4.1 of the paper).
  public var gpsSigmaInMeters: Double = 5
  /// Scale of the exponential transition probability on |great-circle distance − route
  /// distance|, meters (section 4.2).
  public var transitionBetaInMeters: Double = 3
  /// Standard deviation of a probe's heading against the road's bearing, degrees; the
  /// heading is used only while the vehicle moves faster than
  /// ``minimumSpeedForHeadingInMetersPerSecond``.
  public var headingSigmaInDegrees: Double = 30
  /// Below this reported speed a heading is ignored (headings of a stopped receiver are
  /// noise), meters per second.
  public var minimumSpeedForHeadingInMetersPerSecond: Double = 2
  /// A trace breaks when consecutive probes of a vehicle are further apart in time, seconds.
  public var maxTimeGapInSeconds: Double = 90
  /// Route distances longer than `routeDistanceFactor × great-circle distance +
  /// 2 × searchRadiusInMeters` are not searched (such transitions are implausible).
  public var routeDistanceFactor: Double = 2
  /// Transitions implying a speed above this are not searched, meters per second.
  public var maxSpeedInMetersPerSecond: Double = 70
  /// A probe closer than this to the last kept probe of its vehicle is skipped, as the
  /// paper removes points within 2 sigma of their predecessor, meters.
  public var minimumSpacingInMeters: Double = 10
  /// A probe reporting a speed below this that lies within 4 sigma of where the vehicle
  /// stands (the last kept probe, or once probes were skipped after it the mean of them all)
  /// is skipped as a stopped vehicle, meters per second.
  public var stationarySpeedInMetersPerSecond: Double = 0.5
  /// A matched position is decided once this many later probes of the vehicle have been
  /// seen (fixed-lag Viterbi); it bounds the memory kept per vehicle.
  public var decisionLag: Int = 6
  /// A vehicle silent for this long is flushed and forgotten, seconds.
  public var vehicleTimeoutInSeconds: Double = 300
  /// At most this many vehicles are tracked; beyond it the least recently seen are flushed.
  public var maxVehicles: Int = 1_000_000

  /// The default options.
  public init() {}

  /// Checks that every value is in range.
  ///
  /// - Throws: ``RoadsError/invalidArgument(_:)`` naming the first bad value.
  public func validate() throws(RoadsError) {
    func positive(_ value: Double, _ name: String) throws(RoadsError) {
      guard value.isFinite, value > 0 else {
        throw .invalidArgument("\(name) \(value) must be a finite number > 0")
      }
    }
    try positive(searchRadiusInMeters, "searchRadiusInMeters")
    try positive(gpsSigmaInMeters, "gpsSigmaInMeters")
    try positive(transitionBetaInMeters, "transitionBetaInMeters")
    try positive(headingSigmaInDegrees, "headingSigmaInDegrees")
    try positive(maxTimeGapInSeconds, "maxTimeGapInSeconds")
    try positive(routeDistanceFactor, "routeDistanceFactor")
    try positive(maxSpeedInMetersPerSecond, "maxSpeedInMetersPerSecond")
    try positive(vehicleTimeoutInSeconds, "vehicleTimeoutInSeconds")
    guard minimumSpeedForHeadingInMetersPerSecond.isFinite,
      minimumSpeedForHeadingInMetersPerSecond >= 0
    else {
      throw .invalidArgument("minimumSpeedForHeadingInMetersPerSecond must be >= 0")
    }
    guard stationarySpeedInMetersPerSecond.isFinite, stationarySpeedInMetersPerSecond >= 0 else {
      throw .invalidArgument("stationarySpeedInMetersPerSecond must be >= 0")
    }
    guard minimumSpacingInMeters.isFinite, minimumSpacingInMeters >= 0 else {
      throw .invalidArgument("minimumSpacingInMeters \(minimumSpacingInMeters) must be >= 0")
    }
    guard maxCandidates >= 1 else {
      throw .invalidArgument("maxCandidates \(maxCandidates) must be >= 1")
    }
    guard decisionLag >= 1 else {
      throw .invalidArgument("decisionLag \(decisionLag) must be >= 1")
    }
    guard maxVehicles >= 1 else {
      throw .invalidArgument("maxVehicles \(maxVehicles) must be >= 1")
    }
  }
}
