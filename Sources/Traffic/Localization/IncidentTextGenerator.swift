import Codec
import Foundation
import Roads

/// Words an incident's `description` and `summary` in a language, from its structured
/// details, and picks the language when none is asked for.
///
/// A description names the place, then what happens there, in this order: area, road
/// (number and name), direction, the junctions it lies between (or at); the consequence
/// (road closed, lanes closed or the carriageway reduced), the risk of queues, the incident
/// itself, the source's cause when written in that language, queue length, delay, and the
/// expected end — as in HERE's German example "Berlin, Sachsendamm zwischen Gotenstraße und
/// Priesterweg Fahrbahn auf einen Fahrstreifen verengt, Staugefahr, Bauarbeiten, bis
/// voraussichtlich 20.02.2028". The summary is the same without the place. Dates are written
/// as the language writes them, in the incident's time zone (UTC when unknown).
///
/// The words live in one resource file per language (`Resources/Localization/<tag>.json`),
/// loaded once. Bundled: English (`en` as written in the US, `en-GB`), German, French,
/// Spanish, Italian, Dutch and Polish.
///
/// **Choosing the language.** For a requested language `L`:
/// 1. a source text in `L` (same tag, else same language) is the description, unchanged;
///    the summary is worded in `L` when `L` is bundled, else it is that source text too;
/// 2. else, when `L` is bundled, both are worded in `L`;
/// 3. else (no language asked, or one neither bundled nor in a source text), the same two
///    steps are tried with the language of the incident's country, then with the language
///    of each source text; failing all, the first source text is used, and without one the
///    text is worded in US English.
public struct IncidentTextGenerator: Sendable {
  /// The texts chosen or worded for one incident.
  public struct Texts: Hashable, Sendable {
    /// The full description, place included.
    public var description: LocalizedText
    /// The short description, without the place.
    public var summary: LocalizedText
    /// The place alone ("Berlin, Sachsendamm zwischen Gotenstraße und Priesterweg"), when
    /// worded and known.
    public var location: LocalizedText?
  }

  /// The generator reading the module's bundled language files.
  public static let shared = IncidentTextGenerator(catalogs: .bundled)

  let catalogs: TextCatalogs

  init(catalogs: TextCatalogs) {
    self.catalogs = catalogs
  }

  /// The languages texts can be worded in, one per bundled file, sorted by tag
  /// (`de`, `en`, `en-GB`, `es`, `fr`, `it`, `nl`, `pl`).
  public var supportedLanguages: [LanguageCode] {
    catalogs.byTag.values.map(\.language).sorted { $0.identifier < $1.identifier }
  }

  /// Whether texts can be worded in `language` (its exact tag, its language and region, or
  /// its language alone is bundled).
  ///
  /// - Parameter language: The language asked for.
  /// - Returns: `true` when a bundled file speaks it.
  public func supports(_ language: LanguageCode) -> Bool {
    catalogs.catalog(for: language) != nil
  }

  /// The description and summary of `incident` in `language`, chosen as the type's
  /// documentation describes.
  ///
  /// - Parameters:
  ///   - incident: The incident.
  ///   - language: The language asked for; `nil` for the incident's country's.
  /// - Returns: The texts, each tagged with the language it is in.
  /// - Complexity: O(s) in the number of source texts, plus wording a few dozen characters.
  public func texts(for incident: TrafficIncident, in language: LanguageCode?) -> Texts {
    if let language, let texts = attempt(incident, in: language) { return texts }
    var fallbacks: [LanguageCode] = []
    if let country = incident.details.countryCode,
      let countryLanguage = CountryLanguages.language(forCountryCode: country)
    {
      fallbacks.append(countryLanguage)
    }
    for source in incident.sourceTexts where !fallbacks.contains(source.language) {
      fallbacks.append(source.language)
    }
    for candidate in fallbacks {
      if let texts = attempt(incident, in: candidate) { return texts }
    }
    if let source = incident.sourceTexts.first {
      return Texts(description: source, summary: source, location: nil)
    }
    if let texts = worded(incident, in: .enUS) { return texts }
    // Only reachable when the resources are missing: say at least what kind of incident it is.
    let plain = LocalizedText(text: incident.type.rawValue, language: .enUS)
    return Texts(description: plain, summary: plain, location: nil)
  }

  /// A copy of `incident` whose `description` and `summary` are in `language` (see the
  /// type's documentation), and whose `location.description` names the place in that
  /// language when it can be worded.
  ///
  /// - Parameters:
  ///   - incident: The incident.
  ///   - language: The language asked for; `nil` for the incident's country's.
  /// - Returns: The localised incident; every other field unchanged.
  public func localized(
    _ incident: TrafficIncident, to language: LanguageCode?
  )
    -> TrafficIncident
  {
    let texts = texts(for: incident, in: language)
    var copy = incident
    copy.description = texts.description
    copy.summary = texts.summary
    if let location = texts.location { copy.location.description = location.text }
    return copy
  }

