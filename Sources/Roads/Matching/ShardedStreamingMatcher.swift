import Dispatch
import Foundation

/// Several ``StreamingMapMatcher``s, each holding the vehicles a stable hash of their id
/// gives it, that match one batch of probes on as many cores at once — with the same
/// results, in the same order, as one stream matching the batch probe by probe.
///
/// Matching one vehicle's probe reads and writes only that vehicle's track (and a search
/// scratch, one per shard), so vehicles of different shards are matched independently. Each
/// decided position is tagged with the batch position of the probe that decided it, and the
/// shards' outputs are merged by that tag: the order positions reach the aggregator is the
/// order of one stream. What differs is only how many vehicles a shard holds before it
/// evicts the least recent ones: ``MapMatchingOptions/maxVehicles`` divided among the shards.
///
/// A value type: keep one per stream and mutate it from one place at a time.
package struct ShardedStreamingMatcher: Sendable {
  private var shards: [StreamingMapMatcher]

  /// A probe of a batch, in the order the batch is to be matched.
  package struct Item: Sendable {
    package var point: ProbePoint
    package var vehicleID: String
    package init(point: ProbePoint, vehicleID: String) {
      self.point = point
      self.vehicleID = vehicleID
    }
  }

  /// What a batch gave: each probe's outcome, in batch order, and the positions decided, in
  /// the order one stream would have decided them.
  package struct BatchResult: Sendable {
    package var outcomes: [ProbeMatchOutcome]
    package var decided: [MatchedPoint]
    /// Vehicles whose first new probe of the current batch (``beginBatch()``) this part
    /// added.
    package var vehicles = 0
  }

  /// The fewest vehicles a shard is given room for: a smaller vehicle bound stays one shard,
  /// so that eviction works as the bound says.
  package static let minimumVehiclesPerShard = 10_000

  /// Streams for `shardCount` shards (at most one per `maxVehicles /`
  /// ``minimumVehiclesPerShard``, at least one), sharing the matcher's network and tables.
  ///
  /// - Complexity: O(s·m) for s shards and the m segments of the network (search labels).
  package init(matcher: MapMatcher, shardCount: Int = ProcessInfo.processInfo.activeProcessorCount)
  {
    let limit = matcher.options.maxVehicles / Self.minimumVehiclesPerShard
    let count = max(1, min(shardCount, limit, 8))
    var options = matcher.options
    options.maxVehicles = max(1, matcher.options.maxVehicles / count)
    let shardMatcher =
      count == 1
      ? matcher
      : MapMatcher(graph: matcher.graph, network: matcher.network, validatedOptions: options)
    shards = (0..<count).map { _ in StreamingMapMatcher(matcher: shardMatcher) }
  }

  /// The number of shards.
  package var shardCount: Int { shards.count }

  /// The number of vehicles with state held.
  package var vehicleCount: Int { shards.reduce(0) { $0 + $1.vehicleCount } }

  /// The shard of a vehicle: FNV-1a of its id's UTF-8 bytes (the same in every process,
  /// unlike `Hasher`).
  package func shard(of vehicleID: String) -> Int {
    guard shards.count > 1 else { return 0 }
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in vehicleID.utf8 {
      hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
    }
    return Int(hash % UInt64(shards.count))
  }

  /// Matches a batch, already in the order its probes are to be added (each vehicle's in
  /// time order).
  ///
  /// - Complexity: as ``StreamingMapMatcher/add(_:vehicleID:into:)`` per probe, spread over
  ///   the shards' threads.
  package mutating func add(_ items: [Item]) -> BatchResult {
    let vehiclesBefore = vehiclesAdded
    if shards.count == 1 {
      var outcomes: [ProbeMatchOutcome] = []
      outcomes.reserveCapacity(items.count)
      var decided: [MatchedPoint] = []
      for item in items {
        outcomes.append(shards[0].add(item.point, vehicleID: item.vehicleID, into: &decided))
      }
      return BatchResult(
        outcomes: outcomes, decided: decided, vehicles: vehiclesAdded - vehiclesBefore)
    }
    var positions = [[Int]](repeating: [], count: shards.count)
    for (position, item) in items.enumerated() {
      positions[shard(of: item.vehicleID)].append(position)
    }
    let work = shards.indices.map { ShardWork(stream: shards[$0], positions: positions[$0]) }
    // The streams now live in `work` alone, so that their tables are not copied on write.
    shards.removeAll()
    DispatchQueue.concurrentPerform(iterations: work.count) { k in
      work[k].run(items)
    }
    var outcomes = [ProbeMatchOutcome](repeating: .accepted, count: items.count)
    for part in work {
      for (position, outcome) in zip(part.positions, part.outcomes) {
        outcomes[position] = outcome
      }
    }
    let decided = Self.merge(work.map(\.decided)) { $0.tag < $1.tag }.map(\.point)
    shards = work.map { $0.take() }
    return BatchResult(
      outcomes: outcomes, decided: decided, vehicles: vehiclesAdded - vehiclesBefore)
  }

  /// Starts a batch: a vehicle's first new probe after this counts in
  /// ``BatchResult/vehicles``.
  ///
  /// - Parameter checksLedger: Whether the batch's probes are checked against the ledger
  ///   and recorded in it; `false` for a batch the ledger holds already, read again only to
  ///   rebuild the vehicles' traces (see ``StreamingMapMatcher/checksLedger``).
  package mutating func beginBatch(checksLedger: Bool = true) {
    let next = (shards.first?.batch ?? 0) &+ 1
    for k in shards.indices {
      shards[k].batch = next
      shards[k].checksLedger = checksLedger
    }
  }

  private var vehiclesAdded: Int { shards.reduce(0) { $0 + $1.vehiclesAdded } }

  /// The vehicles with ledger spans (see ``ProbeLedger``).
  package var ledgerVehicleCount: Int { shards.reduce(0) { $0 + $1.ledger.vehicleCount } }

  /// Every vehicle's ledger spans, by vehicle id.
  ///
  /// - Complexity: O(v log v + s) for v vehicles and s spans.
  package var ledgerEntries: [(vehicleID: String, spans: [LedgerSpan])] {
    Self.entries(of: ledgers)
  }

  /// The shards' ledgers (copied on write: cheap to take under a lock, see
  /// ``entries(of:)``).
  package var ledgers: [ProbeLedger] { shards.map(\.ledger) }

  /// Every vehicle's spans in `ledgers`, by vehicle id.
  ///
  /// - Complexity: O(v log v + s) for v vehicles and s spans.
  package static func entries(
    of ledgers: [ProbeLedger]
  ) -> [(vehicleID: String, spans: [LedgerSpan])] {
    ledgers.flatMap(\.entries).sorted { $0.vehicleID < $1.vehicleID }
  }

  /// Replaces every vehicle's ledger spans with saved ones (each to its vehicle's shard).
  ///
  /// - Complexity: O(v + s) for v vehicles and s spans.
  package mutating func restoreLedger(_ entries: [(vehicleID: String, spans: [LedgerSpan])]) {
    for k in shards.indices { shards[k].clearLedger() }
    for entry in entries {
      shards[shard(of: entry.vehicleID)].setLedger(entry.vehicleID, spans: entry.spans)
    }
  }

  /// Forgets the ledger spans whose last probe is before `cutoff`.
  package mutating func pruneLedger(before cutoff: Date) {
    for k in shards.indices { shards[k].pruneLedger(before: cutoff) }
  }

  /// Flushes and forgets the vehicles idle since ``MapMatchingOptions/vehicleTimeoutInSeconds``
  /// before `now`, as ``StreamingMapMatcher/expire(now:)``: vehicle by vehicle in id order,
  /// handed to `deliver` a few thousand positions at a time (a long import can leave half a
  /// million vehicles to flush).
  package mutating func expire(now: Date, deliver: ([MatchedPoint]) -> Void) {
    flush(inIDOrder { $0.idleVehicleIDs(now: now) }, forget: true, deliver: deliver)
    for k in shards.indices { shards[k].forgetIdleSideKeys() }
  }

  /// Decides every undecided position, as ``StreamingMapMatcher/flushAll()``, handed to
  /// `deliver` a few thousand at a time.
  package mutating func flushAll(deliver: ([MatchedPoint]) -> Void) {
    flush(inIDOrder(\.vehicleIDs), forget: false, deliver: deliver)
  }

  private mutating func flush(
    _ vehicles: [(shard: Int, vehicleID: String)], forget: Bool,
    deliver: ([MatchedPoint]) -> Void
  ) {
    var output: [MatchedPoint] = []
    for (k, vehicleID) in vehicles {
      shards[k].flush(vehicleID, forget: forget, into: &output)
      if output.count >= 4_096 {
        deliver(output)
        output.removeAll(keepingCapacity: true)
      }
    }
    if !output.isEmpty { deliver(output) }
  }

  /// The provisional positions, as ``StreamingMapMatcher/undecidedPoints``.
  package var undecidedPoints: [MatchedPoint] {
    guard shards.count > 1 else { return shards[0].undecidedPoints }
    var output: [MatchedPoint] = []
    for (k, vehicleID) in inIDOrder(\.vehicleIDs) { shards[k].undecided(vehicleID, into: &output) }
    return output
  }

  /// The vehicles `select` picks in each shard, with their shard, in id order (the order
  /// one stream works through them).
  private func inIDOrder(
    _ select: (StreamingMapMatcher) -> [String]
  ) -> [(shard: Int, vehicleID: String)] {
    var all: [(shard: Int, vehicleID: String)] = []
    for k in shards.indices { all += select(shards[k]).map { (k, $0) } }
    return all.sorted { $0.vehicleID < $1.vehicleID }
  }

  /// Merges sequences each sorted by `less`, taking from the earliest listed part on ties.
  static func merge<Element>(
    _ parts: [[Element]], by less: (Element, Element) -> Bool
  ) -> [Element] {
    var output: [Element] = []
    output.reserveCapacity(parts.reduce(0) { $0 + $1.count })
    var next = [Int](repeating: 0, count: parts.count)
    while true {
      var best: Int?
      for k in parts.indices where next[k] < parts[k].count {
        if let b = best, !less(parts[k][next[k]], parts[b][next[b]]) { continue }
        best = k
      }
      guard let b = best else { return output }
      output.append(parts[b][next[b]])
      next[b] += 1
    }
  }

  /// One shard's part of a batch, run on its own thread: concurrentPerform hands each
  /// iteration its own instance, and the caller reads the results after it returns.
  private final class ShardWork: @unchecked Sendable {
    private var stream: StreamingMapMatcher?
    let positions: [Int]
    var outcomes: [ProbeMatchOutcome] = []
    var decided: [(tag: Int, point: MatchedPoint)] = []

    init(stream: StreamingMapMatcher, positions: [Int]) {
      self.stream = stream
      self.positions = positions
    }

    func run(_ items: [Item]) {
      guard var stream = stream.take() else { return }
      outcomes.reserveCapacity(positions.count)
      var output: [MatchedPoint] = []
      for position in positions {
        let item = items[position]
        outcomes.append(stream.add(item.point, vehicleID: item.vehicleID, into: &output))
        for point in output { decided.append((position, point)) }
        output.removeAll(keepingCapacity: true)
      }
      self.stream = stream
    }

    func take() -> StreamingMapMatcher {
      guard let stream = stream.take() else {
        preconditionFailure("a shard's stream is put back by run and taken once")
      }
      return stream
    }
  }
}
