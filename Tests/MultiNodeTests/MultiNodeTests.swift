import Foundation
import Synchronization
import Testing
import TrafficTestSupport

@testable import TrafficPostgres

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Several `traffic serve` processes on one PostgreSQL database: what one node imports,
/// every node serves within a second, and a node killed with SIGKILL loses nothing that was
/// acknowledged.
@Suite(.serialized) struct MultiNodeTests {
  /// One `traffic serve --postgres` child process.
  final class Node: @unchecked Sendable {
    // @unchecked: `process` is set once in init and only read afterwards.
    let process = Process()
    let port: Int
    /// The node's standard error (its access log), shown when a test fails.
    var logPath = ""

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    init(databaseURL: String) async throws {
      let binary = try #require(Self.trafficBinary(), "the traffic executable was not built")
      process.executableURL = binary
      process.arguments = ["serve", "--postgres", databaseURL, "--port", "0", "--threads", "2"]
      let output = Pipe()
      process.standardOutput = output
      let log = FileManager.default.temporaryDirectory.appendingPathComponent("node-\(UUID()).log")
      FileManager.default.createFile(atPath: log.path, contents: nil)
      logPath = log.path
      process.standardError = FileHandle(forWritingAtPath: log.path) ?? FileHandle.nullDevice
      let seen = Mutex("")
      let listening = AsyncStream<Int>.makeStream()
      output.fileHandleForReading.readabilityHandler = { handle in
        let chunk = handle.availableData
        if chunk.isEmpty {
          listening.continuation.finish()
          return
        }
        let text = seen.withLock { text -> String in
          text += String(decoding: chunk, as: UTF8.self)
          return text
        }
        if let range = text.range(of: "listening on http://127.0.0.1:") {
          let digits = text[range.upperBound...].prefix { $0.isNumber }
          if let port = Int(digits) { listening.continuation.yield(port) }
          listening.continuation.finish()
        }
      }
      try process.run()
      var found: Int?
      for await port in listening.stream {
        found = port
        break
      }
      port = try #require(found, "traffic serve did not start: \(seen.withLock { $0 })")
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
      -> (status: Int, body: Data)
    {
      var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(port)\(path)")))
      request.httpMethod = method
      request.httpBody = body
      let (data, response) = try await URLSession.shared.data(for: request)
      return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
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
}
