import Foundation
import Synchronization
import Testing
import TrafficTestSupport

@testable import TrafficPostgres

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Several `traffic serve` processes on one PostgreSQL database: what one node imports,
/// every node serves within a second, probes one node receives show in every node's flow,
/// and a node killed with SIGKILL loses nothing that was acknowledged.
@Suite(.serialized) struct MultiNodeTests {
  /// One `traffic serve --postgres` child process.
  final class Node: @unchecked Sendable {
    // @unchecked: `process` is set once in init and only read afterwards.
    let process = Process()
    let port: Int
    /// The node's standard error (its access log), shown when a test fails.
    var logPath = ""

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    init(databaseURL: String, network: String? = nil) async throws {
      let binary = try #require(Self.trafficBinary(), "the traffic executable was not built")
      process.executableURL = binary
      process.arguments =
        ["serve", "--postgres", databaseURL, "--port", "0", "--threads", "2"]
        + (network.map { ["--network", $0] } ?? [])
      let output = Pipe()
      process.standardOutput = output
      let log = FileManager.default.temporaryDirectory.appendingPathComponent("node-\(UUID()).log")
      _ = FileManager.default.createFile(atPath: log.path, contents: nil)
      logPath = log.path
      process.standardError = FileHandle(forWritingAtPath: log.path) ?? FileHandle.nullDevice
      let line = ListeningLine(output)
      try process.run()
      let found = await line.port()
      port = try #require(found, "traffic serve did not start: \(line.printed)")
    }

    func kill(_ signal: Int32) {
      Foundation.kill(process.processIdentifier, signal)
      process.waitUntilExit()
    }

    static func trafficBinary() -> URL? {
      let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
      let candidates = [
        executable.deletingLastPathComponent(), Bundle.main.bundleURL.deletingLastPathComponent(),
        Fixtures.repositoryRoot.appendingPathComponent(".build/debug"),
      ]
      return candidates.map { $0.appendingPathComponent("traffic") }
        .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    func request(
      _ path: String, method: String = "GET", body: Data? = nil
    ) async throws
      -> (status: Int, body: Data, retryAfter: String?)
    {
      var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(port)\(path)")))
      request.httpMethod = method
      request.httpBody = body
      let (data, response) = try await URLSession.shared.data(for: request)
      let http = response as? HTTPURLResponse
      return (http?.statusCode ?? 0, data, http?.value(forHTTPHeaderField: "Retry-After"))
    }
  }

  static func freshDatabase() throws -> String {
    let cluster = try PostgresCluster.shared()
    let schema =
      "multinode_\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: ""))"
    try PostgresAdmin.run("CREATE SCHEMA \(schema)", url: cluster.url)
    return "\(cluster.url)?options=-csearch_path%3D\(schema)%2Cpublic"
  }

  static let feed = Fixtures.repositoryRoot.appendingPathComponent(
    "Tests/TrafficFeedsTests/Fixtures/here-v7/incidents.json")

  @Test func whatOneNodeImportsTheOtherServesWithinASecond() async throws {
    let database = try Self.freshDatabase()
    let a = try await Node(databaseURL: database)
    let b = try await Node(databaseURL: database)
    defer {
      a.kill(SIGTERM)
      b.kill(SIGTERM)
    }
    #expect(try await b.request("/v7/incidents/555").status == 404)
    let pushed = try await a.request(
      "/v1/feeds/here-v7?source=upstream", method: "POST", body: try Data(contentsOf: Self.feed))
    #expect(pushed.status == 200, "\(String(decoding: pushed.body, as: UTF8.self))")
    let acknowledged = ContinuousClock.now
    var seenAfter: Duration?
    while ContinuousClock.now - acknowledged < .seconds(5) {
      if try await b.request("/v7/incidents/555").status == 200 {
        seenAfter = ContinuousClock.now - acknowledged
        break
      }
      try await Task.sleep(for: .milliseconds(20))
    }
    let delay = try #require(
      seenAfter,
      "node B never served the incident.\nA: \(a.log.suffix(1500))\nB: \(b.log.suffix(1500))")
    #expect(delay < .seconds(1), "node B served it after \(delay)")
  }

