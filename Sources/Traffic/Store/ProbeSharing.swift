import Foundation

/// A store shared by several nodes that passes the probes one node ingests on to the
/// others, so that every node computes flow from all probes.
///
/// Implemented by the PostgreSQL store (`probe_log`). The engine checks for it with `store
/// as? any ProbeSharing` in `TrafficEngine.ingest(probes:flush:)`; the receiving side feeds
/// other nodes' batches to `TrafficEngine.ingestShared(probes:flush:)`, which does not share
/// them again.
package protocol ProbeSharing: Sendable {
  /// Passes a batch on to the other nodes.
  ///
  /// - Parameters:
  ///   - probes: The probes the node is about to ingest.
  ///   - flush: Whether the node decides every pending position after them.
  /// - Throws: `TrafficStoreError` when the batch cannot be passed on.
  func shareProbes(_ probes: [Probe], flush: Bool) throws(TrafficStoreError)
}
