import Foundation
import Synchronization
import Testing
import TrafficTestSupport

@testable import traffic

/// Runs the command line in-process and captures what it prints.
func runTraffic(
  _ arguments: [String]
) async -> (status: CommandStatus, output: String, errors: String) {
  let output = Mutex(""), errors = Mutex("")
  let console = Console(
    write: { text in output.withLock { $0 += text } },
    writeError: { text in errors.withLock { $0 += text } })
  let status = await CommandLineTool.run(arguments, console: console)
  return (status, output.withLock { $0 }, errors.withLock { $0 })
}

@Suite struct WithinCommandTests {
  let samplePath = Fixtures.repositoryRoot.appendingPathComponent(
    "Samples/berlin-incidents.geojson"
  ).path

  @Test func makeRunQueryListsTheNearbySamplesNearestFirst() async throws {
    let result = await runTraffic([
      "within", "--circle", "52.4833,13.3600,2000", "--sort-from", "52.4833,13.3600", samplePath,
    ])
    #expect(result.status == .success)
    // Worked by hand: Sachsendamm passes ~80 m away, Hauptstraße ~0.9 km, the A100 point
    // ~1.3 km; Tempelhofer Damm is ~2.2 km away and the A10 ~30 km.
    let ids = result.output.split(separator: "\n").dropFirst().map {
      String($0.dropFirst(2).prefix { $0 != " " && $0 != ":" })
    }
    #expect(ids == ["sample-1", "sample-5", "sample-2"])
    #expect(result.output.hasPrefix("3 of 5 features"))
  }

  @Test func aCircleBetweenTheVerticesOfALongSegmentFindsIt() async throws {
    // The A10 sample's vertices are ~5 km apart; a 300 m circle on its middle segment holds
    // no vertex, yet the road passes through it.
    let result = await runTraffic(["within", "--circle", "52.3542,12.9606,300", samplePath])
    #expect(result.status == .success)
    #expect(result.output.contains("sample-4"))
    #expect(result.output.hasPrefix("1 of 5"))
  }

  @Test func jsonOutputIsAFeatureCollection() async throws {
    let result = await runTraffic([
      "within", "--box", "13.34,52.47,13.39,52.49", "--json", samplePath,
    ])
    #expect(result.status == .success)
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
    #expect(object["type"] as? String == "FeatureCollection")
    #expect((object["features"] as? [Any])?.count == 4)
  }

  @Test(arguments: [
    (["within", sample(), "--circle", "52.5,13.4"], "--circle expects 3"),
    (["within", sample(), "--circle", "95,13.4,100"], "latitude 95.0 is outside"),
    (["within", sample(), "--circle", "52.5,13.4,-1"], "radius -1.0"),
    (["within", sample(), "--box", "13,53,14,52"], "south edge 53.0"),
    (["within", sample()], "an area is required"),
    (["within", "--circle", "52.5,13.4,100", "--box", "13,52,14,53", sample()], "only one"),
    (["within", "--circle", "52.5,13.4,100", "--bogus", sample()], "unknown option --bogus"),
    (
      ["within", "--circle", "52.5,13.4,100", "/nonexistent.geojson"],
      "/nonexistent.geojson: no such file"
    ),
    (["within", "--corridor", "not-a-polyline!,30", sample()], "invalid area"),
    (["nonsense"], "unknown command"),
  ])
  func badInputExitsWith64AndSaysWhy(arguments: [String], message: String) async {
    let result = await runTraffic(arguments)
    #expect(result.status == .usage)
    #expect(result.errors.contains(message), "stderr was: \(result.errors)")
  }

  @Test func malformedGeoJSONIsRejectedWithThePlace() async throws {
    let file = FileManager.default.temporaryDirectory
      .appendingPathComponent("bad-\(UUID().uuidString).geojson")
    try Data(
      #"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[13.4,99]}}]}"#
        .utf8
    ).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    let result = await runTraffic(["within", "--circle", "52.5,13.4,100", file.path])
    #expect(result.status == .usage)
    #expect(result.errors.contains("features[0]"))
    #expect(result.errors.contains("latitude 99"))
  }

