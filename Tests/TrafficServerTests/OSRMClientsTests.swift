import Foundation
import Roads
import Testing
import Traffic
import TrafficTestSupport

@testable import TrafficServer

/// Real OSRM clients, unchanged, against the server on a loopback port with Liechtenstein's
/// roads (`Tests/Clients/osrm_clients.py`): the answers' shapes key by key beside the
/// official `osrm-routed` (MLD) on the same extract, routingpy's routes and tables, and
/// pyvroom solving 3 vehicles × 30 jobs whose durations grow when a jam is pushed as probes.
/// `make test` installs pyvroom and routingpy (python-tools) and OSRM (routing-tools).
@Suite struct OSRMClientsTests {
  static let tools = Fixtures.repositoryRoot.appendingPathComponent(".build/tools")

  /// `osrm-routed` serving the Liechtenstein extract (prepared for MLD in `directory`).
  static func startedOSRM(in directory: URL) async throws -> (Process, port: Int) {
    let bin = tools.appendingPathComponent("osrm/bin")
    let routed = bin.appendingPathComponent("osrm-routed")
    guard FileManager.default.isExecutableFile(atPath: routed.path) else {
      Issue.record("\(routed.path) is missing: run `make test` (its routing-tools target)")
      throw OpenAPIDocumentTests.MissingTool(name: "osrm-routed")
    }
    let extract = directory.appendingPathComponent("li.osm.pbf")
    try FileManager.default.copyItem(at: Fixtures.liechtenstein(), to: extract)
    let profile = tools.appendingPathComponent("osrm/share/profiles/car.lua").path
    for (step, arguments) in [
      ("osrm-extract", ["-p", profile, extract.path]), ("osrm-partition", ["li.osrm"]),
      ("osrm-customize", ["li.osrm"]),
    ] {
      let (status, output) = try await OpenAPIDocumentTests.run(
        bin.appendingPathComponent(step), arguments, in: directory, timeout: .seconds(300))
      try #require(status == 0, "\(step) failed:\n\(output.suffix(2_000))")
    }
    let port = try Self.freePort()
    let process = Process()
    process.executableURL = routed
    process.arguments = ["-a", "MLD", "-i", "127.0.0.1", "-p", String(port), "li.osrm"]
    process.currentDirectoryURL = directory
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    let nearest = try #require(URL(string: "http://127.0.0.1:\(port)/nearest/v1/car/9.52,47.14"))
    for _ in 0..<150 {
      if (try? Data(contentsOf: nearest)) != nil {
        return (process, port)
      }
      try await Task.sleep(for: .milliseconds(200))
    }
    process.terminate()
    Issue.record("osrm-routed did not answer within 30 s")
    throw OpenAPIDocumentTests.MissingTool(name: "osrm-routed")
  }

  static func freePort() throws -> Int {
    let probe = try TrafficServer(
      engine: TrafficEngine(store: InMemoryTrafficStore()),
      configuration: ServerConfiguration(port: 0, accessLog: .none))
    try probe.start()
    defer { probe.stop() }
    return try #require(probe.port)
  }

  @Test func pyvroomRoutingpyAndOSRMsOwnAnswersAgreeWithTheServer() async throws {
    let python = try OpenAPIDocumentTests.tool("python")
    let directory = try OpenAPIDocumentTests.scratch()
    defer { try? FileManager.default.removeItem(at: directory) }
    let (osrm, osrmPort) = try await Self.startedOSRM(in: directory)
    defer {
      osrm.terminate()
      osrm.waitUntilExit()
    }
    let roads: RoadNetwork = try #require(OSRMAPITests.network)
    let engine = try TrafficEngine(
      store: InMemoryTrafficStore(), clock: { Date() }, network: roads)
    let server = try TrafficServer(
      engine: engine, configuration: ServerConfiguration(port: 0, threads: 4, accessLog: .none))
    try server.start()
    defer { server.stop() }
    let port = try #require(server.port)
    let script = Fixtures.repositoryRoot.appendingPathComponent("Tests/Clients/osrm_clients.py")
    let (status, output) = try await OpenAPIDocumentTests.run(
      python, [script.path, "http://127.0.0.1:\(port)", "http://127.0.0.1:\(osrmPort)"],
      environment: ["NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"],
      in: directory, timeout: .seconds(300))
    #expect(status == 0, "the OSRM clients failed:\n\(output.suffix(6_000))")
    print(output.split(separator: "\n").filter { !$0.hasPrefix("  ") }.joined(separator: "\n"))

    // The README's VROOM example, as a reader runs it (its port made this server's).
    let readme = try String(
      contentsOf: Fixtures.repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
    let marker = try #require(readme.range(of: "<!-- readme-vroom"), "README has no VROOM example")
    let rest = readme[marker.upperBound...]
    let start = try #require(rest.range(of: "```python\n"))
    let end = try #require(rest[start.upperBound...].range(of: "```"))
    let example = rest[start.upperBound..<end.lowerBound].replacingOccurrences(
      of: "127.0.0.1:8080", with: "127.0.0.1:\(port)")
    let file = directory.appendingPathComponent("readme_vroom.py")
    try Data(example.utf8).write(to: file)
    let (exampleStatus, printed) = try await OpenAPIDocumentTests.run(
      python, [file.path], in: directory, timeout: .seconds(120))
    #expect(exampleStatus == 0, "the README's VROOM example failed:\n\(printed)")
    let line = /^[0-9]+ s with live traffic$/.anchorsMatchLineEndings()
    #expect(printed.contains(line), "\(printed)")
  }
}
