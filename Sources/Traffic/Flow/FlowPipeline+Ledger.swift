import Foundation
import Roads

extension FlowPipeline {
  /// How long the probe ledger remembers a span of a vehicle's times, seconds: as long as
  /// the typical week remembers a sample (``FlowConfiguration/typicalMemoryInSamples``
  /// weeks; 8 by default). A file older than that imported again is learned again, as its
  /// first import has faded from the typical week by then.
  var ledgerHorizonInSeconds: Double {
    Double(configuration.typicalMemoryInSamples) * 7 * 86_400
  }

  /// How often the ledger is pruned, seconds: pruning reads every vehicle's spans, so it
  /// is not done for every batch.
  static let ledgerPruneIntervalInSeconds: Double = 3_600

  /// Forgets the ledger spans older than ``ledgerHorizonInSeconds`` before `now`, at most
  /// once per ``ledgerPruneIntervalInSeconds``.
  ///
  /// - Complexity: O(v + s) for v vehicles and s spans when due, else O(1).
  mutating func pruneLedgerIfDue(now: Date) {
    if let last = ledgerPrunedAt,
      abs(now.timeIntervalSince(last)) < Self.ledgerPruneIntervalInSeconds
    {
      return
    }
    ledgerPrunedAt = now
    stream.pruneLedger(before: now.addingTimeInterval(-ledgerHorizonInSeconds))
  }
}