  @Test func jsonOutputKeepsGeometryAndPropertiesAsWritten() async throws {
    let file = FileManager.default.temporaryDirectory
      .appendingPathComponent("props-\(UUID().uuidString).geojson")
    try Data(
      (#"{"type":"Feature","properties":{"id":"a/1","lanes":[2,1.50],"note":{"é":null}},"#
        + #""geometry":{"type":"LineString","coordinates":[[13.4,52.5],[13.41,52.5]]}}"#).utf8
    ).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    let result = await runTraffic(["within", "--circle", "52.5,13.4,100", "--json", file.path])
    #expect(result.status == .success, "\(result.errors)")
    #expect(
      result.output
        == #"{"features":[{"geometry":{"coordinates":[[13.4,52.5],[13.41,52.5]],"#
        + #""type":"LineString"},"properties":{"id":"a/1","lanes":[2,1.50],"note":{"é":null}},"#
        + #""type":"Feature"}],"type":"FeatureCollection"}"# + "\n")
  }

  /// A temporary file of a FeatureCollection of `features` (JSON texts); the caller removes it.
  static func collection(_ features: [String]) throws -> URL {
    let file = FileManager.default.temporaryDirectory
      .appendingPathComponent("features-\(UUID().uuidString).geojson")
    try Data(
      #"{"type":"FeatureCollection","features":[\#(features.joined(separator: ","))]}"#.utf8
    ).write(to: file)
    return file
  }

  /// A polygon that holds the whole area meets it, though no ring crosses it; a hole that
  /// holds the whole area does not. Only rings crossing the area were found before.
  @Test func aPolygonAroundTheAreaMeetsItAndItsHoleDoesNot() async throws {
    let square = "[[9.5,47.1],[9.6,47.1],[9.6,47.2],[9.5,47.2],[9.5,47.1]]"
    let hole = "[[9.54,47.14],[9.56,47.14],[9.56,47.16],[9.54,47.16],[9.54,47.14]]"
    func feature(_ id: String, _ geometry: String) -> String {
      #"{"type":"Feature","id":"\#(id)","properties":{},"geometry":\#(geometry)}"#
    }
    let features = [
      feature("square", #"{"type":"Polygon","coordinates":[\#(square)]}"#),
      feature("multi", #"{"type":"MultiPolygon","coordinates":[[\#(square)]]}"#),
      feature("holed", #"{"type":"Polygon","coordinates":[\#(square),\#(hole)]}"#),
      feature("far", #"{"type":"Point","coordinates":[10,48]}"#),
    ]
    let file = try Self.collection(features)
    defer { try? FileManager.default.removeItem(at: file) }
    for area in [
      ["--circle", "47.12,9.52,100"], ["--box", "9.51,47.11,9.53,47.13"],
      ["--corridor-coords", "47.11,9.52;47.13,9.52,50"],
    ] {
      let outside = await runTraffic(["within"] + area + [file.path])
      #expect(outside.status == .success, "\(outside.errors)")
      #expect(outside.output.hasPrefix("3 of 4 features"), "\(area): \(outside.output)")
    }
    // Inside the hole: only the polygons without one.
    let inHole = await runTraffic(["within", "--circle", "47.15,9.55,100", file.path])
    #expect(inHole.output.hasPrefix("2 of 4 features"), "\(inHole.output)")
    #expect(!inHole.output.contains("holed"))
    // Sorted from a point inside: distance 0.
    let sorted = await runTraffic([
      "within", "--circle", "47.12,9.52,100", "--sort-from", "47.12,9.52", file.path,
    ])
    #expect(sorted.output.contains("- square (0 m)"), "\(sorted.output)")
  }

  /// RFC 7946 allows an unlocated feature (`"geometry": null`), which meets no area, and a
  /// GeometryCollection, which meets one where a member does; both were refused as bad input.
  @Test func unlocatedFeaturesAndGeometryCollectionsAreRead() async throws {
    let features = [
      #"{"type":"Feature","id":"unlocated","properties":{},"geometry":null}"#,
      #"{"type":"Feature","id":"collection","properties":{},"geometry":{"type":"GeometryCollection","#
        + #""geometries":[{"type":"Point","coordinates":[10,48]},"#
        + #"{"type":"LineString","coordinates":[[13.4,52.5],[13.41,52.5]]}]}}"#,
      #"{"type":"Feature","id":"point","properties":{},"geometry":{"type":"Point","coordinates":[13.4,52.5]}}"#,
    ]
    let file = try Self.collection(features)
    defer { try? FileManager.default.removeItem(at: file) }
    let result = await runTraffic(["within", "--circle", "52.5,13.4,100", file.path])
    #expect(result.status == .success, "\(result.errors)")
    #expect(result.output.hasPrefix("2 of 3 features"), "\(result.output)")
    #expect(result.output.contains("- collection") && result.output.contains("- point"))
    let json = await runTraffic(["within", "--circle", "52.5,13.4,100", "--json", file.path])
    #expect(json.output.contains(#""type":"GeometryCollection""#), "\(json.output)")
    let far = await runTraffic(["within", "--circle", "48,10,100", file.path])
    #expect(far.output.hasPrefix("1 of 3 features"), "\(far.output)")
  }

  @Test func invalidJSONIsRejectedWithItsByteOffset() async throws {
    let file = FileManager.default.temporaryDirectory
      .appendingPathComponent("syntax-\(UUID().uuidString).geojson")
    try Data(#"{"type":"FeatureCollection","features":[}"#.utf8).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    let result = await runTraffic(["within", "--circle", "52.5,13.4,100", file.path])
    #expect(result.status == .usage)
    #expect(
      result.errors.contains("malformed GeoJSON at position 40: not valid JSON: expected a value"),
      "stderr was: \(result.errors)")
  }

  @Test func aFeedsFeaturesAreNamedByTheirIdAndWhatTheFeedCallsThem() async throws {
    // WZDx: the id is the feature's own member, the text in core_details.
    let feed = Fixtures.repositoryRoot.appendingPathComponent(
      "Tests/TrafficFeedsTests/Fixtures/wzdx/feed_v42.geojson"
    ).path
    let result = await runTraffic(["within", "--box", "-94,41,-93,43", feed])
    let lines = result.output.split(separator: "\n").dropFirst().map(String.init)
    #expect(
      lines.first
        == "- wz-bridge-closure: US 30 eastbound closed at the Skunk River bridge for deck "
        + "replacement.")
    let json = await runTraffic(["within", "--box", "-94,41,-93,43", "--json", feed])
    #expect(json.output.contains(#""id":"wz-bridge-closure""#))
  }

  @Test func helpIsPrintedWithStatusZero() async {
    #expect(await runTraffic(["help"]).output.contains("within"))
    #expect(await runTraffic(["help", "within"]).output.contains("--sort-from"))
    #expect(await runTraffic(["within", "--help"]).status == .success)
  }
}

private func sample() -> String {
  Fixtures.repositoryRoot.appendingPathComponent("Samples/berlin-incidents.geojson").path
}
