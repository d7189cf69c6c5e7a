import Foundation
import Synchronization

/// The v7 result objects (`{"location": ..., "incidentDetails": ...}`) of incidents,
/// encoded once per incident version, language and location referencing, so that a query
/// answer is assembled from ready bytes instead of localising and encoding every incident
/// again (the texts and the shape of a version never change; a version written again is
/// forgotten through ``invalidate(_:)``).
///
/// Bounded by body bytes: when a new fragment would pass `maxBytes`, the cache is cleared
/// (clear-on-full keeps lookups O(1) without an LRU list; a region's working set refills it).
final class V7ResultCache: Sendable {
  /// The encodings of one incident version.
  private struct Variant {
    var language: String
    var references: Int
    var bytes: [UInt8]
  }

  private struct State {
    var entries: [String: [Variant]] = [:]
    var bytes = 0
  }

  private let state = Mutex(State())
  /// The most fragment bytes held.
  let maxBytes: Int

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
    let languageKey = language?.identifier ?? ""
    let ids = positions.map { index.facts[$0].id }
    var fragments: [[UInt8]?] = state.withLock { state in
      ids.map { id in
        state.entries[id]?.first {
          $0.language == languageKey && $0.references == references.rawValue
        }?.bytes
      }
    }
    var fresh: [(id: String, bytes: [UInt8])] = []
    for slot in fragments.indices where fragments[slot] == nil {
      var writer = JSONWriter(capacity: 1024)
      V7IncidentWire.writeResult(
        localize(index.incidents[positions[slot]]), references: references, to: &writer)
      fragments[slot] = writer.bytes
      fresh.append((ids[slot], writer.bytes))
    }
    if !fresh.isEmpty { store(fresh, language: languageKey, references: references.rawValue) }
    let size = fragments.reduce(64) { $0 + ($1?.count ?? 0) + 1 }
    return V7Envelope.write(fragments, sourceUpdated: sourceUpdated, capacity: size) {
      fragment, writer in
      writer.append(fragment ?? [])
    }
  }

  private func store(_ fresh: [(id: String, bytes: [UInt8])], language: String, references: Int) {
    state.withLock { state in
      for (id, bytes) in fresh {
        if state.bytes + bytes.count > maxBytes {
          state.entries.removeAll(keepingCapacity: true)
          state.bytes = 0
        }
        var variants = state.entries[id] ?? []
        guard !variants.contains(where: { $0.language == language && $0.references == references })
        else { continue }  // another thread encoded it meanwhile
        variants.append(Variant(language: language, references: references, bytes: bytes))
        state.entries[id] = variants
        state.bytes += bytes.count
      }
    }
  }

  /// Forgets the fragments of these version ids (they were written again).
  func invalidate(_ ids: some Sequence<String>) {
    state.withLock { state in
      for id in ids {
        if let removed = state.entries.removeValue(forKey: id) {
          state.bytes -= removed.reduce(0) { $0 + $1.bytes.count }
        }
      }
    }
  }
}