  @Test func aNodeKilledWithSIGKILLLosesNothingAcknowledged() async throws {
    let database = try Self.freshDatabase()
    let a = try await Node(databaseURL: database)
    let pushed = try await a.request(
      "/v1/feeds/here-v7?source=upstream", method: "POST", body: try Data(contentsOf: Self.feed))
    #expect(pushed.status == 200)
    a.kill(SIGKILL)
    let restarted = try await Node(databaseURL: database)
    defer { restarted.kill(SIGTERM) }
    #expect(try await restarted.request("/v7/incidents/555").status == 200)
    #expect(try await restarted.request("/v7/incidents/3879526487457467809").status == 200)
  }

  static let crossing = Fixtures.repositoryRoot.appendingPathComponent(
    "Tests/RoadsTests/Fixtures/crossing.osm"
  ).path

  /// Four cars driving north on road 28 (limit 60 km/h) at 8 m/s, a position every 3 s.
  static func probes() -> Data {
    let now = Int(Date().timeIntervalSince1970)
    var lines = ["id,time,lat,lng,speed,heading"]
    for car in 0..<4 {
      for step in 0..<9 {
        let latitude = 47.0991 + Double(step) * 0.000216
        lines.append("car\(car),\(now - 300 + car * 20 + step * 3),\(latitude),9.5010,8,0")
      }
    }
    return Data((lines.joined(separator: "\n") + "\n").utf8)
  }

  /// The fastest live speed (confidence above 0.7) a node's `/v7/flow` shows around road
  /// 28, or `nil` when no segment has live values.
  static func liveSpeed(_ node: Node) async throws -> Double? {
    let answer = try await node.request("/v7/flow?in=circle:47.1,9.501;r=300")
    guard answer.status == 200,
      let object = try JSONSerialization.jsonObject(with: answer.body) as? [String: Any],
      let results = object["results"] as? [[String: Any]]
    else { return nil }
    return results.compactMap { result -> Double? in
      guard let flow = result["currentFlow"] as? [String: Any],
        (flow["confidence"] as? Double ?? 0) > 0.7
      else { return nil }
      return flow["speedUncapped"] as? Double
    }.max()
  }

  /// Polls `node`'s live speed until there is one or `seconds` pass.
  static func eventualSpeed(_ node: Node, within seconds: Double) async throws -> Double? {
    let start = ContinuousClock.now
    while ContinuousClock.now - start < .seconds(seconds) {
      if let speed = try await liveSpeed(node) { return speed }
      try await Task.sleep(for: .milliseconds(50))
    }
    return try await liveSpeed(node)
  }

  @Test func probesPostedToOneNodeShowInTheOthersFlowAndSurviveSIGKILL() async throws {
    let database = try Self.freshDatabase()
    let a = try await Node(databaseURL: database, network: Self.crossing)
    var b = try await Node(databaseURL: database, network: Self.crossing)
    #expect(try await Self.liveSpeed(b) == nil)
    let pushed = try await a.request("/v1/probes?flush=true", method: "POST", body: Self.probes())
    #expect(pushed.status == 200, "\(String(decoding: pushed.body, as: UTF8.self))")
    let acknowledged = ContinuousClock.now
    let onA = try #require(try await Self.liveSpeed(a), "node A shows no live flow: \(a.log)")
    #expect(abs(onA - 8) < 0.5)
    let onB = try #require(
      try await Self.eventualSpeed(b, within: 5),
      "node B never showed A's probes.\nA: \(a.log.suffix(1500))\nB: \(b.log.suffix(1500))")
    #expect(ContinuousClock.now - acknowledged < .seconds(2))
    #expect(abs(onB - onA) < 0.01)

    // B killed without a chance to save, restarted: the flow is back from the database.
    b.kill(SIGKILL)
    b = try await Node(databaseURL: database, network: Self.crossing)
    let restarted = try #require(try await Self.liveSpeed(b), "restarted B: \(b.log)")
    #expect(abs(restarted - onA) < 0.01)

