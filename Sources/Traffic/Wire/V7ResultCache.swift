import Codec
import Foundation
import Synchronization

/// The v7 result objects (`{"location": ..., "incidentDetails": ...}`) of incidents,
/// encoded once per incident value, language and location referencing, so that a query
/// answer is assembled from ready bytes instead of localising and encoding every incident
/// again.
///
/// Keyed by the identity of the incident's copy-on-write storage, which the cache holds (so
/// it is never mutated nor reused while cached): an incident written again has a new
/// storage and misses, while unchanged incidents keep theirs through every snapshot
/// rebuild, so their fragments survive writes. The fragments lie in one byte arena; each
/// variant (language and location referencing) has an open-addressing table of 16-byte
/// entries holding the storage's address and the fragment's place in the arena, so a
/// lookup is a multiply and, mostly, one cache line. An answer is assembled under one lock
/// straight into the buffer that is sent, with no reference counting per fragment.
///
/// Bounded by bytes: the fragments plus `entryCost` for each fragment held (the incident's
/// storage it keeps alive, roughly, even after the snapshot dropped it); when a new fragment
/// would pass `maxBytes`, the cache is cleared (clear-on-full keeps lookups O(1) without an
/// LRU list; a region's working set refills it).
final class V7ResultCache: Sendable {
  /// Where a fragment's bytes lie in the arena, under the address of the incident storage
  /// it was encoded from (0: an empty entry).
  fileprivate struct Entry {
    var key: UInt
    var offset: UInt32
    var count: UInt32
  }

  /// The fragments of one variant: open addressing with linear probing, at most half full.
  fileprivate struct Table {
    var entries = [Entry](repeating: Entry(key: 0, offset: 0, count: 0), count: 1 << 10)
    var count = 0
    var shift = 64 - 10

    /// The first slot to probe for `key` (Fibonacci hashing of the address).
    @inline(__always)
    func home(_ key: UInt) -> Int {
      Int(truncatingIfNeeded: (UInt64(key) &* 0x9e37_79b9_7f4a_7c15) >> UInt64(shift))
    }

    @inline(__always)
    func find(_ key: UInt) -> Entry? {
      entries.withUnsafeBufferPointer { entries in
        let mask = entries.count - 1
        var slot = home(key)
        while true {
          let entry = entries[slot]
          if entry.key == key { return entry }
          if entry.key == 0 { return nil }
          slot = (slot + 1) & mask
        }
      }
    }

    /// Adds an entry whose key is not held.
    mutating func insert(_ entry: Entry) {
      if (count + 1) * 2 > entries.count { grow() }
      let mask = entries.count - 1
      var slot = home(entry.key)
      while entries[slot].key != 0 { slot = (slot + 1) & mask }
      entries[slot] = entry
      count += 1
    }

    private mutating func grow() {
      let old = entries
      entries = [Entry](repeating: Entry(key: 0, offset: 0, count: 0), count: old.count * 2)
      shift -= 1
      count = 0
      for entry in old where entry.key != 0 { insert(entry) }
    }
  }

  fileprivate struct State {
    var arena: [UInt8] = []
    /// The tables by variant number.
    var tables: [Table] = []
    /// The storages of the incidents with fragments, kept alive (see the type's note).
    var owners: [any AnyObject & Sendable] = []
    /// Variant numbers by language identifier and location referencing.
    var variants: [String: Int] = [:]
    var bytes = 0
  }

  private let state = Mutex(State())
  /// The most bytes held, fragments and entries.
  let maxBytes: Int
  /// What a fragment is counted for besides its bytes.
  static let entryCost = 1_024

  /// An empty cache holding up to `maxBytes` of fragments (below 4 GiB: arena offsets are
  /// 32-bit).
  init(maxBytes: Int = 256 << 20) {
    precondition(maxBytes > 0 && maxBytes < Int(UInt32.max), "V7ResultCache: maxBytes")
    self.maxBytes = maxBytes
  }

