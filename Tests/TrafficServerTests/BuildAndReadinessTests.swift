import Codec
import Foundation
import Testing
import Traffic
import TrafficBuildInfo
import TrafficSQLite
import TrafficStoreContract
import TrafficTestSupport

@testable import TrafficServer

/// What an operator's probes read: the build in `/healthz` and `/metrics`, and `/readyz`
/// turning 200 only once the incidents serve from memory.
@Suite struct BuildAndReadinessTests {
  @Test func theBuildIsNamedInHealthAndMetrics() throws {
    #expect(BuildInfo.version.range(of: #"^\d+\.\d+\.\d+"#, options: .regularExpression) != nil)
    #expect(
      BuildInfo.revision == "unknown"
        || BuildInfo.revision.range(
          of: #"^[0-9a-f]{12}(-dirty)?$"#, options: .regularExpression) != nil,
      "\(BuildInfo.revision)")
    let server = try ServerFixtures.server()
    let health = try JSONParser.parse(server.handle(ServerFixtures.get("/healthz")).body)
    #expect(health["version"]?.string == BuildInfo.version)
    #expect(health["revision"]?.string == BuildInfo.revision)
    let metrics = server.handle(ServerFixtures.get("/metrics")).bodyText
    #expect(
      metrics.contains(
        "traffic_build_info{version=\"\(BuildInfo.version)\",revision=\"\(BuildInfo.revision)\"} 1\n"
      ))
    #expect(metrics.contains("# TYPE traffic_build_info gauge\n"))
  }

  @Test func readyOnlyOnceTheIncidentsHaveLoaded() throws {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("readyz-\(UUID().uuidString).sqlite").path
    defer { TemporaryFiles.removeDatabase(path) }
    let base = try SQLiteTrafficStore(path: path)
    try base.apply(IncidentBatch(upserts: try ServerFixtures.incidents()))
    let gated = BackgroundLoading.GatedStore(base)
    let engine = try TrafficEngine(
      store: gated, clock: { ServerFixtures.now }, loading: .inBackground)
    // Should the load never be released below, the gate opens after a while.
    DispatchQueue.global().asyncAfter(deadline: .now() + 120) { gated.gate.signal() }
    let server = try TrafficServer(engine: engine, configuration: ServerFixtures.quiet())

    let loading = server.handle(ServerFixtures.get("/readyz"))
    #expect(loading.status == 503)
    #expect(loading.headers["Retry-After"] == "1")
    #expect(try JSONParser.parse(loading.body)["status"]?.string == "loading")
    // Liveness does not wait for the data.
    #expect(server.handle(ServerFixtures.get("/healthz")).status == 200)

    gated.gate.signal()
    try engine.waitUntilLoaded()
    let ready = server.handle(ServerFixtures.get("/readyz"))
    #expect(ready.status == 200)
    #expect(ready.headers["Cache-Control"] == "no-store")
    let body = try JSONParser.parse(ready.body)
    #expect(body["status"]?.string == "ready")
    #expect(body["incidents"]?.int == 4)
  }
}
