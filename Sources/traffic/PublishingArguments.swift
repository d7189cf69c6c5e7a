import Foundation
import Geo
import Traffic
import TrafficFeeds
import TrafficSQLite

/// The options of `traffic export datex2|wzdx`: which incidents, who publishes them.
struct PublishingArguments {
  var types: Set<TrafficIncidentType>?
  var publisher: String?
  var country: String?
  var language: LanguageCode?

  /// Whether any publishing option was given.
  var isGiven: Bool { types != nil || publisher != nil || country != nil || language != nil }

  static func take(from arguments: inout ArgumentList) throws(UsageError) -> PublishingArguments {
    var result = PublishingArguments()
    if let text = try arguments.option("--type") {
      result.types = Set(
        try IncidentOptions.list(text, option: "--type") { name throws(UsageError) in
          guard let type = TrafficIncidentType(wireName: name) else {
            throw UsageError(
              "--type: unknown incident type '\(name)'; use "
                + TrafficIncidentType.allCases.compactMap(\.wireName).joined(separator: ", "))
          }
          return type
        })
    }
    result.publisher = try publisher(from: &arguments, option: "--publisher")
    result.country = try country(from: &arguments, option: "--country")
    result.language = try IncidentOptions.language(from: &arguments)
    return result
  }

  /// The publishing organisation named by `option`: 1 to 100 characters.
  static func publisher(
    from arguments: inout ArgumentList, option: String
  ) throws(UsageError) -> String? {
    guard let name = try arguments.option(option) else { return nil }
    guard !name.isEmpty, name.count <= 100 else {
      throw UsageError("\(option) must have 1 to 100 characters")
    }
    return name
  }

  /// The country named by `option`: an ISO 3166-1 alpha-2 code, in capitals.
  static func country(
    from arguments: inout ArgumentList, option: String
  ) throws(UsageError) -> String? {
    guard let code = try arguments.option(option) else { return nil }
    guard code.count == 2, code.allSatisfy({ $0.isASCII && $0.isLetter }) else {
      throw UsageError("\(option) '\(code)' must be an ISO 3166-1 alpha-2 code such as DE")
    }
    return code.uppercased()
  }

  /// Writes the DATEX II or WZDx document of the store's incidents that have not ended
  /// (now, or at `time`).
  func export(
    format: String, area: (any GeoArea)?, at time: Date?, databasePath: String,
    output: String, console: Console
  ) throws {
    let engine = try EngineArguments.sqliteEngine(at: databasePath, for: .reading)
    var published = engine.publishedIncidents(inside: area, types: types, at: time)
    if format != "datex2" { published = WZDxPublisher.dated(published, at: time ?? engine.now) }
    let publication = Publication(
      published, publisher: publisher ?? Publication.defaultPublisher,
      countryCode: country, language: language)
    // Written as it is produced: a region's document is never held whole.
    let document: DocumentStream
    let count: Int
    if format == "datex2" {
      document = DATEXIIPublisher.stream(publication)
      count = publication.incidents.count
    } else {
      document = WZDxPublisher.stream(publication)
      count = publication.incidents.filtered(WZDxPublisher.includes).count
    }
    try FileArguments.write(pieces: { document.next() }, to: output, console: console)
    let what = format == "datex2" ? "situations (DATEX II v3)" : "road events (WZDx 4.2)"
    FileArguments.summary("\(output): \(count) \(what)", output: output, console: console)
  }
}