  /// Step 1 and 2 of the language choice for one language, or `nil` when neither applies.
  private func attempt(_ incident: TrafficIncident, in language: LanguageCode) -> Texts? {
    let sources = incident.sourceTexts
    let source =
      sources.first { $0.language == language }
      ?? sources.first { $0.language.hasSameLanguage(as: language) }
    let generated = worded(incident, in: language)
    if let source {
      return Texts(
        description: source, summary: generated?.summary ?? source,
        location: generated?.location)
    }
    return generated
  }

  /// The texts worded from the incident's fields in `language`, or `nil` when no bundled
  /// file speaks it.
  func worded(_ incident: TrafficIncident, in language: LanguageCode) -> Texts? {
    guard let catalog = catalogs.catalog(for: language) else { return nil }
    let wording = Wording(catalog: catalog, incident: incident)
    let location = wording.location()
    let details = wording.consequencesAndEvent()
    let description: String
    if let location, !details.isEmpty {
      description = wording.fill("description", ["location": location, "details": details])
    } else {
      description = Wording.capitalizingFirstLetter(location ?? details)
    }
    return Texts(
      description: LocalizedText(text: description, language: language),
      summary: LocalizedText(
        text: Wording.capitalizingFirstLetter(details.isEmpty ? description : details),
        language: language),
      location: location.map { LocalizedText(text: $0, language: language) })
  }
}

/// Builds the phrases of one incident from one language's templates.
private struct Wording {
  let catalog: TextCatalog
  let incident: TrafficIncident
  var details: TrafficIncidentDetails { incident.details }

  /// The place: area, road, direction, junctions; `nil` when nothing is known.
  func location() -> String? {
    var road: String?
    switch (details.roadNumber, details.roadName) {
    case (let number?, let name?):
      road = fill("road.numberAndName", ["number": number, "name": name])
    case (let number?, nil): road = number
    case (nil, let name?): road = name
    case (nil, nil): road = nil
    }
    if let towards = details.towards {
      road = fill("road.towards", ["road": road ?? "", "towards": towards])
    }
    var place = road
    switch (details.fromJunction, details.toJunction, details.atJunction) {
    case (let from?, let to?, _):
      place = fill("place.between", ["road": road ?? "", "from": from, "to": to])
    case (_, _, let at?):
      place = fill("place.at", ["road": road ?? "", "at": at])
    case (let from?, nil, nil):
      place = fill("place.from", ["road": road ?? "", "from": from])
    case (nil, let to?, nil):
      place = fill("place.to", ["road": road ?? "", "to": to])
    case (nil, nil, nil):
      break
    }
    switch (details.area, place) {
    case (let area?, let place?): return fill("location.inArea", ["area": area, "place": place])
    case (let area?, nil): return area
    case (nil, let place): return place
    }
  }

  /// What happens: consequence, queue risk, incident, cause, queue, delay, expected end.
  func consequencesAndEvent() -> String {
    var parts: [String] = []
    if let consequence = consequence() { parts.append(consequence) }
    if details.queueRisk { parts.append(fill("queueRisk", [:])) }
    let eventKey = details.eventKind.map { "event.\($0.rawValue)" }
    let event = eventKey.flatMap(catalog.text) ?? catalog.text("type.\(incident.type.rawValue)")
    if let event { parts.append(fill(template: event, [:])) }
    if let cause = details.cause, cause.language.hasSameLanguage(as: catalog.language),
      !cause.text.isEmpty
    {
      parts.append(cause.text)
    }
    if let queue = details.queueLengthInMeters {
      parts.append(fill("queueLength", ["length": formatLength(queue)]))
    }
    if let delay = details.delayInSeconds, delay > 0 {
      let minutes = max(1, Int((min(delay, 1e9) / 60).rounded(.up)))
      parts.append(fill("delay", ["minutes": String(minutes)]))
    }
    if let end = incident.endTime {
      parts.append(fill("until", ["date": formatDate(end)]))
    }
    return parts.filter { !$0.isEmpty }.joined(separator: catalog.text("list.separator") ?? ", ")
  }

  private func consequence() -> String? {
    if incident.isRoadClosed { return fill("consequence.roadClosed", [:]) }
    guard let closed = details.lanesClosed, closed > 0 else { return nil }
    if let total = details.totalLanes {
      let open = total - closed
      if open <= 0 { return fill("consequence.roadClosed", [:]) }
      if open == 1 { return fill("consequence.reducedToOneLane", [:]) }
      return fill("consequence.reducedToLanes", ["count": String(open)])
    }
    if closed == 1 { return fill("consequence.oneLaneClosed", [:]) }
    return fill("consequence.lanesClosed", ["count": String(closed)])
  }

  /// `850 m`, `2 km`, `1,5 km` (with the language's decimal separator).
  private func formatLength(_ meters: Double) -> String {
    let meters = min(meters, 1e9)
    if meters < 1_000 { return "\(Int(meters.rounded())) m" }
    let tenths = Int((meters / 100).rounded())
    if tenths % 10 == 0 { return "\(tenths / 10) km" }
    return "\(tenths / 10)\(catalog.decimalSeparator)\(tenths % 10) km"
  }

