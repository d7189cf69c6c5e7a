import Foundation

/// What happened to a batch of probes.
public struct ProbeIngestReport: Hashable, Sendable {
  /// Probes that joined their vehicle's trace.
  public var accepted = 0
  /// Probes skipped because the vehicle stood still or crawled within GPS noise.
  public var skippedStationary = 0
  /// Probes with no road within the search radius.
  public var unmatched = 0
  /// Probes their vehicle already reported in an earlier batch (same vehicle, same time):
  /// rejected as `duplicate`, like repeats within one batch.
  public var duplicates = 0
  /// Probes earlier than their vehicle's latest probe.
  public var outOfOrder = 0
  /// Matched positions decided during this call (of this batch or of earlier ones).
  public var decided = 0
  /// Vehicles tracked after the batch.
  public var vehicles = 0

  /// An empty report.
  public init() {}
}
