import Foundation
import Testing
import Traffic
import TrafficSQLite
import TrafficServer
import TrafficTestSupport

@testable import traffic

@Suite struct MapCommandsTests {
  /// A database holding one active accident at 47.14,9.52.
  static func database() throws -> String {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("map-\(UUID().uuidString).sqlite").path
    let store = try SQLiteTrafficStore(path: path)
    try store.apply(
      IncidentBatch(upserts: [
        try TrafficIncident(
          id: "acc-1", originalId: "acc", type: .accident, impact: .critical,
          startTime: Date() - 60, endTime: Date() + 3600,
          location: TrafficLocation(point: try GeoCoordinates(latitude: 47.14, longitude: 9.52)))
      ]))
    return path
  }

  @Test func renderWritesAPNGOfTheRequestedSize() async throws {
    let database = try Self.database()
    defer { TemporaryFiles.removeDatabase(database) }
    let output = FileManager.default.temporaryDirectory.appendingPathComponent("r-\(UUID()).png")
    defer { try? FileManager.default.removeItem(at: output) }
    let result = await runTraffic([
      "render", "--db", database, "--center", "47.14,9.52", "--zoom", "14", "--size", "320x200",
      "-o", output.path,
    ])
    #expect(result.status == .success, "\(result.errors)")
    let png = try Data(contentsOf: output)
    #expect(png.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
    // IHDR: width and height, big-endian, at bytes 16..<24.
    let width = png[16..<20].reduce(0) { $0 << 8 | Int($1) }
    let height = png[20..<24].reduce(0) { $0 << 8 | Int($1) }
    #expect(width == 320 && height == 200)
  }

  @Test func pickFindsTheIncidentUnderTheTap() async throws {
    let database = try Self.database()
    defer { TemporaryFiles.removeDatabase(database) }
    let view = ["--db", database, "--center", "47.14,9.52", "--zoom", "15", "--size", "400x300"]
    let hit = await runTraffic(["pick"] + view + ["--at", "200,150"])
    #expect(hit.status == .success, "\(hit.errors)")
    #expect(hit.output.contains("[accident, critical] acc"))
    let miss = await runTraffic(["pick"] + view + ["--at", "20,20"])
    #expect(miss.output.hasPrefix("0 incidents"))
    let off = await runTraffic(["pick"] + view + ["--at", "200,150", "--features", "flow"])
    #expect(off.output.hasPrefix("0 incidents"), "a disabled layer picks nothing")
    let json = await runTraffic(["pick"] + view + ["--at", "190,140", "--rect", "20,20", "--json"])
    #expect(json.output.contains("\"originalId\":\"acc\""))
  }

  /// Runs `body` with the URL of a server on loopback: the crossing network (flow at its
  /// speed limits) and an accident at its middle junction when `withTraffic`, else nothing.
  static func withServer(
    withTraffic: Bool = true, apiKeys: Set<String> = [], _ body: (String) async throws -> Void
  ) async throws {
    let store = InMemoryTrafficStore()
    if withTraffic {
      try store.apply(
        IncidentBatch(upserts: [
          try TrafficIncident(
            id: "acc-1", originalId: "acc", type: .accident, impact: .critical,
            startTime: Date() - 60, endTime: Date() + 3600,
            location: TrafficLocation(point: CrossingNetwork.coordinates(east: 500)))
        ]))
    }
    let server = try TrafficServer(
      engine: try TrafficEngine(
        store: store, network: withTraffic ? try CrossingNetwork.network() : nil),
      configuration: ServerConfiguration(port: 0, apiKeys: apiKeys, accessLog: .none))
    try server.start()
    defer { server.stop() }
    let port = try #require(server.port)
    try await body("http://127.0.0.1:\(port)")
  }

  /// The crossing's middle junction, the center of the views below.
  static let crossing = "52,\(CrossingNetwork.coordinates(east: 500).longitude)"

