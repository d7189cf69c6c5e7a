import Foundation
import Roads
import Synchronization
import Traffic

/// Where a node is in the probe log: what its engine's flow holds.
struct ProbeLogPosition: Sendable {
  /// The fingerprint of the road network the node's flow belongs to (`saveNetwork(_:)`).
  var network: String?
  /// Every batch up to this sequence is in the node's flow (or was skipped as damaged).
  var applied: Int64 = 0
  /// Later batches that are in the node's flow too: its own. Reading the log skips them.
  var held: Set<Int64> = []
  /// The place of a loaded flow state: every batch up to this sequence is in it...
  var restoredThrough: Int64 = 0
  /// ... and these later ones. Reading the log from before them (from its start) rebuilds
  /// the map matcher's traces, which the state does not keep, without counting them again.
  var restoredHeld: Set<Int64> = []

  /// Whether the loaded flow state holds the batch `sequence` already.
  func isRestored(_ sequence: Int64) -> Bool {
    sequence <= restoredThrough || restoredHeld.contains(sequence)
  }

  /// What the node's flow holds: the place a state taken now is saved with.
  var mark: ProbeLogMark {
    let through = max(applied, restoredThrough)
    return ProbeLogMark(
      applied: through, held: held.union(restoredHeld).filter { $0 > through })
  }

  /// Passes `sequence`: drops what it no longer needs to remember.
  mutating func advance(to sequence: Int64) {
    guard sequence > applied else { return }
    applied = sequence
    held = held.filter { $0 > sequence }
    restoredHeld = restoredHeld.filter { $0 > sequence }
  }
}

/// A probe batch another node shared through the probe log.
public struct PostgresProbeBatch: Sendable, Hashable {
  /// Its probe-log sequence.
  public var sequence: Int64
  /// The node that shared it (`PostgresTrafficStore.nodeID`).
  public var node: UUID
  /// The probes, in the order the node sent them; empty when the stored batch is damaged.
  public var probes: [Probe]
  /// Whether the node decided every pending position after them.
  public var flush: Bool
  /// Why the stored batch could not be read, when it is damaged.
  public var damage: String?
  /// How long ago it was shared, seconds (by the database's clock).
  public var ageInSeconds: Double
  /// Whether the flow state this node loaded holds the batch already: it is read again only
  /// to rebuild the vehicles' traces (`TrafficEngine.ingestShared(counting: false)`).
  public var isRestored: Bool

  /// Creates a batch.
  public init(
    sequence: Int64, node: UUID, probes: [Probe], flush: Bool, damage: String? = nil,
    ageInSeconds: Double = 0, isRestored: Bool = false
  ) {
    self.sequence = sequence
    self.node = node
    self.probes = probes
    self.flush = flush
    self.damage = damage
    self.ageInSeconds = ageInSeconds
    self.isRestored = isRestored
  }
}

extension PostgresTrafficStore: ProbeSharing, FlowPersistence {
  // MARK: The probe log

  /// Appends a batch this node is about to ingest to `probe_log` and announces it on
  /// `probeChannel`, in one transaction; every 100 batches, prunes batches older than
  /// 15 minutes.
  ///
  /// Appends take turns under an advisory lock, so the log's sequence follows commit order
  /// and a reader that passed a sequence never misses an earlier batch. When the connection
  /// is lost during the append, the batch is sent once more on a new connection: if the
  /// first append did commit, the other nodes get the batch twice, and their matchers reject
  /// the second copy as duplicates (same vehicle, same time).
  ///
  /// - Parameters:
  ///   - probes: The probes.
  ///   - flush: Whether the node decides every pending position after them.
  /// - Throws: `TrafficStoreError.operationFailed` when the write fails; `.cannotOpen` when
  ///   the server cannot be reached.
  /// - Complexity: O(p) for p probes, a few round trips.
  package func shareProbes(_ probes: [Probe], flush: Bool) throws(TrafficStoreError) {
    let body = PostgresBytes.literal(ProbeCoder.data(probes))
    let node = nodeID.uuidString
    try withSession { session throws(TrafficStoreError) in
      let sequence = try session.retrying { connection throws(TrafficStoreError) in
        try connection.transaction { () throws(TrafficStoreError) -> Int64 in
          try connection.query(
            "SELECT pg_advisory_xact_lock($1::bigint)", [PostgresSchema.probeLockKey])
          let rows = try connection.query(
            """
            INSERT INTO probe_log (node, flush, probes) VALUES ($1::uuid, $2::boolean, $3::bytea)
            RETURNING sequence
            """, [node, flush ? "true" : "false", body])
          guard let sequence = rows.integer(0, 0) else {
            throw .operationFailed(
              "appending probes on \(connection.target.displayName) gave no sequence")
          }
          try connection.query(
            "SELECT pg_notify($1, $2)", [PostgresTrafficStore.probeChannel, String(sequence)])
          if sequence % 100 == 0 {
            try connection.query(
              "DELETE FROM probe_log WHERE created_at < now() - make_interval(secs => $1)",
              [String(PostgresSchema.retainedProbeSeconds)])
          }
          return sequence
        }
      }
      // Under the session's lock: a reader cannot see the batch before it is known as own.
      probeLog.withLock { _ = $0.held.insert(sequence) }
    }
  }

