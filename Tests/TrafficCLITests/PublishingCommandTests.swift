import Codec
import Foundation
import Testing
import Traffic
import TrafficFeeds
import TrafficSQLite
import TrafficTestSupport

@testable import traffic

/// `traffic export datex2|wzdx`: import → publish → import elsewhere gives the same
/// incidents, and the documents validate against the official schemas.
@Suite struct PublishingCommandTests {
  static func incidents(in database: String) throws -> [TrafficIncident] {
    try SQLiteTrafficStore(path: database).currentIncidents().sorted {
      $0.originalId < $1.originalId
    }
  }

  @Test func importPublishImportElsewhereGivesTheSameIncidents() async throws {
    let folder = try SourceIdentityTests.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: folder) }
    let feed = folder.appendingPathComponent("feed.geojson")
    try SourceIdentityTests.document(
      publisher: "Berlin Roads", impact: "all-lanes-closed", updated: "2026-03-01T08:00:00Z",
      alsoOpen: ["wz-2", "wz-3"]
    ).write(to: feed)
    let source = folder.appendingPathComponent("source.sqlite").path
    #expect(await runTraffic(["import", "--db", source, feed.path]).status == .success)
    let original = try Self.incidents(in: source)
    #expect(original.map(\.originalId) == ["wz-1", "wz-2", "wz-3"])

    var documents: [String: Data] = [:]
    for format in ["datex2", "wzdx"] {
      let output = folder.appendingPathComponent("published.\(format)").path
      let exported = await runTraffic([
        "export", format, "--db", source, "--publisher", "Berlin Hub", "--country", "de",
        "-o", output,
      ])
      #expect(exported.status == .success, "\(exported.errors)")
      #expect(exported.output.contains("3 "), "\(exported.output)")
      documents[format] = try Data(contentsOf: URL(fileURLWithPath: output))

      let elsewhere = folder.appendingPathComponent("elsewhere-\(format).sqlite").path
      let imported = await runTraffic(["import", "--db", elsewhere, output])
      #expect(imported.status == .success, "\(imported.errors)")
      let back = try Self.incidents(in: elsewhere)
      #expect(back.map(\.originalId) == original.map(\.originalId), "\(format)")
      for (read, incident) in zip(back, original) {
        #expect(read.id == incident.id, "\(format) \(incident.originalId)")
        #expect(read.type == incident.type, "\(format) \(incident.originalId)")
        #expect(read.startTime == incident.startTime)
        #expect(read.endTime == incident.endTime)
        #expect(read.isRoadClosed == incident.isRoadClosed)
        for (a, b) in zip(read.location.polyline.vertices, incident.location.polyline.vertices) {
          #expect(a.distance(to: b) < 1)
        }
      }
    }
    let datex = String(decoding: documents["datex2"] ?? Data(), as: UTF8.self)
    #expect(datex.contains("<com:nationalIdentifier>Berlin Hub</com:nationalIdentifier>"))
    #expect(datex.contains("<com:country>de</com:country>"))
    let wzdx = try JSONSerialization.jsonObject(with: documents["wzdx"] ?? Data()) as? [String: Any]
    #expect((wzdx?["feed_info"] as? [String: Any])?["publisher"] as? String == "Berlin Hub")

    let verdict = try PublishedDocumentValidator.validateDATEXII([documents["datex2"] ?? Data()])
    #expect(verdict.status == 0, "\(verdict.output)")
    let wzdxVerdict = try PublishedDocumentValidator.validateWZDx([documents["wzdx"] ?? Data()])
    #expect(wzdxVerdict.status == 0, "\(wzdxVerdict.output)")
  }

  @Test func atPublishesWhatHadNotEndedThen() async throws {
    let folder = try SourceIdentityTests.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: folder) }
    // A real DATEX II sample whose records all ended long ago.
    let sample = Fixtures.repositoryRoot.appendingPathComponent(
      "Tests/TrafficFeedsTests/Fixtures/datex2/v3_situation.xml")
    let database = folder.appendingPathComponent("past.sqlite").path
    #expect(await runTraffic(["import", "--db", database, sample.path]).status == .success)
    let stored = try Self.incidents(in: database)
    let ends = stored.compactMap(\.endTime)
    let starts = stored.compactMap(\.startTime)
    try #require(!ends.isEmpty && !starts.isEmpty)
    // Now: only what has no end or ends later; at the latest start: what was current then.
    let moment = try #require(starts.max())
    let expected = stored.filter { $0.endTime.map { $0 > moment } ?? true }
    try #require(!expected.isEmpty)
    let now = folder.appendingPathComponent("now.xml").path
    let exported = await runTraffic(["export", "datex2", "--db", database, "-o", now])
    let current = stored.filter { $0.endTime.map { $0 > Date() } ?? true }
    #expect(exported.output.contains(": \(current.count) situations"), "\(exported.output)")
    #expect(current.count < expected.count, "the sample has records that have ended since")
    let then = folder.appendingPathComponent("then.xml").path
    let atThen = await runTraffic([
      "export", "datex2", "--db", database, "--at", RFC3339.format(moment), "-o", then,
    ])
    #expect(atThen.status == .success, "\(atThen.errors)")
    #expect(atThen.output.contains(": \(expected.count) situations"), "\(atThen.output)")
    let back = try DATEXIIDecoder.decode(
      try Data(contentsOf: URL(fileURLWithPath: then)),
      options: FeedOptions(sourceName: "datex2"))
    #expect(Set(back.incidents.map(\.originalId)) == Set(expected.map(\.originalId)))
  }

  @Test func badPublishingArgumentsAreRefusedNamingThem() async throws {
    for (arguments, mention) in [
      (["export", "datex2", "--at", "someday", "-o", "/tmp/x.xml"], "--at"),
      (["export", "osrm", "--publisher", "X", "-o", "/tmp/x.csv"], "--publisher"),
      (["export", "wzdx", "--type", "volcano", "-o", "/tmp/x.json"], "volcano"),
      (["export", "datex2", "--country", "Germany", "-o", "/tmp/x.xml"], "--country"),
      (["export", "datex3", "-o", "/tmp/x.xml"], "datex3"),
    ] {
      let result = await runTraffic(arguments)
      #expect(result.status == .usage, "\(arguments)")
      #expect(result.errors.contains(mention), "\(arguments): \(result.errors)")
    }
  }
}
