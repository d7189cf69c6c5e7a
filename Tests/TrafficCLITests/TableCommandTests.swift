import Foundation
import Testing
import TrafficSQLite
import TrafficTestSupport

@testable import traffic

/// `traffic table`: the matrix of the fastest routes as text and as OSRM's table answer, each
/// cell the route `traffic route` finds.
@Suite struct TableCommandTests {
  static let from = "47.0992,9.501;47.1,9.5"
  static let to = "47.1008,9.501;47.1,9.502"

  @Test func printsTheMatrixAsTextAndAsOSRMTable() async throws {
    let db = FlowCommandsTests.database()
    defer { TemporaryFiles.removeDatabase(db) }
    let imported = await runTraffic(["network", "import", "--db", db, FlowCommandsTests.network])
    #expect(imported.status == .success, "\(imported.errors)")

    let text = await runTraffic(["table", "--db", db, "--from", Self.from, "--to", Self.to])
    #expect(text.status == .success, "\(text.errors)")
    let lines = text.output.split(separator: "\n")
    #expect(lines.count == 3, "\(text.output)")
    #expect(lines.first?.contains("to 2") == true, "\(text.output)")
    #expect(lines.dropFirst().allSatisfy { $0.hasPrefix("from ") && $0.contains(" km") })

    let json = await runTraffic([
      "table", "--db", db, "--from", Self.from, "--to", Self.to, "--json",
    ])
    #expect(json.status == .success, "\(json.errors)")
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
    #expect(object["code"] as? String == "Ok")
    let durations = try #require(object["durations"] as? [[Double]])
    let distances = try #require(object["distances"] as? [[Double]])
    #expect(durations.count == 2 && durations.allSatisfy { $0.count == 2 })
    #expect(distances.count == 2 && distances.allSatisfy { $0.count == 2 })
    let sources = try #require(object["sources"] as? [[String: Any]])
    #expect(sources.count == 2)
    #expect((object["destinations"] as? [[String: Any]])?.count == 2)
    // [lng, lat]: the first origin on road 28 at 9.501 E.
    let location = try #require(sources.first?["location"] as? [Double])
    #expect(abs(location[0] - 9.501) < 1e-4 && abs(location[1] - 47.0992) < 1e-3)
    #expect(sources.first?["name"] as? String == "28")  // the road's number (it has no name)
    #expect(sources.first?["distance"] is Double)

    // The first cell is the route traffic route finds (its v8 summary in whole seconds).
    let route = await runTraffic([
      "route", "--db", db, "--from", "47.0992,9.501", "--to", "47.1008,9.501", "--json",
    ])
    let summary = try #require(
      ((((try JSONSerialization.jsonObject(with: Data(route.output.utf8)) as? [String: Any])?[
        "routes"] as? [[String: Any]])?.first?["sections"] as? [[String: Any]])?.first?["summary"])
        as? [String: Any])
    let seconds = try #require(summary["duration"] as? Int)
    let meters = try #require(summary["length"] as? Int)
    #expect(abs(durations[0][0] - Double(seconds)) <= 1, "\(durations) vs \(summary)")
    #expect(abs(distances[0][0] - Double(meters)) <= 1, "\(distances) vs \(summary)")

