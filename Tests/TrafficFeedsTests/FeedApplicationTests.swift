import Foundation
import Testing
import Traffic
import TrafficTestSupport

@testable import TrafficFeeds

/// A full refresh ends what the source no longer carries, and only that: a record that is
/// in the document but could not be read is still carried, whatever the format.
@Suite struct FeedApplicationTests {
  private static let now = Date(timeIntervalSince1970: 1_714_660_000)

  private static func engine() throws -> TrafficEngine {
    try TrafficEngine(store: InMemoryTrafficStore(), clock: { now })
  }

  /// A Waze window of alerts; those in `broken` lack their `location`.
  private static func waze(_ ids: [String], broken: Set<String> = []) -> Data {
    let alerts = ids.enumerated().map { index, id in
      let location =
        broken.contains(id) ? "" : #""location": {"x": 11.\#(index), "y": 47.5}, "#
      return #"{"type": "ACCIDENT", "uuid": "\#(id)", \#(location)"pubMillis": 1714658400000}"#
    }
    return Data(#"{"alerts": [\#(alerts.joined(separator: ", "))], "jams": []}"#.utf8)
  }

  @discardableResult
  private static func apply(
    _ data: Data, format: FeedFormat, to engine: TrafficEngine
  ) throws -> (FeedApplication, IngestReport) {
    var application = try FeedApplication(
      decoding: .data(data), format: format, options: FeedOptions(sourceName: "S", now: now),
      given: "S")
    let report = try application.apply(to: engine)
    return (application, report)
  }

  private static func hasEnded(_ id: String, in engine: TrafficEngine) async throws -> Bool {
    try await engine.lookupIncident(with: id).endTime != nil
  }

  @Test func aSkippedRecordIsStillCarried() async throws {
    let engine = try Self.engine()
    try Self.apply(Self.waze(["a", "b", "c"]), format: .waze, to: engine)
    // `b` is there but unreadable, `c` is gone.
    let (application, report) = try Self.apply(
      Self.waze(["a", "b"], broken: ["b"]), format: .waze, to: engine)
    #expect(application.unreadRecordIds == ["b"])
    #expect(!application.isRefreshWithheld)
    #expect(report.ended == 1)
    #expect(try await !Self.hasEnded("a", in: engine))
    #expect(try await !Self.hasEnded("b", in: engine))
    #expect(try await Self.hasEnded("c", in: engine))
  }

  @Test func aDocumentOfUnreadableRecordsEndsNothing() async throws {
    let engine = try Self.engine()
    try Self.apply(Self.waze(["a", "b"]), format: .waze, to: engine)
    // Records without any readable id: nothing says which incidents are still carried.
    let anonymous = Data(#"{"alerts": [{"type": "ACCIDENT"}, 3]}"#.utf8)
    let (application, report) = try Self.apply(anonymous, format: .waze, to: engine)
    #expect(application.isRefreshWithheld)
    #expect(!application.document.isFullRefresh)
    #expect(report.ended == 0)
    #expect(try await !Self.hasEnded("a", in: engine))
    #expect(try await !Self.hasEnded("b", in: engine))
    // An empty document is the source's whole picture still: it ends what it held.
    let (_, emptied) = try Self.apply(
      Data(#"{"alerts": [], "jams": []}"#.utf8), format: .waze, to: engine)
    #expect(emptied.ended == 2)
  }

  /// The same on DATEX II: every record of the fixture loses its location.
  @Test func skippedDATEXIIRecordsAreCarried() async throws {
    let original = try ownFixture("datex2", "v3_situation.xml")
    let text = try #require(String(data: original, encoding: .utf8))
    let broken = text.replacing(
      #/<sit:locationReference[^>]*/>|<sit:locationReference.*?</sit:locationReference>/#
        .dotMatchesNewlines(), with: "")
    let decoded = try DATEXIIDecoder.decode(original, options: FeedOptions(sourceName: "S"))
    let ids = Set(decoded.incidents.map(\.originalId))
    #expect(!ids.isEmpty)
    let engine = try Self.engine()
    try Self.apply(original, format: .datex2, to: engine)
    let (application, report) = try Self.apply(Data(broken.utf8), format: .datex2, to: engine)
    #expect(application.incidentCount == 0)
    #expect(ids.isSubset(of: application.unreadRecordIds))
    #expect(report.ended == 0)
  }

  /// Two records of one document with the same id: the last is kept, the earlier one is a
  /// skipped record naming the id (it was overwritten without a word).
  @Test func aRepeatedIdKeepsTheLastRecordAndSaysSo() async throws {
    let engine = try Self.engine()
    let alerts = [
      #"{"type": "ACCIDENT", "uuid": "a", "location": {"x": 13.4, "y": 52.5}, "pubMillis": 1714658400000}"#,
      #"{"type": "ACCIDENT", "uuid": "b", "location": {"x": 13.5, "y": 52.5}, "pubMillis": 1714658400000}"#,
      #"{"type": "HAZARD", "uuid": "a", "location": {"x": 11.6, "y": 48.1}, "pubMillis": 1714658400000}"#,
    ]
    let data = Data(#"{"alerts": [\#(alerts.joined(separator: ", "))], "jams": []}"#.utf8)
    let (application, report) = try Self.apply(data, format: .waze, to: engine)
    #expect(application.incidentCount == 2)
    #expect(application.document.problems.count == 1)
    let problem = try #require(application.document.problems.first)
    #expect(problem.recordId == "a")
    #expect(problem.description.contains(#"id "a" is given again by a later record"#))
    #expect(report.added == 2)
    let kept = try await engine.lookupIncident(with: "a")
    #expect(abs(kept.location.polyline.vertices[0].latitude - 48.1) < 1e-9)
    // A document without repeats is left as it was.
    let (plain, _) = try Self.apply(Self.waze(["x", "y"]), format: .waze, to: engine)
    #expect(plain.document.problems.isEmpty)
    #expect(plain.incidentCount == 2)
  }

  /// A record whose id holds a control character is skipped naming it (DATEX II cannot
  /// carry a NUL, so a published id changed); a source name with one is refused.
  @Test func idsAndSourceNamesWithControlCharactersAreRefused() throws {
    let engine = try Self.engine()
    let alerts = [
      #"{"type": "ACCIDENT", "uuid": "a\u0000b", "location": {"x": 13.4, "y": 52.5}, "pubMillis": 1714658400000}"#,
      #"{"type": "ACCIDENT", "uuid": "c\nd", "location": {"x": 13.4, "y": 52.5}, "pubMillis": 1714658400000}"#,
      #"{"type": "ACCIDENT", "uuid": "f\u0085g", "location": {"x": 13.4, "y": 52.5}, "pubMillis": 1714658400000}"#,
      #"{"type": "ACCIDENT", "uuid": "Straße-ä\u00a01", "location": {"x": 13.4, "y": 52.5}, "pubMillis": 1714658400000}"#,
      #"{"type": "ACCIDENT", "uuid": "e", "location": {"x": 13.4, "y": 52.5}, "pubMillis": 1714658400000}"#,
    ]
    let data = Data(#"{"alerts": [\#(alerts.joined(separator: ", "))], "jams": []}"#.utf8)
    let (application, report) = try Self.apply(data, format: .waze, to: engine)
    #expect(application.incidentCount == 2)
    #expect(report.added == 2)
    #expect(application.document.problems.map(\.recordId) == ["a\u{0}b", "c\nd", "f\u{85}g"])
    #expect(application.document.problems.allSatisfy { $0.reason.contains("control character") })
    for name in ["a\tb", "x\ny", "", String(repeating: "n", count: 101), "\u{85}"] {
      #expect(!FeedDocument.isValidSourceName(name), "\(name.debugDescription)")
    }
    for name in ["waze", "CDOT work zones", "Straßen.NRW", String(repeating: "n", count: 100)] {
      #expect(FeedDocument.isValidSourceName(name))
    }
  }

  /// A record of more points than an incident may have is skipped naming its count; one
  /// at the limit is taken.
  @Test func aRecordOfTooManyPointsIsSkipped() throws {
    func jam(_ id: String, points: Int) -> String {
      let line = (0..<points).map { #"{"x": \#(13.0 + Double($0) * 1e-5), "y": 52.5}"# }
      return
        #"{"uuid": "\#(id)", "line": [\#(line.joined(separator: ","))], "speedKMH": 5, "level": 4, "pubMillis": 1714658400000}"#
    }
    let limit = FeedDocument.maximumVerticesPerIncident
    let data = Data(
      #"{"alerts": [], "jams": [\#(jam("big", points: limit + 1)), \#(jam("fits", points: limit))]}"#
        .utf8)
    let engine = try Self.engine()
    let (application, _) = try Self.apply(data, format: .waze, to: engine)
    #expect(application.incidentCount == 1)
    let problem = try #require(application.document.problems.first)
    #expect(problem.recordId == "big")
    #expect(problem.reason.contains("has \(limit + 1) points; at most \(limit)"))
    // A refused record after a good one of the same id is refused for its points (it was
    // called a repeat of a later record), and the good one is kept.
    let twins = Data(
      #"{"alerts": [], "jams": [\#(jam("twin", points: 3)), \#(jam("twin", points: limit + 1))]}"#
        .utf8)
    let (again, _) = try Self.apply(twins, format: .waze, to: engine)
    #expect(again.incidentCount == 1)
    #expect(again.document.problems.map(\.reason).allSatisfy { $0.contains("points; at most") })
    #expect(again.document.problems.count == 1)
  }
}