  /// The v7 incident response of the incidents at `positions` of `index`, in that order:
  /// `{"sourceUpdated": ..., "results": [...]}`, byte for byte what
  /// `V7IncidentWire.encode` writes for the same incidents localised to `language`.
  ///
  /// - Parameters:
  ///   - positions: Positions in `index.incidents`, in the order to write them.
  ///   - index: The snapshot they belong to.
  ///   - language: The language of the texts (`nil`: each incident's country's).
  ///   - references: The location references to write.
  ///   - sourceUpdated: The envelope's update time.
  ///   - localize: Words an incident in `language` (called for fragments not cached).
  /// - Returns: UTF-8 JSON text, in a buffer a socket layer can send without a copy.
  /// - Complexity: O(k) lookups under one lock and one copy of the answer's bytes; O(size)
  ///   encoding for each incident not cached yet.
  func encode(
    _ positions: [Int], of index: IncidentIndex, language: LanguageCode?,
    references: V7IncidentWire.LocationReferencing, sourceUpdated: Date?,
    localize: (TrafficIncident) -> TrafficIncident
  ) -> SharedBytes {
    let variantName = "\(language?.identifier ?? "")/\(references.rawValue)"
    let incidents = index.incidents
    let keys = positions.map { UInt(bitPattern: incidents[$0].storageIdentity) }
    var head = JSONWriter(capacity: 64)
    V7Envelope.writeHead(sourceUpdated: sourceUpdated, to: &head)
    let assembly = JSONWriter.Assembly(prefix: head.bytes, suffix: V7Envelope.tail)
    // The whole answer under the lock when every fragment is held (the common case).
    let (variant, answer) = state.withLock { state -> (Int, SharedBytes?) in
      let variant = state.variant(named: variantName)
      let table = state.tables[variant]
      return withUnsafeTemporaryAllocation(of: Entry.self, capacity: keys.count) { found in
        var valueBytes = 0
        for (slot, key) in keys.enumerated() {
          guard let entry = table.find(key) else { return (variant, nil) }
          found[slot] = entry
          valueBytes += Int(entry.count)
        }
        let size = assembly.size(count: keys.count, valueBytes: valueBytes)
        let answer = state.arena.withUnsafeBytes { arena in
          Self.assemble(assembly, size: size, count: keys.count) { slot, put in
            let entry = found[slot]
            put(
              UnsafeRawBufferPointer(
                rebasing: arena[Int(entry.offset)..<Int(entry.offset) + Int(entry.count)]))
          }
        }
        return (variant, answer)
      }
    }
    if let answer { return answer }

    // Encode what is missing outside the lock, store it, and assemble from copies.
    var fragments: [[UInt8]?] = state.withLock { state in
      let table = state.tables[variant]
      return state.arena.withUnsafeBytes { arena in
        keys.map { key in
          table.find(key).map {
            Array(arena[Int($0.offset)..<Int($0.offset) + Int($0.count)])
          }
        }
      }
    }
    var fresh: [(slot: Int, bytes: [UInt8])] = []
    for slot in fragments.indices where fragments[slot] == nil {
      var writer = JSONWriter(capacity: 1024)
      V7IncidentWire.writeResult(
        localize(incidents[positions[slot]]), references: references, to: &writer)
      fragments[slot] = writer.bytes
      fresh.append((slot, writer.bytes))
    }
    state.withLock { state in
      for (slot, bytes) in fresh {
        state.store(
          bytes, for: keys[slot], variant: variant,
          owner: incidents[positions[slot]].storageObject, maxBytes: maxBytes)
      }
    }
    let valueBytes = fragments.reduce(0) { $0 + ($1?.count ?? 0) }
    let size = assembly.size(count: keys.count, valueBytes: valueBytes)
    return Self.assemble(assembly, size: size, count: fragments.count) { slot, put in
      // Every slot holds a fragment by now (cached or encoded above).
      (fragments[slot] ?? []).withUnsafeBytes(put)
    }
  }

  /// The answer of `count` fragments in a buffer of exactly `size` bytes; `fragment` hands
  /// the bytes of the fragment numbered by its first argument to its second.
  private static func assemble(
    _ assembly: JSONWriter.Assembly, size: Int, count: Int,
    fragment: (Int, (UnsafeRawBufferPointer) -> Void) -> Void
  ) -> SharedBytes {
    SharedBytes(capacity: size) { buffer in
      assembly.write(into: buffer, count: count, value: fragment)
    }
  }
}

extension V7ResultCache.State {
  /// The number of a variant, given one (and a table) on first use.
  fileprivate mutating func variant(named name: String) -> Int {
    if let number = variants[name] { return number }
    let number = variants.count
    variants[name] = number
    tables.append(V7ResultCache.Table())
    return number
  }

  /// Adds a fragment unless held (another thread may have encoded it meanwhile), clearing
  /// the cache first when it would pass `maxBytes`.
  fileprivate mutating func store(
    _ bytes: [UInt8], for key: UInt, variant: Int, owner: any AnyObject & Sendable,
    maxBytes: Int
  ) {
    guard tables[variant].find(key) == nil else { return }
    let cost = bytes.count + V7ResultCache.entryCost
    // A fragment that alone passes the bound is sent but not kept.
    guard cost <= maxBytes else { return }
    if self.bytes + cost > maxBytes {
      arena.removeAll(keepingCapacity: true)
      for variant in tables.indices { tables[variant] = V7ResultCache.Table() }
      owners.removeAll(keepingCapacity: true)
      self.bytes = 0
    }
    // Reserved whole once (address space; pages are only committed as written), so the
    // arena never moves under the lock.
    if arena.capacity < maxBytes { arena.reserveCapacity(maxBytes) }
    tables[variant].insert(
      V7ResultCache.Entry(key: key, offset: UInt32(arena.count), count: UInt32(bytes.count)))
    arena.append(contentsOf: bytes)
    owners.append(owner)
    self.bytes += cost
  }
}