    // Both killed: a node started afterwards still has it.
    a.kill(SIGKILL)
    b.kill(SIGKILL)
    let c = try await Node(databaseURL: database, network: Self.crossing)
    defer { c.kill(SIGTERM) }
    let onC = try #require(try await Self.liveSpeed(c), "node C: \(c.log)")
    #expect(abs(onC - onA) < 0.01)
  }

  /// Polls `node`'s log until it holds `text` or `seconds` pass.
  static func logs(_ node: Node, _ text: String, within seconds: Double) async throws -> Bool {
    let start = ContinuousClock.now
    while ContinuousClock.now - start < .seconds(seconds) {
      if node.log.contains(text) { return true }
      try await Task.sleep(for: .milliseconds(50))
    }
    return node.log.contains(text)
  }

  @Test func nodesSayWhenTheDatabaseGoesAndComesBackAndRefuseWritesMeanwhile() async throws {
    let cluster = try PostgresCluster.dedicated(durable: false)
    defer { cluster.stop() }
    let a = try await Node(databaseURL: cluster.url, network: Self.crossing)
    let b = try await Node(databaseURL: cluster.url, network: Self.crossing)
    defer {
      a.kill(SIGTERM)
      b.kill(SIGTERM)
    }
    let feed = try Data(contentsOf: Self.feed)
    #expect(
      try await a.request("/v1/feeds/here-v7?source=upstream", method: "POST", body: feed).status
        == 200)
    var served = false
    for _ in 0..<100 where !served {
      served = try await b.request("/v7/incidents/555").status == 200
      if !served { try await Task.sleep(for: .milliseconds(50)) }
    }
    #expect(served, "node B never served A's push: \(b.log.suffix(1500))")

    try cluster.stopServer()
    for node in [a, b] {
      #expect(
        try await Self.logs(node, "database lost:", within: 10),
        "no line says the database is gone: \(node.log.suffix(1500))")
    }
    // Writes: 503 with Retry-After, however many; reads answer from memory.
    for _ in 0..<3 {
      let push = try await a.request("/v1/feeds/here-v7?source=other", method: "POST", body: feed)
      #expect(push.status == 503, "\(String(decoding: push.body, as: UTF8.self))")
      #expect(push.retryAfter != nil)
      #expect(String(decoding: push.body, as: UTF8.self).contains("database is out of reach"))
    }
    let probes = try await a.request("/v1/probes", method: "POST", body: Self.probes())
    #expect(probes.status == 503, "\(String(decoding: probes.body, as: UTF8.self))")
    #expect(probes.retryAfter != nil)
    #expect(try await b.request("/v7/incidents/555").status == 200)
    #expect(try await a.request("/v7/flow?in=circle:47.1,9.501;r=300").status == 200)
    let ready = try await b.request("/readyz")
    #expect(ready.status == 200)
    #expect(String(decoding: ready.body, as: UTF8.self).contains("\"database\":\"unreachable\""))

    try await Task.sleep(for: .seconds(1))
    try cluster.startAgain()
    for node in [a, b] {
      #expect(
        try await Self.logs(node, "database back:", within: 10),
        "no line says the database is back: \(node.log.suffix(1500))")
      // One line each way, not one per failed request or reconnection attempt.
      #expect(node.log.components(separatedBy: "database lost:").count == 2, "\(node.log)")
      #expect(node.log.components(separatedBy: "database back:").count == 2)
    }
    let lost = a.log.split(separator: "\n").first { $0.contains("database lost:") } ?? ""
    #expect(lost.contains("127.0.0.1"), "\(lost)")
    #expect(
      String(decoding: try await b.request("/readyz").body, as: UTF8.self).contains(
        "\"database\":\"reachable\""))

    // A write after the outage reaches the other node; so do probes.
    let pushed = try await a.request(
      "/v1/feeds/here-v7?source=other", method: "POST",
      body: Data(
        String(decoding: feed, as: UTF8.self).replacingOccurrences(of: "555", with: "556").utf8))
    #expect(pushed.status == 200, "\(String(decoding: pushed.body, as: UTF8.self))")
    #expect(
      try await a.request("/v1/probes?flush=true", method: "POST", body: Self.probes()).status
        == 200)
    var seen = false
    for _ in 0..<100 where !seen {
      seen = try await b.request("/v7/incidents/556").status == 200
      if !seen { try await Task.sleep(for: .milliseconds(50)) }
    }
    #expect(seen, "node B never served A's push after the outage: \(b.log.suffix(1500))")
    #expect(try await Self.eventualSpeed(b, within: 5) != nil, "node B never showed A's probes")
  }
}
