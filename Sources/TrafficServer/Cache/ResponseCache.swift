import Foundation
import Synchronization
import Traffic

/// The final answers of recent identical queries, so that a repeated query (what map clients
/// and load generators do) costs a hash lookup instead of a query and an encoding.
///
/// An entry is keyed by the route, the normalised query string (pairs sorted, the API key
/// left out) and whether the client accepts gzip; it holds the final body and its
/// `ETag`. It is used only while the engine's data version it was made from (the incident
/// snapshot and, for flow, the time the flow data last changed) is current,
/// and for at most `maxAgeSeconds`, because answers also depend on the clock (incidents that
/// end, probes that leave the aggregation window).
///
/// Bounded by entry count and body bytes: when either bound would be passed, the cache is
/// cleared (clear-on-full keeps a lookup O(1) without an LRU list; the working set of a load
/// test or a map view refills it at once).
///
/// Only answers to queries asked before are kept (`admits(_:)`, a doorkeeper of recent key
/// hashes that outlives data versions): a stream of distinct queries (map pans, one-off
/// areas) then neither fills the cache with answers nobody asks again nor evicts the ones
/// that are, and its answer buffers are freed as soon as they are sent, so the allocator
/// hands the same warm memory to the next answer.
final class ResponseCache: Sendable {
  /// What an entry is found by.
  struct Key: Hashable, Sendable {
    /// The route's label.
    var route: String
    /// The query pairs, sorted, `apiKey` removed, joined with `&` (still percent-encoded).
    var query: String
    /// Whether the client accepts gzip.
    var acceptsGzip: Bool
  }

  /// The version of the engine's data an answer was made from: the incident snapshot (its
  /// update time, its size and its generation, which the version retains so that the
  /// object cannot be reused by a later snapshot) and the time the flow data last changed.
  struct Version: Equatable, Sendable {
    var incidentsUpdated: Date?
    var incidentCount: Int
    var incidents: IncidentIndex.Generation
    var flowUpdated: Date?

    /// The version of a snapshot known by its stamp (`TrafficEngine.snapshotStamp`).
    init(
      stamp: (generation: IncidentIndex.Generation, updatedAt: Date?, count: Int),
      flowUpdated: Date?
    ) {
      incidentsUpdated = stamp.updatedAt
      incidentCount = stamp.count
      incidents = stamp.generation
      self.flowUpdated = flowUpdated
    }

    static func == (lhs: Version, rhs: Version) -> Bool {
      lhs.incidentsUpdated == rhs.incidentsUpdated && lhs.incidentCount == rhs.incidentCount
        && lhs.flowUpdated == rhs.flowUpdated && lhs.incidents === rhs.incidents
    }
  }

  /// A cached answer.
  struct Entry: Sendable {
    /// The final body (compressed when the key says so), in one buffer that responses
    /// share.
    var body: SharedBytes
    /// The strong validator of the body.
    var etag: String
    /// The response's `Content-Type`.
    var contentType: String
    /// Whether `body` is gzip-compressed.
    var isCompressed: Bool
    /// The data version the answer was made from.
    var version: Version
    /// When the entry was made, seconds on the server's monotonic clock.
    var createdAt: Double
  }

  private struct State {
    var entries: [Key: Entry] = [:]
    /// The version of the entries' data; entries of an older one are dropped, so that the
    /// cache retains one generation of incident arrays only.
    var version: Version?
    var bytes = 0
    var hits = 0
    var misses = 0
    /// Hashes of recently offered keys, by their low bits (0: none).
    var seen = [Int](repeating: 0, count: ResponseCache.doorkeeperSlots)
    var declined = 0
  }

  /// How many recent keys the doorkeeper remembers (a power of two).
  static let doorkeeperSlots = 1 << 14

  private let state = Mutex(State())
  /// The most entries held.
  let maxEntries: Int
  /// The most body bytes held.
  let maxBytes: Int
  /// How long an entry is used, seconds.
  let maxAgeSeconds: Double

  /// Creates an empty cache; `maxEntries` 0 disables it.
  init(maxEntries: Int, maxBytes: Int, maxAgeSeconds: Double) {
    self.maxEntries = maxEntries
    self.maxBytes = maxBytes
    self.maxAgeSeconds = maxAgeSeconds
  }

  /// Whether the cache stores anything.
  var isEnabled: Bool { maxEntries > 0 && maxBytes > 0 && maxAgeSeconds > 0 }

