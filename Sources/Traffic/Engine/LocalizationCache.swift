import Synchronization

/// Localised copies of incidents, by incident version id and language, so that repeated
/// queries do not word the same texts again (wording costs tens of microseconds an incident;
/// a cache hit costs a dictionary look-up).
///
/// Entries of a version are dropped when that version is written again; the whole cache is
/// cleared when it grows beyond `capacity` entries, which bounds its memory.
final class LocalizationCache: Sendable {
  private let entries = Mutex([String: [String: TrafficIncident]]())
  let capacity: Int

  init(capacity: Int = 200_000) {
    self.capacity = capacity
  }

  /// The incident in `language`, from the cache or worded now.
  func localized(_ incident: TrafficIncident, to language: LanguageCode?) -> TrafficIncident {
    let languageKey = language?.identifier ?? ""
    if let hit = entries.withLock({ $0[incident.id]?[languageKey] }) { return hit }
    let worded = incident.localized(to: language)
    entries.withLock { entries in
      if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
      entries[incident.id, default: [:]][languageKey] = worded
    }
    return worded
  }

  /// Forgets the texts of these version ids (they were written again).
  func invalidate(_ ids: some Sequence<String>) {
    entries.withLock { entries in
      for id in ids { entries[id] = nil }
    }
  }
}
