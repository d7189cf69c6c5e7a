import Foundation

/// Where incidents live durably: the source of truth behind a `TrafficEngine`.
///
/// The engine keeps an in-memory snapshot for reads and writes every change through the
/// store first, so a store must apply a batch atomically: after `apply(_:)` returns, the
/// whole batch is stored; when it throws (or the process dies during it), none of it is.
/// Implementations: `InMemoryTrafficStore` (tests, ephemeral use), the SQLite store (the
/// embedded default) and the PostgreSQL store (several server nodes).
public protocol TrafficStore: Sendable {
  /// The latest version of every incident held (ended ones too, until purged).
  ///
  /// - Throws: `TrafficStoreError` when the store cannot be read.
  func currentIncidents() throws(TrafficStoreError) -> [TrafficIncident]

  /// Stores a batch of changes atomically: all of it or none of it.
  ///
  /// - Throws: `TrafficStoreError`; nothing of the batch is stored then.
  func apply(_ batch: IncidentBatch) throws(TrafficStoreError)

  /// Every stored version of one incident, oldest first (empty when unknown).
  ///
  /// - Throws: `TrafficStoreError` when the store cannot be read.
  func history(ofOriginalId originalId: String) throws(TrafficStoreError) -> [TrafficIncident]

  /// Deletes the incidents (with their history) that ended before `cutoff`.
  ///
  /// - Returns: The original ids removed.
  /// - Throws: `TrafficStoreError`; nothing is removed then.
  func purge(endedBefore cutoff: Date) throws(TrafficStoreError) -> [String]

  /// Runs one incident write of an engine (its plan against the engine's snapshot, then
  /// `apply`) as the store's writers' turn.
  ///
  /// A store that several engines write at once (PostgreSQL, one engine per node) holds
  /// the other writers off for the whole turn and first brings the engine's snapshot up to
  /// what they committed, so that the plan sees every write before it: otherwise two nodes
  /// taking one id, or two full refreshes of one source, each plan against a snapshot
  /// without the other's, and one acknowledged report is lost. The default runs `body`.
  ///
  /// - Throws: `TrafficStoreError` when the turn cannot be taken, or `body`'s error.
  func takeWriterTurn(
    _ body: () throws(TrafficStoreError) -> [IncidentChange]
  ) throws(TrafficStoreError) -> [IncidentChange]
}

extension TrafficStore {
  /// Runs `body` at once: one engine writes this store.
  public func takeWriterTurn(
    _ body: () throws(TrafficStoreError) -> [IncidentChange]
  ) throws(TrafficStoreError) -> [IncidentChange] {
    try body()
  }
}

/// One atomic set of changes to a `TrafficStore`.
public struct IncidentBatch: Sendable, Hashable {
  /// New incidents and new versions of known ones (matched by `originalId`); a version
  /// replaces the previous one as the current incident and joins its history.
  public var upserts: [TrafficIncident]
  /// Original ids of incidents to delete outright (with their history).
  public var deletions: [String]

  /// Creates a batch.
  public init(upserts: [TrafficIncident] = [], deletions: [String] = []) {
    self.upserts = upserts
    self.deletions = deletions
  }

  /// Whether the batch changes nothing.
  public var isEmpty: Bool { upserts.isEmpty && deletions.isEmpty }
}

/// Why a store could not be opened, read or written.
public enum TrafficStoreError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The store could not be opened (a missing directory, a locked or corrupt file, a
  /// refused connection); the detail says which and why.
  case cannotOpen(String)
  /// The store's data is of a newer or unknown schema version.
  case incompatibleSchema(String)
  /// A read or write failed; nothing of the operation took effect.
  case operationFailed(String)
  /// The batch itself is inconsistent (e.g. the same original id upserted and deleted).
  case invalidBatch(String)
  /// A limit set by the operator refuses the write (a source holding too many
  /// incidents); nothing of it took effect.
  case limitExceeded(String)

  /// A sentence saying what failed.
  public var description: String {
    switch self {
    case .cannotOpen(let detail): return "cannot open the traffic store: \(detail)"
    case .incompatibleSchema(let detail): return "incompatible traffic store schema: \(detail)"
    case .operationFailed(let detail): return "traffic store operation failed: \(detail)"
    case .invalidBatch(let detail): return "invalid incident batch: \(detail)"
    case .limitExceeded(let detail): return "limit exceeded: \(detail)"
    }
  }
}

extension IncidentBatch {
  /// Checks what every store rejects alike: the same original id both upserted and deleted.
  ///
  /// - Throws: `TrafficStoreError.invalidBatch` naming the id.
  /// - Complexity: O(n).
  public func validate() throws(TrafficStoreError) {
    let deleted = Set(deletions)
    if let clash = upserts.first(where: { deleted.contains($0.originalId) }) {
      throw .invalidBatch("original id \(clash.originalId) is both upserted and deleted")
    }
  }
}