  /// The next batches in the probe log that this node's flow does not hold yet, oldest
  /// first: other nodes' batches after `probeSequence`, without this node's own.
  ///
  /// Call `markProbesApplied(through:)` with each batch's sequence before ingesting it, and
  /// with `through` at the end.
  /// - Parameter limit: The most log rows read at once.
  /// - Returns: The batches, and the sequence of the last row read (own ones included):
  ///   `probeSequence` when there was none. Fewer than `limit` rows means the reader is
  ///   current.
  /// - Throws: `TrafficStoreError.operationFailed` when the database cannot be read.
  /// - Complexity: O(p) for the p probes read.
  public func pendingProbeBatches(
    limit: Int = 100
  ) throws(TrafficStoreError) -> (batches: [PostgresProbeBatch], through: Int64, rows: Int) {
    let node = nodeID.uuidString
    let database = displayName
    let position = probeLog.withLock { $0 }
    let after = position.applied
    let rows = try withSession { session throws(TrafficStoreError) in
      try session.retrying { connection throws(TrafficStoreError) in
        let result = try connection.query(
          """
          SELECT sequence, node, flush, CASE WHEN node = $2::uuid THEN NULL ELSE probes END,
            extract(epoch FROM now() - created_at)::float8
          FROM probe_log WHERE sequence > $1::bigint ORDER BY sequence LIMIT $3::bigint
          """, [String(after), node, String(max(1, limit))])
        return (0..<result.count).map { row in
          (
            sequence: result.integer(row, 0) ?? after, node: result.text(row, 1) ?? "",
            flush: result.text(row, 2) == "t",
            body: result.text(row, 3).map { _ in
              result.data(row, 3)
            },
            age: result.text(row, 4).flatMap(Double.init) ?? 0
          )
        }
      }
    }
    var batches: [PostgresProbeBatch] = []
    for row in rows where !position.held.contains(row.sequence) {
      guard let body = row.body else { continue }
      var batch = PostgresProbeBatch(
        sequence: row.sequence, node: UUID(uuidString: row.node) ?? UUID(), probes: [],
        flush: row.flush, ageInSeconds: row.age, isRestored: position.isRestored(row.sequence))
      let name = "probe batch \(row.sequence) in \(database)"
      if let bytes = PostgresBytes.bytes(body) {
        do { batch.probes = try ProbeCoder.probes(bytes, name: name) } catch {
          batch.damage = "\(error)"
        }
      } else {
        batch.damage = "\(name) is not hex bytea"
      }
      batches.append(batch)
    }
    return (batches, rows.last?.sequence ?? after, rows.count)
  }

  /// Notes that this node's flow holds every batch up to `sequence`.
  ///
  /// - Parameter sequence: A probe-log sequence; an earlier one than `probeSequence` changes
  ///   nothing.
  public func markProbesApplied(through sequence: Int64) {
    probeLog.withLock { $0.advance(to: sequence) }
  }

  /// The probe-log sequence up to which this node's flow holds every batch.
  public var probeSequence: Int64 { probeLog.withLock { $0.mark.applied } }

  // MARK: FlowPersistence

  /// Chooses the road network the flow state belongs to: later saves and loads use the row
  /// of its fingerprint. Nothing is written; every node loads its network from its file.
  ///
  /// - Parameter network: The node's road network.
  /// - Complexity: O(n) to encode the network's n segments for the fingerprint.
  package func saveNetwork(_ network: RoadNetwork) throws(TrafficStoreError) {
    let fingerprint = FlowStateCoder.fingerprint(of: network)
    probeLog.withLock { $0.network = fingerprint }
  }

  /// Always `nil`: the database does not keep road networks (each node loads its file).
  package func loadNetwork() throws(TrafficStoreError) -> RoadNetwork? { nil }

  /// Replaces the saved flow state of the chosen network, with where this node is in the
  /// probe log, in one statement.
  ///
  /// Every node saves its state under the same row; the last save wins (all nodes compute
  /// the same flow from the same probes).
  /// - Parameter state: from `FlowState.persisted(now:incidents:)`.
  /// - Throws: `TrafficStoreError.operationFailed` when no network was chosen
  ///   (`saveNetwork(_:)`) or the write fails; the previous state stays then.
  /// - Complexity: O(a·c) to encode a segments of c contributions each; one round trip.
  package func saveFlow(_ state: FlowState.Persisted) throws(TrafficStoreError) {
    try saveFlow(state, at: probeLogMark())
  }

  /// Where this node is in the probe log: what its flow holds (`ProbeLogPosition.mark`).
  package func probeLogMark() -> ProbeLogMark? { probeLog.withLock { $0.mark } }

