import Foundation
import Traffic

/// What a published feed document carries: the merged incidents of one selection, and who
/// publishes them when.
///
/// A publication is either whole (every incident of the selection that has not ended) or a
/// delta (every incident that changed since a time, ended ones included, so that a
/// subscriber learns of the end).
public struct Publication: Sendable {
  /// The incidents, in the order they are written (read one at a time as they are).
  public var incidents: IncidentSelection
  /// When the data last changed: the document's publication time, so that the same data
  /// gives the same bytes (and the same ETag).
  public var publicationTime: Date
  /// The publishing organisation (WZDx `feed_info.publisher`, DATEX II
  /// `publicationCreator/nationalIdentifier`).
  public var publisher: String
  /// The publisher's country (ISO 3166-1 alpha-2), for DATEX II's `publicationCreator`.
  public var countryCode: String
  /// The language of the document's texts.
  public var language: LanguageCode
  /// Whether this is a delta: only what changed since a time.
  public var isDelta: Bool

  /// Creates a publication.
  ///
  /// - Parameters:
  ///   - incidents: The incidents to write.
  ///   - publicationTime: When the data last changed.
  ///   - publisher: The publishing organisation.
  ///   - countryCode: Its country.
  ///   - language: The texts' language.
  ///   - isDelta: Whether the incidents are the changes since a time.
  public init(
    incidents: [TrafficIncident], publicationTime: Date,
    publisher: String = Publication.defaultPublisher, countryCode: String = "XX",
    language: LanguageCode = .enUS, isDelta: Bool = false
  ) {
    self.incidents = IncidentSelection(incidents)
    self.publicationTime = publicationTime
    self.publisher = publisher
    self.countryCode = countryCode
    self.language = language
    self.isDelta = isDelta
  }

  /// The publication of an engine's selection (`TrafficEngine.publishedIncidents`), its
  /// incidents by original id (read from the snapshot as they are written, not copied):
  /// its time is when the data last changed; the country, when not given, is the one most
  /// of the incidents name when every incident names one (else `XX`: a DATEX II reader
  /// takes the creator's country for a record that names none, so an incident without a
  /// country would come back with another's), the language the one most source texts are
  /// in (else English).
  public init(
    _ published: PublishedIncidents, publisher: String = Publication.defaultPublisher,
    countryCode: String? = nil, language: LanguageCode? = nil
  ) {
    let incidents = published.incidents.localized(to: language).sortedByOriginalId()
    self.init(
      incidents: [], publicationTime: published.lastModified,
      publisher: publisher,
      countryCode: countryCode ?? Self.commonCountry(of: published.incidents) ?? "XX",
      language: language ?? Self.commonLanguage(of: published.incidents),
      isDelta: published.isDelta)
    self.incidents = incidents
  }

  /// The country most incidents name; `nil` when one of them names none.
  static func commonCountry(of incidents: IncidentSelection) -> String? {
    var counts: [String: Int] = [:]
    for incident in incidents {
      guard let country = incident.details.countryCode else { return nil }
      counts[country, default: 0] += 1
    }
    return counts.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key
  }

  /// The language most incidents' source texts are in, else English.
  static func commonLanguage(of incidents: IncidentSelection) -> LanguageCode {
    var counts: [LanguageCode: Int] = [:]
    for incident in incidents {
      if let language = incident.sourceTexts.first?.language { counts[language, default: 0] += 1 }
    }
    return counts.max { ($0.value, $1.key.identifier) < ($1.value, $0.key.identifier) }?.key
      ?? .enUS
  }

  /// The publisher named when the operator names none.
  public static let defaultPublisher = "swift-traffic"

  /// The start a format that requires one is given: the incident's, else its entry time,
  /// else the publication time — never after its end.
  static func startTime(of incident: TrafficIncident, publication: Publication) -> Date {
    if let start = incident.startTime { return start }
    let estimate = incident.entryTime ?? publication.publicationTime
    return incident.endTime.map { min($0, estimate) } ?? estimate
  }

  /// The time of the version an incident's id names, when the id is `<originalId>_<Unix
  /// seconds>` (the form a WZDx import gives each update), so that a published update time
  /// reads back into the same id. Numbers before 2001-09-09 (10⁹ s) are version counters
  /// (DATEX II's `<id>_<version>`), not times.
  static func versionTime(of incident: TrafficIncident) -> Date? {
    guard let seconds = versionNumber(of: incident), seconds >= 1_000_000_000,
      seconds < 32_503_680_000
    else { return nil }
    return Date(timeIntervalSince1970: TimeInterval(seconds))
  }

  /// The version a published record names (DATEX II `version`): what follows
  /// `<originalId>_` in the id, else the id itself (the engine's `<originalId>~<stamp>`, or
  /// the original id when the source gives no versions); never empty.
  static func versionName(of incident: TrafficIncident) -> String {
    let prefix = incident.originalId + "_"
    if incident.id.count > prefix.count, incident.id.hasPrefix(prefix) {
      return String(incident.id.dropFirst(prefix.count))
    }
    return incident.id
  }

  /// The version number an incident's id names when it is `<originalId>_<number>`.
  static func versionNumber(of incident: TrafficIncident) -> Int? {
    incident.sourceVersionNumber
  }
}