    // A place off the network is named by its option and position.
    let far = await runTraffic([
      "table", "--db", db, "--from", Self.from, "--to", "47.1008,9.501;47.2,9.6",
    ])
    #expect(far.status == .usage)
    #expect(
      far.errors.contains("--to: place 2 (47.2,9.6) is more than 1000 m from any road"),
      "\(far.errors)")

    // The network from a file gives the same matrix.
    let file = await runTraffic([
      "table", "--db", db, "--network", FlowCommandsTests.network, "--from", Self.from, "--to",
      Self.to, "--json",
    ])
    #expect(file.status == .success, "\(file.errors)")
    // And without any store: the network file alone (the working directory stays empty).
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("storeless-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let storeless = await runTraffic([
      "table", "--db", directory.appendingPathComponent("none.sqlite").path, "--network",
      FlowCommandsTests.network, "--from", Self.from, "--to", Self.to, "--json",
    ])
    #expect(storeless.status == .usage, "an explicit --db that is missing stays an error")
    #expect(storeless.errors.contains("no store at"), "\(storeless.errors)")
    let fromFile = try #require(
      (try JSONSerialization.jsonObject(with: Data(file.output.utf8)) as? [String: Any])?[
        "durations"] as? [[Double]])
    for (row, cells) in fromFile.enumerated() {
      for (column, cell) in cells.enumerated() {
        #expect(abs(cell - durations[row][column]) < 0.5, "\(fromFile) vs \(durations)")
      }
    }
  }

  @Test func aServerThatCannotBeReachedIsNamed() async {
    // Nothing listens on port 9: the remote engine asks its server (/v8/matrix) and says so,
    // as `traffic route --server` does.
    let result = await runTraffic([
      "table", "--server", "http://127.0.0.1:9", "--from", "47.1,9.5", "--to", "47.1,9.5",
    ])
    // Not the input's fault: status 1, one line naming the server, as `incidents` says it.
    #expect(result.status == .failure, "\(result)")
    #expect(
      result.errors
        == "traffic table: Server unreachable: cannot reach http://127.0.0.1:9 (connection refused)\n"
    )
    let route = await runTraffic([
      "route", "--server", "http://127.0.0.1:9", "--from", "47.1,9.5", "--to", "47.1,9.51",
    ])
    #expect(route.status == .failure, "\(route)")
    #expect(route.errors.hasPrefix("traffic route: Server unreachable: cannot reach"))
  }

  static let manyOrigins: String = Array(repeating: "47.1,9.5", count: 101).joined(separator: ";")
  static let manyDestinations: String = Array(repeating: "47.1,9.5", count: 100).joined(
    separator: ";")
  /// Arguments and the message they are refused with.
  static let badInputs: [([String], String)] = [
    (["table"], "give the origins"),
    (["table", "--from", "47.1,9.5"], "give the destinations"),
    (["table", "--from", "", "--to", "47.1,9.5"], "--from expects at least one LAT,LNG"),
    (["table", "--from", "47.1,9.5;;47.2,9.5", "--to", "47.1,9.5"], "--from: place 2 is empty"),
    (["table", "--from", "47.1,9.5", "--to", "95,9"], "--to"),
    (["table", "--from", "47.1,9.5", "--to", "north"], "--to"),
    (["table", "--from", "47.1,9.5", "--to", "47.1,9.5", "--depart", "soon"], "--depart expects"),
    (["table", "--from", "47.1,9.5", "--to", "47.1,9.5"], "no road network"),
    (
      ["table", "--from", "47.1,9.5", "--to", "47.1,9.5", "--avoid", "motorway,tunnel"],
      "--avoid expects motorway, toll or ferry, comma-separated, got 'tunnel'"
    ),
    (
      ["table", "--from", "47.1,9.5", "--to", "47.1,9.5", "--network", "x.osm", "--server", "u"],
      "give --network or --server, not both"
    ),
    (
      ["table", "--from", manyOrigins, "--to", manyDestinations],
      "10100 cells, more than the 10000 allowed"
    ),
  ]

  @Test func avoidedFeaturesReachTheTableAndTheRoute() async throws {
    let db = FlowCommandsTests.database()
    defer { TemporaryFiles.removeDatabase(db) }
    let imported = await runTraffic(["network", "import", "--db", db, FlowCommandsTests.network])
    #expect(imported.status == .success, "\(imported.errors)")
    let table = await runTraffic([
      "table", "--db", db, "--from", Self.from, "--to", Self.to, "--avoid", "motorway,toll",
      "--json",
    ])
    #expect(table.status == .success, "\(table.errors)")
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(table.output.utf8)) as? [String: Any])
    #expect(object["code"] as? String == "Ok")
    let route = await runTraffic([
      "route", "--db", db, "--from", "47.0992,9.501", "--to", "47.1008,9.501", "--avoid", "toll",
    ])
    #expect(route.status == .success, "\(route.errors)")
    let bad = await runTraffic([
      "route", "--db", db, "--from", "47.0992,9.501", "--to", "47.1008,9.501", "--avoid", "tolls",
    ])
    #expect(bad.status == .usage)
    #expect(bad.errors.contains("--avoid expects motorway, toll or ferry"), "\(bad.errors)")
  }

  @Test(arguments: badInputs)
  func badInputExitsWith64(arguments: [String], message: String) async throws {
    let db = FlowCommandsTests.database()
    defer { TemporaryFiles.removeDatabase(db) }
    _ = try SQLiteTrafficStore(path: db)  // an empty store: the input is at fault
    var withDatabase = arguments
    withDatabase.insert(contentsOf: ["--db", db], at: 1)
    let result = await runTraffic(withDatabase)
    #expect(result.status == .usage, "\(result)")
    #expect(result.errors.contains(message), "stderr was: \(result.errors)")
  }
}