  /// Replaces the saved flow state of the chosen network with `state`, taken when the
  /// node's flow held the batches `mark` names, in one statement.
  ///
  /// - Throws: `TrafficStoreError.operationFailed` when no network was chosen or the write
  ///   fails; the previous state stays then.
  /// - Complexity: O(a·c) to encode a segments of c contributions each; one round trip.
  package func saveFlow(
    _ state: FlowState.Persisted, at mark: ProbeLogMark?
  ) throws(TrafficStoreError) {
    let network = probeLog.withLock { $0.network }
    let mark = mark ?? probeLog.withLock { $0.mark }
    let (applied, held) = (mark.applied, mark.held)
    guard let network else {
      throw .operationFailed("no road network was chosen for the flow state in \(displayName)")
    }
    let values = [
      network, String(applied), PostgresText.array(held.sorted().map(String.init)),
      PostgresBytes.literal(FlowStateCoder.state(state)),
    ]
    try withSession { session throws(TrafficStoreError) in
      // An upsert: running it again after a lost connection stores the same row.
      _ = try session.retrying { connection throws(TrafficStoreError) in
        try connection.query(
          """
          INSERT INTO flow_state (network, probe_sequence, held_sequences, state)
          VALUES ($1, $2::bigint, $3::bigint[], $4::bytea)
          ON CONFLICT (network) DO UPDATE SET saved_at = now(),
            probe_sequence = excluded.probe_sequence, held_sequences = excluded.held_sequences,
            state = excluded.state
          """, values)
      }
    }
  }

  /// The saved flow state of the chosen network, or `nil` when none was saved (or no network
  /// was chosen). Also moves this node's place in the probe log to where the state was
  /// saved, so that the batches after it are replayed and those it holds are not.
  ///
  /// - Throws: `TrafficStoreError.operationFailed` naming the database when the row is
  ///   damaged or cannot be read.
  /// - Complexity: O(a·c) for a segments of c contributions each.
  package func loadFlow() throws(TrafficStoreError) -> FlowState.Persisted? {
    guard let network = probeLog.withLock({ $0.network }) else { return nil }
    let database = displayName
    let row = try withSession { session throws(TrafficStoreError) in
      try session.retrying { connection throws(TrafficStoreError) in
        let rows = try connection.query(
          """
          SELECT probe_sequence, array_to_json(held_sequences)::text, state
          FROM flow_state WHERE network = $1
          """, [network])
        guard rows.count == 1 else { return (Int64, Data, Data)?.none }
        return (rows.integer(0, 0) ?? 0, rows.data(0, 1), rows.data(0, 2))
      }
    }
    guard let (sequence, heldJSON, body) = row else { return nil }
    let name = "the flow state of network \(network) in \(database)"
    guard let held = try? JSONDecoder().decode([Int64].self, from: heldJSON),
      let bytes = PostgresBytes.bytes(body)
    else {
      throw .operationFailed("\(name) is damaged")
    }
    let state: FlowState.Persisted
    do { state = try FlowStateCoder.state(bytes, name: name) } catch {
      throw .operationFailed("\(error)")
    }
    probeLog.withLock { position in
      // The log is read again from its start: what the state holds rebuilds the vehicles'
      // traces (and their last points) without counting, what follows counts.
      position.applied = 0
      position.held = []
      position.restoredThrough = sequence
      position.restoredHeld = Set(held.filter { $0 > sequence })
    }
    return state
  }
}

/// `bytea` values as text parameters and results (the hex format).
enum PostgresBytes {
  private static let digits = Array("0123456789abcdef".utf8)

  /// `\x` and two hex digits per byte.
  ///
  /// - Complexity: O(n) for n bytes.
  static func literal(_ data: Data) -> String {
    var text: [UInt8] = [UInt8(ascii: "\\"), UInt8(ascii: "x")]
    text.reserveCapacity(2 + 2 * data.count)
    for byte in data {
      text.append(digits[Int(byte >> 4)])
      text.append(digits[Int(byte & 15)])
    }
    return String(decoding: text, as: UTF8.self)
  }

  /// The bytes of a `bytea` result in the hex format; `nil` when it is not one.
  ///
  /// - Complexity: O(n) for n bytes.
  static func bytes(_ text: Data) -> [UInt8]? {
    let characters = Array(text)
    guard characters.count >= 2, characters[0] == UInt8(ascii: "\\"),
      characters[1] == UInt8(ascii: "x"), characters.count % 2 == 0
    else { return nil }
    func value(_ digit: UInt8) -> UInt8? {
      switch digit {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): return digit - UInt8(ascii: "A") + 10
      default: return nil
      }
    }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(characters.count / 2 - 1)
    var index = 2
    while index < characters.count {
      guard let high = value(characters[index]), let low = value(characters[index + 1]) else {
        return nil
      }
      bytes.append(high << 4 | low)
      index += 2
    }
    return bytes
  }
}