  /// The entry for `key` made from `version`, younger than `maxAgeSeconds` at `now`.
  ///
  /// - Complexity: O(1) expected (one hash of the key).
  func lookup(_ key: Key, version: Version, now: Double) -> Entry? {
    state.withLock { state in
      guard let entry = state.entries[key], entry.version == version,
        now - entry.createdAt <= maxAgeSeconds
      else {
        state.misses += 1
        return nil
      }
      state.hits += 1
      return entry
    }
  }

  /// Whether a fresh entry for `key` at `version` is there (no hit or miss counted).
  func contains(_ key: Key, version: Version, now: Double) -> Bool {
    state.withLock { state in
      guard let entry = state.entries[key] else { return false }
      return entry.version == version && now - entry.createdAt <= maxAgeSeconds
    }
  }

  /// Whether an answer for `key` is worth storing: its key was offered before (and is
  /// remembered among the last `doorkeeperSlots` or so). Remembers it otherwise.
  ///
  /// - Complexity: O(1) (one hash of the key).
  func admits(_ key: Key) -> Bool {
    guard isEnabled else { return false }
    let hash = key.hashValue | 1
    return state.withLock { state in
      let slot = hash & (state.seen.count - 1)
      if state.seen[slot] == hash { return true }
      state.seen[slot] = hash
      state.declined += 1
      return false
    }
  }

  /// Stores an entry, replacing any for the same key; clears the cache first when it would
  /// exceed its bounds. Bodies larger than a quarter of `maxBytes` are not stored.
  func store(_ entry: Entry, for key: Key) {
    guard isEnabled, entry.body.bytes.count <= maxBytes / 4 else { return }
    state.withLock { state in
      if state.version != entry.version {
        state.entries.removeAll(keepingCapacity: true)
        state.bytes = 0
        state.version = entry.version
      }
      let replaced = state.entries.removeValue(forKey: key)
      state.bytes -= replaced?.body.bytes.count ?? 0
      if state.entries.count >= maxEntries || state.bytes + entry.body.bytes.count > maxBytes {
        state.entries.removeAll(keepingCapacity: true)
        state.bytes = 0
      }
      state.entries[key] = entry
      state.bytes += entry.body.bytes.count
    }
  }

  /// The number of entries, bytes held, hits, misses and answers not kept because their
  /// query was new (for metrics and tests).
  var statistics: (entries: Int, bytes: Int, hits: Int, misses: Int, declined: Int) {
    state.withLock { ($0.entries.count, $0.bytes, $0.hits, $0.misses, $0.declined) }
  }

  /// Whether a query is already in normal form: no empty pair, no `apiKey`, pairs in
  /// byte order.
  private static func isNormalised(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    let key = "apiKey".utf8
    var previous: UnsafeBufferPointer<UInt8>.SubSequence?
    var start = bytes.startIndex
    while start <= bytes.endIndex {
      let end = bytes[start...].firstIndex(of: UInt8(ascii: "&")) ?? bytes.endIndex
      let pair = bytes[start..<end]
      if pair.isEmpty
        || (pair.starts(with: key)
          && (pair.count == key.count
            || pair[pair.startIndex + key.count] == UInt8(ascii: "=")))
      {
        return false
      }
      if let previous, pair.lexicographicallyPrecedes(previous) { return false }
      previous = pair
      start = end + 1
    }
    return true
  }

  /// The normalised form of a raw query string: its `&`-separated pairs without empty ones
  /// and without `apiKey`, sorted, joined with `&`.
  ///
  /// - Complexity: O(n log n) in the number of pairs.
  static func normalisedQuery(_ raw: Substring) -> String {
    let ampersand = UInt8(ascii: "&")
    guard raw.utf8.contains(ampersand) else {
      return raw == "apiKey" || raw.utf8.starts(with: "apiKey=".utf8) ? "" : String(raw)
    }
    // Clients repeat their queries byte for byte, mostly in order already: keep those as
    // they are, without splitting and building a new string.
    if raw.utf8.withContiguousStorageIfAvailable(isNormalised) == true { return String(raw) }
    // Byte-wise splitting and ordering: the pairs are still percent-encoded ASCII.
    let isKey = { (pair: Substring.UTF8View.SubSequence) in
      pair.elementsEqual("apiKey".utf8) || pair.starts(with: "apiKey=".utf8)
    }
    var pairs: [Substring.UTF8View.SubSequence] = raw.utf8.split(separator: ampersand)
    pairs.removeAll { isKey($0) }
    pairs.sort { $0.lexicographicallyPrecedes($1) }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(raw.utf8.count)
    for (index, pair) in pairs.enumerated() {
      if index > 0 { bytes.append(ampersand) }
      bytes.append(contentsOf: pair)
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}
