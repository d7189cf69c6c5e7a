import Codec
import Foundation

/// Probes on a store shared by several nodes (`ProbeSharing`): a node's own batches are
/// passed on before they count, the others' are ingested as they were first, and a state
/// saved meanwhile holds exactly the batches its place in the shared log says.
extension TrafficEngine {
  /// ``ingest(probes:flush:)`` telling `progress` how many probes were matched (a long
  /// import).
  ///
  /// A batch that cannot be passed on to the other nodes still counts here (the library's
  /// `ingest` does not fail); ``ingestSharing(probes:flush:)`` refuses it instead.
  @discardableResult
  package func ingest(
    probes: [Probe], flush: Bool, progress: ProgressReporter?
  ) -> ProbeIngestReport {
    guard let flowState else { return ProbeIngestReport() }
    let report = flowState.positionGate.withLock { _ in
      if let sharing = store as? any ProbeSharing, !probes.isEmpty || flush {
        // Shared before it counts here, so that a flow state saved meanwhile does not hold
        // a batch the shared log has not numbered yet.
        try? sharing.shareProbes(probes, flush: flush)
      }
      return ingestLocally(probes, flush: flush, now: clock(), counting: true, progress: progress)
    }
    // A store that keeps flow gets the current picture at most once a minute; a failed save
    // is retried with the next batch and never fails the ingest.
    _ = try? saveFlowIfDue()
    return report
  }

  /// ``ingest(probes:flush:)``, except that a batch the store cannot pass on to the other
  /// nodes (their database is out of reach) is refused rather than counted on this node
  /// alone, which would leave the nodes' flow apart for the whole window.
  ///
  /// - Throws: `TrafficStoreError` when the batch cannot be shared; nothing counted then.
  /// - Complexity: as ``ingest(probes:)``, plus one write to a shared store.
  @discardableResult
  package func ingestSharing(
    probes: [Probe], flush: Bool
  ) throws(TrafficStoreError) -> ProbeIngestReport {
    guard let flowState else { return ProbeIngestReport() }
    let report = try flowState.positionGate.withLock {
      _ throws(TrafficStoreError) -> ProbeIngestReport in
      if let sharing = store as? any ProbeSharing, !probes.isEmpty || flush {
        try sharing.shareProbes(probes, flush: flush)
      }
      return ingestLocally(probes, flush: flush, now: clock(), counting: true, progress: nil)
    }
    _ = try? saveFlowIfDue()
    return report
  }

  /// Feeds probes another node of the deployment ingested (read from the shared store) to
  /// the flow pipeline, without passing them on again.
  ///
  /// - Parameters:
  ///   - probes: The other node's batch.
  ///   - flush: Whether that node decided every pending position after it.
  ///   - ageInSeconds: How long ago the batch was shared: it is matched as of then (the
  ///     matcher forgets vehicles idle for its timeout before that time), as the node that
  ///     shared it matched it, also when a starting node reads it minutes later.
  ///   - counting: Whether its positions add to the flow; `false` for a batch a restored
  ///     state holds already, read again only to rebuild the vehicles' traces.
  ///   - marking: Notes the batch as held (the store's place in its log), under the same
  ///     turn as the ingest, so that a state saved meanwhile holds it if and only if it
  ///     says so.
  /// - Returns: What happened to them.
  /// - Complexity: as ``ingest(probes:)``.
  @discardableResult
  package func ingestShared(
    probes: [Probe], flush: Bool, ageInSeconds: Double = 0, counting: Bool = true,
    marking: () -> Void = {}
  ) -> ProbeIngestReport {
    guard let flowState else { return ProbeIngestReport() }
    let report = flowState.positionGate.withLock { _ in
      marking()
      let now = clock().addingTimeInterval(-max(0, ageInSeconds.isFinite ? ageInSeconds : 0))
      return ingestLocally(probes, flush: flush, now: now, counting: counting, progress: nil)
    }
    _ = try? saveFlowIfDue()
    return report
  }

  private func ingestLocally(
    _ probes: [Probe], flush: Bool, now: Date, counting: Bool, progress: ProgressReporter?
  ) -> ProbeIngestReport {
    guard let flowState else { return ProbeIngestReport() }
    var report = flowState.ingest(probes, now: now, counting: counting, progress: progress)
    if flush { report.decided += flowState.flush(now: now, counting: counting) }
    return report
  }
}