  /// The date in the language's pattern (`dd`, `MM`, `yyyy`), in the incident's time zone:
  /// the one its source gave, else the local zone of where it begins (`PlaceTimeZone`), so
  /// that a feed's UTC end at 23:30 on the 30th in Germany reads "31.12.".
  ///
  /// Computed arithmetically (Hinnant's civil-from-days) rather than with `Calendar`, which
  /// costs microseconds per call on Linux and sat on the query path.
  private func formatDate(_ date: Date) -> String {
    let zone =
      details.timeZone ?? incident.location.polyline.vertices.first.flatMap(PlaceTimeZone.at)
    let offset = zone?.secondsFromGMT(for: date) ?? 0
    let seconds = (date.timeIntervalSince1970 + Double(offset)).rounded(.down)
    guard seconds.isFinite, abs(seconds) < 1e13 else { return "" }
    let (year, month, day) = RFC3339.civil(fromDays: Int((seconds / 86_400).rounded(.down)))
    // Byte-wise over the pattern (its letters are ASCII; other bytes pass through), each
    // field written as zero-padded digits: this runs once per incident a query words.
    var result: [UInt8] = []
    result.reserveCapacity(16)
    func put(_ value: Int, width: Int) {
      var digits: [UInt8] = []
      var rest = abs(value)
      repeat {
        digits.append(UInt8(ascii: "0") &+ UInt8(rest % 10))
        rest /= 10
      } while rest > 0
      if value < 0 { result.append(UInt8(ascii: "-")) }
      for _ in digits.count..<max(width, digits.count) { result.append(UInt8(ascii: "0")) }
      result.append(contentsOf: digits.reversed())
    }
    var pattern = catalog.datePattern
    pattern.withUTF8 { bytes in
      func matches(_ letter: UInt8, _ count: Int, at index: Int) -> Bool {
        index + count <= bytes.count && bytes[index..<(index + count)].allSatisfy { $0 == letter }
      }
      var index = 0
      while index < bytes.count {
        if matches(UInt8(ascii: "y"), 4, at: index) {
          put(year, width: 4)
          index += 4
        } else if matches(UInt8(ascii: "M"), 2, at: index) {
          put(month, width: 2)
          index += 2
        } else if matches(UInt8(ascii: "d"), 2, at: index) {
          put(day, width: 2)
          index += 2
        } else {
          result.append(bytes[index])
          index += 1
        }
      }
    }
    return String(decoding: result, as: UTF8.self)
  }

  /// The template `key` with its placeholders replaced; empty when the file lacks the key.
  func fill(_ key: String, _ values: KeyValuePairs<String, String>) -> String {
    fill(template: catalog.text(key) ?? "", values)
  }

  /// Replaces `{name}` placeholders in one pass (values are never rescanned, so a road
  /// named "{area}" stays as it is), then drops the spaces an empty value leaves.
  ///
  /// Byte-wise: braces and spaces are ASCII, so UTF-8 text passes through unchanged.
  /// The values are pairs, not a dictionary: a template has a few placeholders, and a
  /// dictionary built per phrase was a tenth of the wording.
  func fill(template: String, _ values: KeyValuePairs<String, String>) -> String {
    var result: [UInt8] = []
    result.reserveCapacity(template.utf8.count + 64)
    var template = template
    template.withUTF8 { bytes in
      var index = 0
      while index < bytes.count {
        let byte = bytes[index]
        guard byte == UInt8(ascii: "{"),
          let close = bytes[(index + 1)...].firstIndex(of: UInt8(ascii: "}"))
        else {
          result.append(byte)
          index += 1
          continue
        }
        let name = bytes[(index + 1)..<close]
        if let value = values.first(where: { $0.key.utf8.elementsEqual(name) })?.value {
          result.append(contentsOf: value.utf8)
        }
        index = close + 1
      }
    }
    return Self.collapsingSpaces(result)
  }

  /// `text` with runs of spaces made one and the ends trimmed of spaces, as
  /// `split(separator: " ").joined(separator: " ")` gives (which compares `Character`s: a
  /// space carrying a combining mark is not a space there, so such text goes that way).
  static func collapsingSpaces(_ bytes: [UInt8]) -> String {
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count)
    var pendingSpace = false
    for (index, byte) in bytes.enumerated() {
      if byte == UInt8(ascii: " ") {
        if index + 1 < bytes.count, bytes[index + 1] >= 0x80 {
          let text = String(decoding: bytes, as: UTF8.self)
          return text.split(separator: " ", omittingEmptySubsequences: true).joined(
            separator: " ")
        }
        pendingSpace = !out.isEmpty
      } else {
        if pendingSpace { out.append(UInt8(ascii: " ")) }
        pendingSpace = false
        out.append(byte)
      }
    }
    return String(decoding: out, as: UTF8.self)
  }

  static func capitalizingFirstLetter(_ text: String) -> String {
    guard let first = text.first else { return text }
    return first.uppercased() + text.dropFirst()
  }
}
