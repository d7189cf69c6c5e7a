import Foundation

/// The fusion of a segment's live evidence with its typical week (the mixture prior's
/// Kalman update on log speed).
extension FlowPipeline {
  /// The live evidence (a space-mean speed resting on `weight` vehicles) fused with the
  /// prior, on the logarithm of speed: each vehicle's evidence has variance
  /// `vehicleSpreadInLogSpeed`², and the prior is a mixture of the usual day (the prior's own
  /// variance), in `unusualShare` an unusual one (`unusualSpreadInLogSpeed`²) and in
  /// `farShare` one unrelated to the typical week (`farSpreadInLogSpeed`², a heavy tail).
  /// Each part gives a Kalman update; they are weighed by how likely each makes the
  /// evidence, so evidence near the typical speed is pulled toward it and a queue far from it
  /// is believed. Speeds below the crawl speed count as the crawl speed (a queue standing
  /// still for the whole window stays a queue; where the typical week stands too, the two
  /// are weighed below it).
  ///
  /// The confidence is 0.7 + 0.3 × (1 − s / 0.5) for the answer's spread s (log speed; at
  /// least 0.7): the surer the answer, the higher. Where two or more vehicles were seen
  /// (`disagreement`: how many, and the sample variance of their log speeds), s is that of
  /// the same update with each vehicle's variance learned from how far they disagree —
  /// `vehicleSpreadInLogSpeed`² counted as `disagreementPriorVehicles` vehicles' worth,
  /// pooled with theirs — so vehicles that agree answer surer than as many that do not. The
  /// speed keeps the fixed variance (measured: weighting the speed itself by the
  /// disagreement made it less accurate; docs/performance-log.md).
  static func fuse(
    prior: (speed: Double, variance: Double), evidence: Double, weight: Double,
    disagreement: (vehicles: Int, variance: Double)? = nil, _ configuration: FlowConfiguration
  ) -> (speed: Double, confidence: Double) {
    let crawl = FlowSnapshot.crawlSpeedInMetersPerSecond
    let spread = configuration.vehicleSpreadInLogSpeed
    let mean = log(max(prior.speed, crawl))
    let difference = log(max(evidence, crawl)) - mean
    guard
      let fixed = update(
        difference: difference, noise: spread * spread / max(weight, 0.1), prior: prior.variance,
        configuration)
    else { return (evidence, 1) }
    var speed = exp(mean + fixed.shift)
    // A standing queue (the evidence at a crawl or below) the evidence decides keeps its
    // evidence's own value; where the typical week stands too, the two are weighed below
    // the crawl speed (on the logarithm both count as the crawl speed, which the answer
    // would otherwise be).
    if evidence < crawl, fixed.gain >= 0.8 {
      speed = evidence
    } else if evidence < crawl, prior.speed < crawl {
      speed = fixed.gain * evidence + (1 - fixed.gain) * prior.speed
    }
    var variance = fixed.variance
    if let disagreement, disagreement.vehicles >= 2 {
      let pooled = disagreementPriorVehicles
      let seen = Double(disagreement.vehicles - 1)
      let perVehicle = (pooled * spread * spread + seen * disagreement.variance) / (pooled + seen)
      variance =
        update(
          difference: difference, noise: perVehicle / max(weight, 0.1), prior: prior.variance,
          configuration)?.variance ?? variance
    }
    return (speed, 0.7 + 0.3 * min(1, max(0, 1 - variance.squareRoot() / 0.5)))
  }

  /// How many vehicles' worth the fixed per-vehicle spread counts for when pooled with the
  /// vehicles' own disagreement (set on Braunschweig with `make accuracy`).
  static let disagreementPriorVehicles = 3.0

  /// The mixture's Kalman update of a log-speed `difference` from the prior's mean, for
  /// evidence of variance `noise`: the posterior's shift from the prior's mean, its variance
  /// (the parts' own and that between them) and the evidence's share (gain); `nil` when
  /// neither part finds the evidence possible.
  private static func update(
    difference: Double, noise: Double, prior: Double, _ configuration: FlowConfiguration
  ) -> (shift: Double, variance: Double, gain: Double)? {
    let unusual = configuration.unusualSpreadInLogSpeed
    // The parts' updates, weighed by the likelihood each gives the evidence (no arrays:
    // this runs for every live segment of every refresh).
    var total = 0.0, shift = 0.0, secondMoment = 0.0, gain = 0.0
    func add(share: Double, variance: Double) {
      guard share > 0 else { return }
      let spreadOfEvidence = variance + noise
      let likelihood =
        share * exp(-difference * difference / (2 * spreadOfEvidence))
        / spreadOfEvidence.squareRoot()
      let partGain = variance / spreadOfEvidence
      let partShift = partGain * difference
      total += likelihood
      shift += likelihood * partShift
      secondMoment += likelihood * (variance * noise / spreadOfEvidence + partShift * partShift)
      gain += likelihood * partGain
    }
    let far = configuration.farSpreadInLogSpeed
    add(share: 1 - configuration.unusualShare - configuration.farShare, variance: prior)
    add(share: configuration.unusualShare, variance: max(unusual * unusual, prior))
    add(share: configuration.farShare, variance: max(far * far, prior))
    guard total > 0 else { return nil }
    let posterior = shift / total
    return (posterior, max(0, secondMoment / total - posterior * posterior), gain / total)
  }
}
