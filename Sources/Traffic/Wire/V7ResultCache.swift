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
/// rebuild, so their fragments survive writes. The fragments lie in one byte arena and the
/// table holds plain offsets: an answer is assembled under one lock by hashing a word per
/// incident and copying its bytes, with no reference counting per fragment.
///
/// Bounded by bytes: the fragments plus `entryCost` for each fragment held (the incident's
/// storage it keeps alive, roughly, even after the snapshot dropped it); when a new fragment
/// would pass `maxBytes`, the cache is cleared (clear-on-full keeps lookups O(1) without an
/// LRU list; a region's working set refills it).
final class V7ResultCache: Sendable {
  /// A fragment: an incident value in one variant (language and location referencing).
  fileprivate struct Key: Hashable {
    var storage: ObjectIdentifier
    var variant: Int
  }

  /// Where a fragment's bytes lie in the arena.
  fileprivate struct Slot {
    var offset: Int
    var count: Int
  }

  fileprivate struct State {
    var arena: [UInt8] = []
    var slots: [Key: Slot] = [:]
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

  /// An empty cache holding up to `maxBytes` of fragments.
  init(maxBytes: Int = 256 << 20) {
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
  /// - Returns: UTF-8 JSON text.
  /// - Complexity: O(k) lookups under one lock and one copy of the answer's bytes; O(size)
  ///   encoding for each incident not cached yet.
  func encode(
    _ positions: [Int], of index: IncidentIndex, language: LanguageCode?,
    references: V7IncidentWire.LocationReferencing, sourceUpdated: Date?,
    localize: (TrafficIncident) -> TrafficIncident
  ) -> Data {
    let variantName = "\(language?.identifier ?? "")/\(references.rawValue)"
    let storages = positions.map { index.incidents[$0].storageIdentity }
    // The whole answer under the lock when every fragment is held (the common case).
    let (variant, missing, answer) = state.withLock {
      state -> (Int, [Int], Data?) in
      let variant = state.variant(named: variantName)
      var found: [Slot] = []
      found.reserveCapacity(storages.count)
      var missing: [Int] = []
      for (slot, storage) in storages.enumerated() {
        if let hit = state.slots[Key(storage: storage, variant: variant)] {
          found.append(hit)
        } else {
          missing.append(slot)
        }
      }
      guard missing.isEmpty else { return (variant, missing, nil) }
      let size = found.reduce(64) { $0 + $1.count + 1 }
      let answer = state.arena.withUnsafeBufferPointer { arena in
        V7Envelope.write(found, sourceUpdated: sourceUpdated, capacity: size) { slot, writer in
          writer.append(
            UnsafeBufferPointer(rebasing: arena[slot.offset..<slot.offset + slot.count]))
        }
      }
      return (variant, [], answer)
    }
    if let answer { return answer }

    // Encode what is missing outside the lock, store it, and assemble from copies.
    var fresh: [(slot: Int, bytes: [UInt8])] = []
    for slot in missing {
      var writer = JSONWriter(capacity: 1024)
      V7IncidentWire.writeResult(
        localize(index.incidents[positions[slot]]), references: references, to: &writer)
      fresh.append((slot, writer.bytes))
    }
    var fragments = [[UInt8]](repeating: [], count: positions.count)
    for (slot, bytes) in fresh { fragments[slot] = bytes }
    state.withLock { state in
      for (slot, bytes) in fresh {
        state.store(
          bytes, for: Key(storage: storages[slot], variant: variant),
          owner: index.incidents[positions[slot]].storageObject, maxBytes: maxBytes)
      }
      state.arena.withUnsafeBufferPointer { arena in
        for slot in fragments.indices where fragments[slot].isEmpty {
          // Held before the store above, or stored by another thread meanwhile; a clear
          // on full may have dropped it, then it is encoded again below.
          if let hit = state.slots[Key(storage: storages[slot], variant: variant)] {
            fragments[slot] = Array(arena[hit.offset..<hit.offset + hit.count])
          }
        }
      }
    }
    for slot in fragments.indices where fragments[slot].isEmpty {
      var writer = JSONWriter(capacity: 1024)
      V7IncidentWire.writeResult(
        localize(index.incidents[positions[slot]]), references: references, to: &writer)
      fragments[slot] = writer.bytes
    }
    let size = fragments.reduce(64) { $0 + $1.count + 1 }
    return V7Envelope.write(fragments, sourceUpdated: sourceUpdated, capacity: size) {
      fragment, writer in
      writer.append(fragment)
    }
  }
}

extension V7ResultCache.State {
  /// The number of a variant, given one on first use.
  fileprivate mutating func variant(named name: String) -> Int {
    if let number = variants[name] { return number }
    let number = variants.count
    variants[name] = number
    return number
  }

  /// Adds a fragment unless held (another thread may have encoded it meanwhile), clearing
  /// the cache first when it would pass `maxBytes`.
  fileprivate mutating func store(
    _ bytes: [UInt8], for key: V7ResultCache.Key, owner: any AnyObject & Sendable,
    maxBytes: Int
  ) {
    guard slots[key] == nil else { return }
    let cost = bytes.count + V7ResultCache.entryCost
    if self.bytes + cost > maxBytes {
      arena.removeAll(keepingCapacity: true)
      slots.removeAll(keepingCapacity: true)
      owners.removeAll(keepingCapacity: true)
      self.bytes = 0
    }
    // Reserved whole once (address space; pages are only committed as written), so the
    // arena never moves under the lock.
    if arena.capacity < maxBytes { arena.reserveCapacity(maxBytes) }
    slots[key] = V7ResultCache.Slot(offset: arena.count, count: bytes.count)
    arena.append(contentsOf: bytes)
    owners.append(owner)
    self.bytes += cost
  }
}
