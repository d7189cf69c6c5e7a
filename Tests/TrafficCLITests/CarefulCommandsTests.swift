import Foundation
import Synchronization
import Testing
import Traffic
import TrafficSQLite
import TrafficTestSupport

@testable import traffic

/// A new user's mistakes make no files and get one line in our words naming the file or
/// URL and the reason; `-` is standard input and output.
@Suite struct CarefulCommandsTests {
  /// A fresh directory, removed by the caller.
  static func directory() throws -> URL {
    let url = FileManager.default.temporaryDirectory
      .appendingPathComponent("careful-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }

  static let feed = Fixtures.repositoryRoot.appendingPathComponent(
    "Tests/TrafficFeedsTests/Fixtures/datex2/v3_situation.xml")
  /// A file of no feed format.
  static let notAFeed = Fixtures.repositoryRoot.appendingPathComponent("Package.swift")

  @Test(arguments: [
    ["incidents", "--circle", "52.5,13.4,1000"], ["lookup", "x"],
    ["flow", "--circle", "52.5,13.4,1000"], ["export", "osrm", "-o", "out.csv"],
    ["profiles", "import", "FEED"], ["probes", "import", "FEED"],
  ])
  func commandsThatReadNeverCreateAStore(arguments: [String]) async throws {
    let directory = try Self.directory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let db = directory.appendingPathComponent("typo.sqlite").path
    let result = await runTraffic(
      arguments.map { $0 == "FEED" ? Self.feed.path : $0 } + ["--db", db])
    #expect(result.status == .usage, "\(result.output)")
    #expect(result.errors.contains("no store at \(db)"), "\(result.errors)")
    #expect(result.errors.split(separator: "\n").count == 1)
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
  }

  /// `-` is standard input or output wherever a file is read or written once; a store is
  /// neither: `--db -` (or `TRAFFIC_DB=-`) is refused, and no file named `-` is made.
  @Test(arguments: [
    ["import", "FEED"], ["network", "import", "NETWORK"], ["incidents", "--circle", "47,9,100"],
    ["flow", "--circle", "47,9,100"], ["lookup", "x"], ["nearest", "47.1,9.5"],
    ["route", "--from", "47.1,9.5", "--to", "47.2,9.5"], ["export", "osrm", "-o", "out.csv"],
    ["probes", "import", "FEED"], ["profiles", "import", "FEED"],
    // A host it cannot listen on: a server that took `-` as its store ends all the same.
    ["serve", "--host", "999.1.1.1", "--port", "0"],
  ])
  func standardInputOrOutputIsNoStore(arguments: [String]) throws {
    let directory = try Self.directory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let named = arguments.map {
      $0 == "FEED" ? Self.feed.path : $0 == "NETWORK" ? FlowCommandsTests.network : $0
    }
    var environment = ProcessInfo.processInfo.environment
    for (given, variable) in [(["--db", "-"], nil), ([], "-")] as [([String], String?)] {
      environment["TRAFFIC_DB"] = variable
      let result = try ChildProcess.run(
        try Self.trafficBinary(), named + given, in: directory, environment: environment,
        mergingErrors: false)
      #expect(result.status == 64, "\(named + given): \(result.errors)")
      #expect(
        result.errors
          == "traffic \(arguments[0]): a store cannot be standard input or output (-); name "
          + "its file with --db or TRAFFIC_DB\n", "\(named + given)")
      #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }
  }

  /// `--` ends the options (POSIX): what follows is positional, a file named like an
  /// option or a place with a negative first coordinate.
  @Test func doubleDashEndsTheOptions() async throws {
    let directory = try Self.directory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let db = directory.appendingPathComponent("store.sqlite").path
    let file = await runTraffic(["import", "--db", db, "--", "--nosuch.xml"])
    #expect(file.status == .usage)
    #expect(file.errors.contains("--nosuch.xml: no such file"), "\(file.errors)")
    // Taken as the place: the command goes on to look for its store.
    let place = await runTraffic(["nearest", "--db", db, "--", "-33.9,18.4"])
    #expect(place.status == .usage)
    #expect(place.errors.contains("no store at"), "\(place.errors)")
  }

  @Test(arguments: [
    (["import", "--bogus", "FEED"], "unknown option --bogus"),
    (["import", "nosuch.xml"], "nosuch.xml: no such file"),
    (["import", "FEED", "nosuch.xml"], "nosuch.xml: no such file"),
    (["import", "DIR"], "is a directory, not a file"),
    (["network", "import", "nosuch.osm.pbf"], "nosuch.osm.pbf: no such file"),
    (["network", "import", "DIR"], "is a directory, not a file"),
    (["network", "import", "--bogus", "x.osm"], "unknown option --bogus"),
    (["import", "-", "-"], "- (standard input) can be read once"),
    (["import", "--server", "http://127.0.0.1:1", "FEED"], "unknown option --server"),
    (["import", "NOFEED"], "not a recognised feed format"),
  ])
  func nothingIsWrittenBeforeTheInputsAreChecked(
    arguments: [String], message: String
  ) async throws {
    let directory = try Self.directory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let db = directory.appendingPathComponent("store.sqlite").path
    let result = await runTraffic(
      arguments.map {
        $0 == "FEED"
          ? Self.feed.path
          : $0 == "NOFEED"
            ? Self.notAFeed.path : $0 == "DIR" ? FileManager.default.temporaryDirectory.path : $0
      } + ["--db", db])
    #expect(result.status == .usage)
    #expect(result.errors.contains(message), "\(result.errors)")
    #expect(!result.errors.contains("Error Domain") && !result.errors.contains("CoreFoundation"))
    #expect(!FileManager.default.fileExists(atPath: db), "no store was created")
  }

  @Test func flowOnAStoreWithoutRoadsSaysSo() async throws {
    let directory = try Self.directory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let db = directory.appendingPathComponent("store.sqlite").path
    #expect(await runTraffic(["import", "--db", db, Self.feed.path]).status == .success)
    let result = await runTraffic(["flow", "--db", db, "--circle", "52.5,13.4,1000"])
    #expect(result.status == .usage)
    #expect(result.errors.contains("holds no road network"), "\(result.errors)")
    #expect(result.errors.contains("traffic network import FILE"))
  }

  @Test func anUnreachableServerIsNamedWithTheReason() async {
    let result = await runTraffic([
      "incidents", "--server", "http://127.0.0.1:1", "--circle", "52.5,13.4,1000",
    ])
    #expect(result.status == .failure)
    #expect(result.errors.contains("http://127.0.0.1:1"), "\(result.errors)")
    #expect(result.errors.contains("connection refused"), "\(result.errors)")
  }

  @Test func trafficOnARouteAsksTheServerAndNamesOneThatCannotBeReached() async {
    // Not an empty answer from no data: the route's traffic is asked of the server.
    for form in [
      ["--coords", "47.14,9.52;47.145,9.522"], ["--polyline", "BFoz5xJ67i1B1B7PzIhaxL7Y"],
    ] {
      let result = await runTraffic(["route", "--server", "http://127.0.0.1:1"] + form)
      #expect(result.status == .failure, "\(result.output)")
      #expect(result.output.isEmpty, "\(result.output)")
      #expect(result.errors.hasPrefix("traffic route: Server unreachable"), "\(result.errors)")
      #expect(result.errors.contains("http://127.0.0.1:1"), "\(result.errors)")
      #expect(result.errors.contains("connection refused"), "\(result.errors)")
      #expect(result.errors.split(separator: "\n").count == 1, "\(result.errors)")
    }
  }

  @Test func aMissingKeysFileIsOneLineInOurWords() async {
    let result = await runTraffic(["serve", "--keys-file", "/nonexistent/keys", "--port", "0"])
    #expect(result.status == .usage)
    #expect(result.errors.contains("/nonexistent/keys: no such file"), "\(result.errors)")
    #expect(!result.errors.contains("Error Domain") && !result.errors.contains("NSCocoa"))
    #expect(result.errors.split(separator: "\n").count == 1)
  }

  @Test func aKeyGivenInTwoPlacesIsRefusedNotGivenTheLastScopes() async throws {
    let directory = try Self.directory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("keys")
    try Data("k1 read   # the reader\nk2\n".utf8).write(to: file)
    let twice = await runTraffic(["serve", "--api-key", "k1", "--keys-file", file.path])
    #expect(twice.status == .usage)
    #expect(
      twice.errors
        == "traffic serve: --keys-file \(file.path) gives a key that --api-key gives too; give "
        + "each key once, with its scopes\n")
    let repeated = await runTraffic(["serve", "--api-key", "k3", "--api-key", "k3"])
    #expect(repeated.errors.contains("--api-key: a key is given twice"), "\(repeated.errors)")
  }

  @Test func renderWritesThePictureToStandardOutput() async throws {
    let database = try MapCommandsTests.database()
    defer { TemporaryFiles.removeDatabase(database) }
    let bytes = Mutex(Data()), errors = Mutex("")
    let console = Console(
      write: { text in bytes.withLock { $0 += Data(text.utf8) } },
      writeError: { text in errors.withLock { $0 += text } },
      writeBytes: { data in bytes.withLock { $0 += data } })
    let directory = try Self.directory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let status = await CommandLineTool.run(
      [
        "render", "--db", database, "--center", "47.14,9.52", "--zoom", "14", "--size",
        "64x48", "-o", "-",
      ], console: console)
    #expect(status == .success, "\(errors.withLock { $0 })")
    let png = bytes.withLock { $0 }
    #expect(png.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
    #expect(errors.withLock { $0 }.hasPrefix("wrote - (64x48"), "the summary goes to stderr")
    #expect(!FileManager.default.fileExists(atPath: "-"))
  }

  /// The built `traffic` binary, beside the test bundle.
  static func trafficBinary() throws -> URL {
    let candidates = [
      Bundle.main.bundleURL.deletingLastPathComponent(), Bundle.main.bundleURL,
      Fixtures.repositoryRoot.appendingPathComponent(".build/debug"),
    ]
    return try #require(
      candidates.map { $0.appendingPathComponent("traffic") }
        .first { FileManager.default.isExecutableFile(atPath: $0.path) })
  }

