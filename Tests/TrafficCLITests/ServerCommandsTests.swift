import Foundation
import Testing
import Traffic
import TrafficServer
import TrafficTestSupport

@testable import traffic

/// The command line against a server (`--server`), and `traffic serve`'s argument checks.
@Suite(.serialized) struct ServerCommandsTests {
  /// An existing feed file, for the commands that check their inputs before the rest.
  static let sample = CarefulCommandsTests.feed.path

  @Test func queriesGoToTheServerWithServer() async throws {
    let store = InMemoryTrafficStore()
    let incident = try TrafficIncident(
      id: "x-1", originalId: "x", type: .roadClosure, impact: .critical,
      startTime: Date() - 60, endTime: Date() + 3600,
      location: TrafficLocation(point: try GeoCoordinates(latitude: 52.5, longitude: 13.4)))
    try store.apply(IncidentBatch(upserts: [incident]))
    let server = try TrafficServer(
      engine: try TrafficEngine(store: store),
      configuration: ServerConfiguration(port: 0, apiKeys: ["k1"], accessLog: .none))
    try server.start()
    defer { server.stop() }
    let url = "http://127.0.0.1:\(try #require(server.port))"

    let found = await runTraffic([
      "incidents", "--server", url, "--api-key", "k1", "--circle", "52.5,13.4,100",
    ])
    #expect(found.status == .success, "\(found.errors)")
    #expect(found.output.contains("[roadClosure, critical] x"))
    let lookup = await runTraffic(["lookup", "--server", url, "--api-key", "k1", "x", "--json"])
    #expect(lookup.output.contains("\"originalId\":\"x\""))
    let nearest = await runTraffic(["nearest", "--server", url, "--api-key", "k1", "52.5001,13.4"])
    #expect(nearest.output.contains("] x 11 m"), "\(nearest.output)")
    let refused = await runTraffic(["lookup", "--server", url, "--api-key", "wrong", "x"])
    #expect(refused.status == .usage)
    #expect(refused.errors.contains("Authentication failed"))
  }

  @Test(arguments: [
    (["incidents", "--server", "not a url", "--circle", "52,13,100"], "--server"),
    (
      ["incidents", "--server", "http://127.0.0.1:1", "--db", "x", "--circle", "52,13,100"],
      "not both"
    ),
    (["incidents", "--api-key", "k", "--circle", "52,13,100"], "--api-key needs --server"),
    // Foundation's URLSession refuses an IPv6 literal: named, not "Server unreachable".
    (
      ["incidents", "--server", "http://[::1]:1", "--circle", "52,13,100"],
      "names an IPv6 address"
    ),
    (
      ["incidents", "--server", "http://127.0.0.1:1", "--postgres", "x", "--circle", "52,13,100"],
      "give --postgres or --server, not both"
    ),
    (
      ["import", "--postgres", "postgresql://traffic@127.0.0.1:1/t", "--db", "x", Self.sample],
      "give --db or --postgres, not both"
    ),
    (
      ["import", "--postgres", "postgresql://traffic@127.0.0.1:1/t", Self.sample],
      "--postgres: cannot open"
    ),
    (["serve", "--port", "99999"], "--port expects"),
    (["serve", "--threads", "0"], "--threads expects"),
    (["serve", "--feed", "gtfs:http://x/y"], "unknown feed format 'gtfs'"),
    (["serve", "--feed", "datex2:http://x/y@0"], "the interval 0 s must be 1 ... 604800"),
    (["serve", "--feed", "datex2:http://x/y@1e20"], "the interval 1e20 s must be 1 ... 604800"),
    (["serve", "--feed", "datex2:http://"], "not an http(s) URL with a host"),
    (["serve", "--network", "/nonexistent.osm.pbf"], "/nonexistent.osm.pbf"),
    (["serve", "--keys-file", "/nonexistent-keys"], "--keys-file"),
    (["serve", "--demo", "--demo-speed", "99"], "--demo-speed expects 1...60"),
    (["serve", "--rate-limit", "-3"], "--rate-limit expects"),
    (["serve", "--max-results", "0"], "--max-results expects a whole number >= 1"),
    (["serve", "--max-flow-results", "x"], "--max-flow-results expects a whole number >= 1"),
    (["serve", "--max-push-records", "x"], "--max-push-records expects a whole number >= 1"),
    (["serve", "--failed-key-limit", "-1"], "--failed-key-limit expects wrong keys per second"),
    (["serve", "--max-connections-per-address", "0"], "--max-connections-per-address expects"),
    (["serve", "--head-timeout", "0"], "--head-timeout expects"),
    (["serve", "--metric-sources", "0"], "--metric-sources expects"),
    (["serve", "--min-body-rate", "fast"], "--min-body-rate expects"),
    (["serve", "--max-route-coordinates", "501"], "--max-route-coordinates expects 2...500"),
    (["serve", "--trusted-proxy", "nginx"], "trusted proxy \"nginx\" is not an IPv4 or IPv6"),
  ])
  func badServerArgumentsExitWith64(arguments: [String], message: String) async {
    let result = await runTraffic(arguments)
    #expect(result.status == .usage, "\(result)")
    #expect(result.errors.contains(message), "stderr was: \(result.errors)")
  }

