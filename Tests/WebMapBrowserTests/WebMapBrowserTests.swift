import Foundation
import Roads
import Testing
import Traffic
import TrafficRouting
import TrafficTestSupport

@testable import TrafficServer

/// The web map in a real browser: a server on loopback with a road network, flow and
/// incidents; headless Chromium loads `/`, waits for the tiles, clicks an incident and the
/// popup must show the incident's description in the language chosen; a screenshot is saved
/// to `.build/test-output/webmap.png`.
///
/// Needs Debian's `chromium` and `libjs-leaflet`; without them the test fails naming the
/// package (it never passes because something was missing).
@Suite(.serialized, .timeLimit(.minutes(1)))
struct WebMapBrowserTests {
  static let width = 1200
  static let height = 800

  /// The package's root, from this file's path.
  static var packageRoot: URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
  }

  static var outputFolder: URL {
    packageRoot.appendingPathComponent(".build/test-output", isDirectory: true)
  }

  @Test func clickingAnIncidentShowsItsDescriptionInTheChosenLanguage() async throws {
    try DebianFile.require(.chromium, .leaflet)
    let fixture = try WebMapFixture.make()
    let server = try TrafficServer(
      engine: fixture.engine,
      configuration: ServerConfiguration(host: "127.0.0.1", port: 0, accessLog: .none))
    try server.start()
    defer { server.stop() }
    let port = try #require(server.port)

    try FileManager.default.createDirectory(
      at: Self.outputFolder, withIntermediateDirectories: true)
    let profile = FileManager.default.temporaryDirectory
      .appendingPathComponent("webmap-chromium-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: profile) }
    let browser = try ChromiumSession(
      executable: DebianFile.chromium.path, profile: profile,
      log: Self.outputFolder.appendingPathComponent("chromium.log"), width: Self.width,
      height: Self.height)
    defer { browser.terminate() }

    try await browser.openPage(width: Self.width, height: Self.height)
    try await browser.send(
      "Page.navigate", ["url": "http://127.0.0.1:\(port)/?lang=de-DE"], timeoutSeconds: 15)
    try await browser.waitFor("window.trafficMap && trafficMap.tilesLoaded()", what: "tiles")
    let tileCount =
      try await browser.evaluate(
        "document.querySelectorAll('img.leaflet-tile-loaded').length") as? Int ?? 0
    #expect(tileCount >= 3, "loaded tiles: \(tileCount)")
    let language = try await browser.evaluate("document.getElementById('language').value")
    #expect(language as? String == "de-DE")

    // Bring the incident into a close view, then click its middle like a person would.
    let target = fixture.clickPoint
    _ = try await browser.evaluate(
      "void trafficMap.map.setView([\(target.latitude), \(target.longitude)], 15, {animate: false})"
    )
    try await browser.waitFor("trafficMap.tilesLoaded()", what: "tiles after zooming in")
    let point = try #require(
      try await browser.evaluate(
        """
        (() => {
          const p = trafficMap.map.latLngToContainerPoint([\(target.latitude), \(target.longitude)]);
          const r = trafficMap.map.getContainer().getBoundingClientRect();
          return [p.x + r.left, p.y + r.top];
        })()
        """) as? [Double])
    try #require(point.count == 2)
    try await browser.click(x: point[0], y: point[1])
    try await browser.waitFor(
      "document.querySelector('.leaflet-popup-content .description')", what: "the popup")
    let popup =
      try await browser.evaluate(
        "document.querySelector('.leaflet-popup-content').innerText") as? String ?? ""
    #expect(popup.contains(fixture.germanDescription), "popup: \(popup)")
    #expect(!popup.contains(fixture.englishDescription), "popup: \(popup)")
    let shownId =
      try await browser.evaluate(
        "document.querySelector('.incident-popup').dataset.originalId") as? String
    #expect(shownId == fixture.clickedIncidentId)

    // The popup offers routes from and to the clicked place.
    let routeButtons =
      try await browser.evaluate(
        "document.querySelectorAll('.leaflet-popup-content [data-route]').length") as? Int
    #expect(routeButtons == 2)

    // A route on the live traffic between two places the engine can route (some roads of the
    // fixture are blocked): drawn in spans, its ETA in the status.
    let router = RoutingEngine(trafficEngine: fixture.engine)
    let network = try #require(fixture.engine.roadNetwork)
    var ends: (GeoCoordinates, GeoCoordinates)?
    for segment in network.segments.sorted(by: { $0.lengthInMeters > $1.lengthInMeters })
    where segment.lengthInMeters > 300 {
      let from = segment.geometry.coordinates(atDistance: 20)
      let to = segment.geometry.coordinates(atDistance: segment.lengthInMeters - 20)
      if (try? await router.calculateRoute(from: from, to: to)) != nil {
        ends = (from, to)
        break
      }
    }
    let (from, to) = try #require(ends)
    let answered =
      try await browser.evaluate(
        "trafficMap.route([\(from.latitude), \(from.longitude)], [\(to.latitude), \(to.longitude)])"
          + ".then((body) => !!body)")
      as? Bool
    #expect(answered == true)
    let spans =
      try await browser.evaluate("document.querySelectorAll('path.route-span').length") as? Int
      ?? 0
    #expect(spans >= 1, "route spans drawn: \(spans)")
    let status =
      try await browser.evaluate("document.getElementById('status').textContent") as? String
      ?? ""
    #expect(status.contains("route ") && status.contains(" km, "), "status: \(status)")
    _ = try await browser.evaluate("void trafficMap.routeLayer.clearLayers()")

    // A route that turns: a marker at each maneuver between departure and arrival.
    var turning: (GeoCoordinates, GeoCoordinates, Int)?
    let long = network.segments.filter { $0.lengthInMeters > 200 && $0.isOpenToCars }
    for (a, b) in zip(long, long.dropFirst(7)) where turning == nil {
      let from = a.geometry.coordinates(atDistance: a.lengthInMeters / 2)
      let to = b.geometry.coordinates(atDistance: b.lengthInMeters / 2)
      guard let route = try? await router.calculateRoute(from: from, to: to).first else {
        continue
      }
      let inner = route.sections[0].maneuvers.filter {
        $0.action != .depart && $0.action != .arrive
      }
      if !inner.isEmpty { turning = (from, to, inner.count) }
    }
    let (start, end, maneuvers) = try #require(turning)
    _ = try await browser.evaluate(
      "trafficMap.route([\(start.latitude), \(start.longitude)], [\(end.latitude), \(end.longitude)])"
        + ".then((body) => !!body)")
    let markers =
      try await browser.evaluate("document.querySelectorAll('path.route-maneuver').length")
      as? Int ?? -1
    #expect(markers == maneuvers, "maneuver markers: \(markers) of \(maneuvers)")
    // The directions in the panel, departure and arrival included, in the map's language
    // (German, chosen above).
    let listed =
      try await browser.evaluate("document.querySelectorAll('#directions li').length") as? Int
      ?? -1
    #expect(listed == maneuvers + 2, "directions listed: \(listed)")
    let first =
      try await browser.evaluate(
        "(document.querySelector('#directions li') || {}).textContent || ''") as? String ?? ""
    #expect(first.hasPrefix("Fahren Sie Richtung"), "first direction: \(first)")
    _ = try await browser.evaluate("void trafficMap.routeLayer.clearLayers()")

    // The list around the map's centre (the click) starts with the same incident.
    _ = try await browser.evaluate("trafficMap.searchAround().then(() => true)")
    let firstListed =
      try await browser.evaluate(
        "(document.querySelector('#results li') || {}).innerText || ''") as? String ?? ""
    #expect(firstListed.contains(fixture.germanDescription), "list: \(firstListed)")

    // Let the highlight settle, then keep a picture of the map for people to look at.
    try await browser.waitFor("trafficMap.tilesLoaded()", what: "tiles before the screenshot")
    try await Task.sleep(for: .milliseconds(300))
    let image = try await browser.screenshot()
    #expect(image.starts(with: [0x89, 0x50, 0x4E, 0x47]))
    try image.write(to: Self.outputFolder.appendingPathComponent("webmap.png"))
  }
}