  @Test func importReadsStandardInput() async throws {
    let directory = try Self.directory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let db = directory.appendingPathComponent("store.sqlite").path
    let result = try ChildProcess.run(
      try Self.trafficBinary(), ["import", "--db", db, "-"], in: directory,
      input: .bytes(try Data(contentsOf: Self.feed)))
    let text = result.output
    #expect(result.status == 0, "\(text)")
    #expect(text.hasPrefix("datex2 stdin: "), "\(text)")
    let stored = try SQLiteTrafficStore(path: db).currentIncidents()
    #expect(!stored.isEmpty)
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        .allSatisfy { $0.hasPrefix("store.sqlite") })
  }

  @Test func coordinatesInTheOtherOrderGetAHint() async throws {
    let directory = try Self.directory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let db = directory.appendingPathComponent("store.sqlite").path
    #expect(
      await runTraffic(["network", "import", "--db", db, FlowCommandsTests.network]).status
        == .success)
    // lng,lat as OSRM and GeoJSON write them: off the network, on it the other way round.
    let swapped = await runTraffic([
      "route", "--db", db, "--from", "9.501,47.0992", "--to", "47.1008,9.501",
    ])
    #expect(swapped.status == .usage)
    #expect(
      swapped.errors.contains(
        "coordinates are LAT,LNG (latitude first): did you mean 47.0992,9.501?"),
      "\(swapped.errors)")
    // Far from the network either way: no hint.
    let far = await runTraffic(["route", "--db", db, "--from", "10,20", "--to", "47.1008,9.501"])
    #expect(far.status == .usage)
    #expect(!far.errors.contains("did you mean"), "\(far.errors)")
    // A latitude out of range that is a valid longitude.
    let invalid = await runTraffic([
      "route", "--db", db, "--from", "147.1,9.5", "--to", "47.1008,9.501",
    ])
    #expect(invalid.errors.contains("did you mean 9.5,147.1?"), "\(invalid.errors)")
  }

  @Test(arguments: ["osm.pbf", "osm.bz2"])
  func networkImportReadsStandardInputOfAnyKind(extension: String) throws {
    let directory = try Self.directory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let db = directory.appendingPathComponent("store.sqlite").path
    let result = try ChildProcess.run(
      try Self.trafficBinary(), ["network", "import", "--db", db, "-"], in: directory,
      input: .file(Fixtures.liechtenstein(`extension`)))
    let text = result.output
    #expect(result.status == 0, "\(text)")
    #expect(text.hasPrefix("standard input: 2318 nodes, 5391 directed segments"), "\(text)")
  }

  /// A file of another kind is named once, with the formats a network comes in: never
  /// "malformed passwd" (its name where the format should be). Standard input too, and
  /// serve's --network.
  @Test(arguments: ["Package.swift", "Samples/berlin-incidents.geojson", "-"])
  func networkImportOfAnotherKindOfFileNamesTheFormats(file: String) throws {
    let directory = try Self.directory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = file == "-" ? file : Fixtures.repositoryRoot.appendingPathComponent(file).path
    let result = try ChildProcess.run(
      try Self.trafficBinary(), ["network", "import", "--db", "store.sqlite", path],
      in: directory, input: file == "-" ? .file(Self.notAFeed) : .none, mergingErrors: false)
    #expect(result.status == 64)
    let shown = file == "-" ? "standard input" : path
    #expect(
      result.errors.hasPrefix(
        "traffic network: \(shown): not an OpenStreetMap (XML, .osm.bz2, PBF) or SUMO .net.xml "
          + "file: line 1, column "), "\(result.errors)")
    #expect(!result.errors.contains("malformed"), "\(result.errors)")
    #expect(result.errors.split(separator: "\n").count == 1, "\(result.errors)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    guard file != "-" else { return }
    let served = try ChildProcess.run(
      try Self.trafficBinary(),
      ["serve", "--db", "store.sqlite", "--port", "0", "--network", path],
      in: directory, mergingErrors: false)
    #expect(served.status == 64)
    #expect(
      served.errors.hasPrefix(
        "traffic serve: \(path): not an OpenStreetMap (XML, .osm.bz2, PBF) or SUMO .net.xml "
          + "file: line 1, column "), "\(served.errors)")
  }

  /// A file that defines a road node twice without versions is imported with the last
  /// definition, and the summary says so (its line on standard error, `duplicateNodes` in
  /// `--json`); a deleted way is not imported.
  @Test func networkImportCountsNodesDefinedTwice() async throws {
    let directory = try Self.directory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let db = directory.appendingPathComponent("store.sqlite").path
    let file = directory.appendingPathComponent("twice.osm")
    try Data(
      """
      <osm version="0.6">
      <node id="1" version="1" lat="47.1" lon="9.5"/><node id="2" version="1" lat="47.1" lon="9.502"/>
      <node id="2" version="1" lat="47.2" lon="9.6"/><node id="3" lat="47.1" lon="9.504"/>
      <way id="1" version="1"><nd ref="1"/><nd ref="2"/><tag k="highway" v="primary"/></way>
      <way id="2" version="4" visible="false"><nd ref="1"/><nd ref="3"/><tag k="highway" v="motorway"/></way>
      </osm>
      """.utf8
    ).write(to: file)
    let plain = await runTraffic(["network", "import", "--db", db, file.path])
    #expect(plain.status == .success, "\(plain.errors)")
    #expect(
      plain.errors.contains("1 nodes defined twice without versions (the last one used)"),
      "\(plain.errors)")
    #expect(plain.output.contains("2 nodes, 2 directed segments"), "\(plain.output)")
    let json = await runTraffic(["network", "import", "--db", db, "--json", file.path])
    let summary = try #require(
      try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
    #expect(summary["duplicateNodes"] as? Int == 1)
    #expect(summary["duplicateWays"] as? Int == 0)
    #expect(summary["roadWays"] as? Int == 1)
  }
}
