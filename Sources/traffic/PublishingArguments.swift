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
    if let name = try arguments.option("--publisher") {
      guard !name.isEmpty, name.count <= 100 else {
        throw UsageError("--publisher must have 1 to 100 characters")
      }
      result.publisher = name
    }
    if let code = try arguments.option("--country") {
      guard code.count == 2, code.allSatisfy({ $0.isASCII && $0.isLetter }) else {
        throw UsageError("--country '\(code)' must be an ISO 3166-1 alpha-2 code such as DE")
      }
      result.country = code.uppercased()
    }
    result.language = try IncidentOptions.language(from: &arguments)
    return result
  }

  /// Writes the DATEX II or WZDx document of the store's incidents that have not ended.
  func export(
    format: String, area: (any GeoArea)?, databasePath: String, output: String,
    console: Console
  ) throws {
    let engine: TrafficEngine
    do { engine = try TrafficEngine(databasePath: databasePath) } catch {
      throw UsageError("\(databasePath): \(error)")
    }
    let published = engine.publishedIncidents(inside: area, types: types)
    let publication = Publication(
      published, now: Date(), publisher: publisher ?? Publication.defaultPublisher,
      countryCode: country, language: language)
    let document: Data
    let count: Int
    if format == "datex2" {
      document = DATEXIIPublisher.document(publication)
      count = publication.incidents.count
    } else {
      document = WZDxPublisher.document(publication)
      count = publication.incidents.filter(WZDxPublisher.includes).count
    }
    do { try document.write(to: URL(fileURLWithPath: output), options: .atomic) } catch {
      throw UsageError("\(output): cannot write: \(error.localizedDescription)")
    }
    let what = format == "datex2" ? "situations (DATEX II v3)" : "road events (WZDx 4.2)"
    console.print("\(output): \(count) \(what)")
  }
}
