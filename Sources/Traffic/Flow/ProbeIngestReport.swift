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
  /// Probes inside a span of time their vehicle already reported, at a time it did not
  /// report (a finer recording of a trip already counted, a late probe between two sent
  /// before): rejected as `outOfOrder`. Earlier probes outside such spans (an earlier trip,
  /// an older history file) are matched on a trace of their own and are not counted here.
  public var outOfOrder = 0
  /// Matched positions decided during this call (of this batch or of earlier ones).
  public var decided = 0
  /// Vehicles with at least one probe of this batch ingested (neither a duplicate nor out of
  /// order), whether they are still being tracked after the batch or not (a history file's
  /// vehicles are finished with at its end).
  public var vehicles = 0

  /// The probes ingested: those that were neither duplicates nor out of order.
  public var ingested: Int { accepted + skippedStationary + unmatched }

  /// The probes rejected after decoding: duplicates and out of order.
  public var rejected: Int { duplicates + outOfOrder }

  /// The probes rejected after decoding for a reason: ``duplicates`` for `.duplicate`,
  /// ``outOfOrder`` for `.outOfOrder`, none for the reasons only decoders give.
  public func rejected(_ reason: ProbeRejectionReason) -> Int {
    switch reason {
    case .duplicate: return duplicates
    case .outOfOrder: return outOfOrder
    case .unparseable, .outOfRange, .timeInFuture: return 0
    }
  }

  /// An empty report.
  public init() {}
}
