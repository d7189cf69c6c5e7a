import Foundation
import Testing
import Traffic
import TrafficDemo
import TrafficFeeds
import TrafficTestSupport

@testable import TrafficServer

/// The web map of the demo (`traffic serve --demo=static`, wired as the command wires it): the
/// demo's four incidents, polled from the feed files it writes, appear on the map and in its
/// list with their German texts, and flow moves while the recorded probes play. A screenshot
/// goes to `.build/test-output/webmap-demo.png`.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct DemoBrowserTests {
  @Test func theDemoShowsItsIncidentsAndMovingFlow() async throws {
    try DebianFile.require(.chromium, .leaflet, .a10kwNetwork)
    let scenario = try DemoScenario()
    let clock = try DemoClock(speedFactor: 60)
    let engine = try TrafficEngine(
      store: InMemoryTrafficStore(), clock: { clock.now() }, network: scenario.network)
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("demo-\(UUID().uuidString)", isDirectory: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let feeds = try scenario.writeFeeds(to: folder, now: clock.now())
    let poller = FeedPoller(
      feeds: feeds.map { $0.pollerFeed(intervalInSeconds: 60) }, engine: engine)
    for feed in feeds { await poller.poll(feed.name) }
    #expect(engine.incidentCount == 4)
    let replay = try RecordedProbeStream(
      recordingURL: RecordedProbeStream.defaultRecordingURL,
      engine: engine, clock: clock)
    replay.start()
    defer { replay.stop() }
    let server = try TrafficServer(
      engine: engine, configuration: ServerConfiguration(port: 0, accessLog: .none),
      poller: poller)
    try server.start()
    defer { server.stop() }
    let port = try #require(server.port)

    // Flow moves: live values appear and change while the recording plays.
    let area = try GeoCircle(
      center: scenario.roadworksSegment.geometry.vertices[0], radiusInMeters: 3_000)
    try await Task.sleep(for: .seconds(3))
    let first = try engine.flow(inside: area, options: TrafficFlowQueryOptions())
    try await Task.sleep(for: .seconds(3))
    let second = try engine.flow(inside: area, options: TrafficFlowQueryOptions())
    #expect(second.contains { $0.confidence > 0.7 }, "no live flow")
    #expect(
      first.map(\.speedInMetersPerSecond) != second.map(\.speedInMetersPerSecond),
      "flow did not move")

    try FileManager.default.createDirectory(
      at: WebMapBrowserTests.outputFolder, withIntermediateDirectories: true)
    let profile = FileManager.default.temporaryDirectory
      .appendingPathComponent("demo-chromium-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: profile) }
    let browser = try ChromiumSession(
      executable: DebianFile.chromium.path, profile: profile,
      log: WebMapBrowserTests.outputFolder.appendingPathComponent("chromium-demo.log"),
      width: WebMapBrowserTests.width, height: WebMapBrowserTests.height)
    defer { browser.terminate() }
    try await browser.openPage(width: WebMapBrowserTests.width, height: WebMapBrowserTests.height)
    try await browser.send(
      "Page.navigate", ["url": "http://127.0.0.1:\(port)/?lang=de-DE"], timeoutSeconds: 15)
    try await browser.waitFor("window.trafficMap && trafficMap.tilesLoaded()", what: "tiles")
    _ = try await browser.evaluate("trafficMap.searchAround().then(() => true)")
    let listed =
      try await browser.evaluate("document.getElementById('results').innerText") as? String ?? ""
    #expect(listed.contains("Baustelle"), "list: \(listed)")
    #expect(listed.contains("Unfall"), "list: \(listed)")
    #expect(listed.contains("Sperrung") || listed.contains("gesperrt"), "list: \(listed)")
    let image = try await browser.screenshot()
    try image.write(to: WebMapBrowserTests.outputFolder.appendingPathComponent("webmap-demo.png"))
  }
}