  @Test func renderAndPickWithServerShowTheServersTraffic() async throws {
    let view = ["--center", Self.crossing, "--zoom", "15", "--size", "320x200"]
    func render(_ server: String) async throws -> Data {
      let output = FileManager.default.temporaryDirectory.appendingPathComponent("s-\(UUID()).png")
      defer { try? FileManager.default.removeItem(at: output) }
      let result = await runTraffic(["render", "--server", server] + view + ["-o", output.path])
      #expect(result.status == .success, "\(result.errors)")
      return try Data(contentsOf: output)
    }
    var empty = Data()
    try await Self.withServer(withTraffic: false) { empty = try await render($0) }
    try await Self.withServer { server in
      // The flow lines and the accident's icon: not the empty background of a server
      // without traffic.
      let png = try await render(server)
      #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
      #expect(png != empty)
      let hit = await runTraffic(["pick", "--server", server] + view + ["--at", "160,100"])
      #expect(hit.status == .success, "\(hit.errors)")
      #expect(
        hit.output.hasPrefix("1 incident\n[accident, critical] acc at 52.0,"), "\(hit.output)")
    }
  }

  @Test(arguments: ["render", "pick"])
  func aServerThatCannotBeReachedEndsTheCommandWithStatus1(command: String) async throws {
    let output = FileManager.default.temporaryDirectory.appendingPathComponent("u-\(UUID()).png")
    defer { try? FileManager.default.removeItem(at: output) }
    // Port 1 on loopback: nothing listens there.
    let result = await runTraffic(
      [command, "--server", "http://127.0.0.1:1", "--center", Self.crossing, "--zoom", "15"]
        + (command == "render" ? ["-o", output.path] : ["--at", "400,300"]))
    #expect(result.status == .failure, "\(result)")
    #expect(result.output.isEmpty)
    #expect(
      result.errors.hasPrefix(
        "traffic \(command): Server unreachable: cannot reach http://127.0.0.1:1"),
      "\(result.errors)")
    #expect(result.errors.split(separator: "\n").count == 1)
    #expect(!FileManager.default.fileExists(atPath: output.path), "no picture is written")
  }

  @Test func aKeyTheServerRefusesIsAUsageError() async throws {
    try await Self.withServer(apiKeys: ["k1"]) { server in
      let result = await runTraffic([
        "pick", "--server", server, "--api-key", "wrong", "--center", Self.crossing, "--zoom",
        "15", "--at", "400,300",
      ])
      #expect(result.status == .usage, "\(result)")
      #expect(result.errors == "traffic pick: Authentication failed\n")
    }
  }

  @Test func aServerAndALocalNetworkAreNotBothTaken() async throws {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("n-\(UUID()).osm")
    defer { try? FileManager.default.removeItem(at: file) }
    try Data(
      """
      <osm version="0.6"><node id="1" lat="52" lon="13"/><node id="2" lat="52" lon="13.01"/>
      <way id="3"><nd ref="1"/><nd ref="2"/><tag k="highway" v="primary"/></way></osm>
      """.utf8
    ).write(to: file)
    let result = await runTraffic([
      "pick", "--server", "http://127.0.0.1:1", "--network", file.path, "--center",
      Self.crossing, "--zoom", "15", "--at", "400,300",
    ])
    #expect(result.status == .usage, "\(result)")
    #expect(result.errors.contains("give --network or --server, not both"), "\(result.errors)")
  }

  @Test(arguments: [
    (["render", "--zoom", "3", "-o", "/tmp/x.png"], "--center"),
    (["render", "--center", "47,9", "-o", "/tmp/x.png"], "--zoom"),
    (["render", "--center", "47,9", "--zoom", "30", "-o", "/tmp/x.png"], "--zoom expects"),
    (
      ["render", "--center", "47,9", "--zoom", "3", "--size", "0x10", "-o", "/tmp/x.png"], "--size"
    ),
    (
      ["render", "--center", "47,9", "--zoom", "3", "--features", "weather", "-o", "/tmp/x.png"],
      "--features"
    ),
    (
      ["render", "--center", "47,9", "--zoom", "3", "--flow-mode", "rainbow", "-o", "/tmp/x.png"],
      "--flow-mode"
    ),
    (["render", "--center", "47,9", "--zoom", "3"], "-o FILE.png"),
    (
      ["render", "--center", "47,9", "--zoom", "3", "-o", "/nonexistent/dir/x.png"], "cannot write"
    ),
    (["pick", "--center", "47,9", "--zoom", "3"], "--at"),
    (["pick", "--center", "47,9", "--zoom", "3", "--at", "1,1", "--rect", "0,5"], "--rect"),
    (
      ["pick", "--center", "47,9", "--zoom", "3", "--size", "256x256", "--at", "999,10"],
      "--at 999,10 lies outside the 256x256 image"
    ),
    (
      ["render", "--center", "47,9", "--zoom", "3", "--zoom", "4", "-o", "/tmp/x.png"],
      "--zoom is given more than once"
    ),
  ])
  func badArgumentsExitWith64(arguments: [String], message: String) async throws {
    let database = try Self.database()
    defer { TemporaryFiles.removeDatabase(database) }
    var withDatabase = arguments
    withDatabase.insert(contentsOf: ["--db", database], at: 1)
    let result = await runTraffic(withDatabase)
    #expect(result.status == .usage, "\(result)")
    #expect(result.errors.contains(message), "stderr was: \(result.errors)")
  }
}