  /// A host the server cannot listen on is refused before anything is opened: no store is
  /// left behind by a server that never ran.
  @Test func aBadHostIsRefusedBeforeTheStoreIsCreated() async throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("host-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = directory.appendingPathComponent("new.sqlite").path
    let result = await runTraffic(["serve", "--db", store, "--host", "999.1.1.1", "--port", "0"])
    #expect(result.status == .usage, "\(result)")
    #expect(
      result.errors.contains("host 999.1.1.1 is not an IPv4 or IPv6 address"),
      "stderr was: \(result.errors)")
    #expect(!FileManager.default.fileExists(atPath: store))
  }

  /// Two `traffic serve` on one SQLite store would each serve (and write) a picture of
  /// their own: the second is refused at start, naming the store and the first server's
  /// process, while imports into the store still run; once the first stops, a server starts.
  @Test func aSecondServerOnTheSameStoreIsRefused() async throws {
    let directory = try CarefulCommandsTests.directory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = directory.appendingPathComponent("one.sqlite").path
    func start() throws -> (Process, ListeningLine) { try Self.serve(store, in: directory) }
    let (first, firstLine) = try start()
    defer {
      if first.isRunning { first.interrupt() }
      first.waitUntilExit()
    }
    let port = await firstLine.port()
    try #require(port != nil, "the first server did not listen: \(firstLine.printed)")

    // Under the lock the second ends at once; without it, it would serve: stopped after 20 s.
    let (second, secondLine) = try start()
    try await Self.expectRefusedAtStart(second, secondLine)
    #expect(
      secondLine.printed
        == "traffic serve: \(store) is in use by another traffic serve (pid "
        + "\(first.processIdentifier)); run one traffic serve per store file (several nodes "
        + "share a PostgreSQL store)\n")

    let imported = await runTraffic(["import", "--db", store, CarefulCommandsTests.feed.path])
    #expect(imported.status == .success, "\(imported.errors)")

    first.interrupt()
    first.waitUntilExit()
    #expect(!FileManager.default.fileExists(atPath: store + ".lock"))
    let (third, thirdLine) = try start()
    let thirdPort = await thirdLine.port()
    #expect(thirdPort != nil, "\(thirdLine.printed)")
    third.interrupt()
    third.waitUntilExit()
  }

  /// A running server holds the store's flow in memory and writes it back when it stops:
  /// probes imported into its store meanwhile were gone once it stopped (their learned free
  /// flow back to the limit, measured). Such imports, and those of profiles and of a
  /// network, are refused while it serves, naming it and what to do; once it stops, the
  /// same import runs, and a server does not start while an import writes.
  @Test func importsOfFlowIntoAServedStoreAreRefused() async throws {
    let directory = try CarefulCommandsTests.directory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = directory.appendingPathComponent("served.sqlite").path
    let network = await runTraffic(["network", "import", "--db", store, FlowCommandsTests.network])
    try #require(network.status == .success, "\(network.errors)")
    let probes = try FlowCommandsTests.probes()
    defer { try? FileManager.default.removeItem(atPath: probes) }

    let (server, line) = try Self.serve(store, in: directory)
    defer {
      if server.isRunning { server.interrupt() }
      server.waitUntilExit()
    }
    try #require(await line.port() != nil, "the server did not listen: \(line.printed)")
    let pid = " (pid \(server.processIdentifier))"
    let refused = await runTraffic(["probes", "import", "--db", store, probes])
    #expect(refused.status == .usage, "\(refused)")
    #expect(
      refused.errors.contains(
        "\(store) is served by traffic serve\(pid), which keeps its flow in memory and "
          + "writes it back when it stops, over what traffic probes import would save; send "
          + "the probes to the server (POST /v1/probes), or stop it first"),
      "\(refused.errors)")
    let networkRefused = await runTraffic([
      "network", "import", "--db", store, FlowCommandsTests.network,
    ])
    #expect(networkRefused.status == .usage)
    #expect(
      networkRefused.errors.contains("stop it, import the network, then start it again"),
      "\(networkRefused.errors)")
    let profilesRefused = await runTraffic(["profiles", "import", "--db", store, probes])
    #expect(profilesRefused.status == .usage)
    #expect(
      profilesRefused.errors.contains("stop it, import the profiles, then start it again"),
      "\(profilesRefused.errors)")
    // Incidents still go in: rows of their own, which a server loads when it next starts.
    let incidents = await runTraffic(["import", "--db", store, CarefulCommandsTests.feed.path])
    #expect(incidents.status == .success, "\(incidents.errors)")
    // ... with a note that the server does not show them yet (it said nothing).
    #expect(
      incidents.errors.contains(
        "note: \(store) is served by traffic serve\(pid), which holds its incidents in memory"),
      "\(incidents.errors)")

    server.interrupt()
    server.waitUntilExit()
    let imported = await runTraffic(["probes", "import", "--db", store, probes])
    #expect(imported.status == .success, "\(imported.errors)")
    let unserved = await runTraffic(["import", "--db", store, CarefulCommandsTests.feed.path])
    #expect(!unserved.errors.contains("note:"), "no server any more: \(unserved.errors)")
    let flow = await runTraffic(["flow", "--db", store, "--circle", "47.1,9.501,300"])
    #expect(flow.output.contains("28: 29 km/h (free flow 60)"), "\(flow.output)")

    // While an import holds the store (here this process, as the import takes it), a
    // server is refused, naming the import.
    let importing = try ServeLock(
      store: store, for: .importer(command: "traffic probes import", instead: ""))
    let blocked = await runTraffic(["serve", "--db", store, "--port", "0"])
    withExtendedLifetime(importing) {}
    #expect(blocked.status == .usage, "\(blocked)")
    #expect(
      blocked.errors.contains(
        "\(store) is being written by traffic probes import (pid \(getpid())); start the "
          + "server once it has finished"), "\(blocked.errors)")
  }

  /// A signal sent the moment `traffic serve` says it listens stops it gracefully (exit 0),
  /// never kills it (the signal's default action, before the server caught it: 25 of 30
  /// such runs before the fix) nor goes unheard (the server would wait for ever).
  @Test func aSignalTheMomentTheServerListensStopsItGracefully() async throws {
    let directory = try CarefulCommandsTests.directory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = directory.appendingPathComponent("signals.sqlite").path
    for (round, number) in [SIGINT, SIGTERM, SIGINT, SIGTERM, SIGINT, SIGTERM].enumerated() {
      let (process, line) = try Self.serve(store, in: directory)
      let port = await line.port()
      kill(process.processIdentifier, number)
      try #require(port != nil, "round \(round): the server did not listen: \(line.printed)")
      for _ in 0..<200 where process.isRunning { try await Task.sleep(for: .milliseconds(50)) }
      if process.isRunning {
        process.terminate()
        kill(process.processIdentifier, SIGKILL)
        Issue.record("round \(round): signal \(number) did not stop the server in 10 s")
      }
      process.waitUntilExit()
      let how = process.terminationReason == .exit ? "exit" : "killed by signal"
      #expect(
        process.terminationReason == .exit && process.terminationStatus == 0,
        "round \(round), signal \(number): \(how) \(process.terminationStatus): \(line.printed)")
    }
  }

  /// The static demo replays a recording and runs no SUMO: its hints say that Ctrl-C stops
  /// the server, not "the server and SUMO".
  @Test func theStaticDemoSaysOnlyWhatRuns() async throws {
    let directory = try CarefulCommandsTests.directory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let (process, line) = try Self.serve(
      ["--demo=static", "--state-dir", directory.path], in: directory)
    defer {
      process.interrupt()
      process.waitUntilExit()
    }
    let port = await line.port()
    try #require(port != nil, "the demo did not listen: \(line.printed)")
    for _ in 0..<200 where !line.printed.contains("Ctrl-C") {
      try await Task.sleep(for: .milliseconds(100))
    }
    let printed = line.printed
    #expect(printed.contains("replaying recorded probes"), "\(printed)")
    #expect(printed.contains("\nCtrl-C stops the server.\n"), "\(printed)")
    #expect(!printed.contains("and SUMO"), "\(printed)")
  }

  @Test func aSecondServerOnAHardLinkToTheStoreIsRefused() async throws {
    let directory = try CarefulCommandsTests.directory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = directory.appendingPathComponent("linked.sqlite").path
    let made = await runTraffic(["import", "--db", store, CarefulCommandsTests.feed.path])
    try #require(made.status == .success, "\(made.errors)")
    let other = directory.appendingPathComponent("other-name.sqlite").path
    try #require(link(store, other) == 0, "hard link")
    let (first, line) = try Self.serve(store, in: directory)
    defer {
      if first.isRunning { first.interrupt() }
      first.waitUntilExit()
    }
    try #require(await line.port() != nil, "the first server did not listen: \(line.printed)")
    // Its lock file is other-name.sqlite.lock: before, the second server took it and served
    // (stopped here after 20 s, so that a regression fails rather than hangs).
    let (second, secondLine) = try Self.serve(other, in: directory)
    try await Self.expectRefusedAtStart(second, secondLine)
    #expect(secondLine.printed.contains("a hard link"), "\(secondLine.printed)")
    let file = try FlowCommandsTests.probes()
    defer { try? FileManager.default.removeItem(atPath: file) }
    let probes = await runTraffic(["probes", "import", "--db", other, file])
    #expect(probes.status == .usage, "\(probes)")
    #expect(probes.errors.contains("a hard link"), "\(probes.errors)")
  }

  /// Waits up to 20 s for a server to end on its own with status 64 (refused at start); one
  /// that serves instead is stopped and recorded, so that a regression fails, not hangs.
  static func expectRefusedAtStart(_ server: Process, _ line: ListeningLine) async throws {
    for _ in 0..<200 where server.isRunning { try await Task.sleep(for: .milliseconds(100)) }
    if server.isRunning {
      server.interrupt()
      Issue.record("a second server started on the store: \(line.printed)")
    }
    server.waitUntilExit()
    _ = await line.port()  // the output to its end
    #expect(server.terminationStatus == 64)
  }

  /// Starts `traffic serve` on the SQLite store `store`, its output read as it comes.
  static func serve(_ store: String, in directory: URL) throws -> (Process, ListeningLine) {
    try serve(["--db", store], in: directory)
  }

  /// Starts `traffic serve ARGUMENTS` on a free port, its output read as it comes.
  static func serve(_ arguments: [String], in directory: URL) throws -> (Process, ListeningLine) {
    let process = Process()
    process.executableURL = try CarefulCommandsTests.trafficBinary()
    process.arguments = ["serve"] + arguments + ["--port", "0", "--threads", "2"]
    process.currentDirectoryURL = directory
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    let line = ListeningLine(output)
    try process.run()
    return (process, line)
  }
}
