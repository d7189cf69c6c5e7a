import Foundation
import Geo
import Traffic
import TrafficRouting
import TrafficSQLite
import TrafficTestSupport

/// `traffic-bench --table STORE PLACES`: travel-time tables from every place to every place
/// of the file PLACES (`LAT,LNG;LAT,LNG...`, as `traffic table --from` takes them) on the
/// SQLite store's road network (a missing file is written first: 100 places at random
/// points of random segments open to cars, seed 54), timed through the public API (default options): the
/// store's opening, the routing hierarchy's build, then `calculateMatrix` three times
/// (the first customises the hierarchy at the departure's speeds, the others reuse it), and
/// once with the exact search per origin (the method of small tables, for comparison). One
/// JSON line per figure on standard output.
enum TableBenchmark {
  static func run(store: String, places: String) async throws {
    let clock = ContinuousClock()
    func seconds(_ duration: Duration) -> Double {
      Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
    }
    func report(_ name: String, _ value: Double, _ unit: String, extra: String = "") {
      print("{\"name\":\"\(name)\",\"value\":\(value),\"unit\":\"\(unit)\"\(extra)}")
      fflush(nil)
    }
    var engine: TrafficEngine?
    let opened = try clock.measure { engine = try TrafficEngine(databasePath: store) }
    guard let engine else { return }
    report("table: open store", seconds(opened), "s")
    if !FileManager.default.fileExists(atPath: places), let network = engine.roadNetwork {
      var generator = SeededGenerator(seed: 54)
      let open = network.segments.filter(\.isOpenToCars)
      let drawn = (0..<100).map { _ in
        let segment = open[Int.random(in: 0..<open.count, using: &generator)]
        let point = segment.geometry.coordinates(
          atDistance: Double.random(in: 0...1, using: &generator) * segment.lengthInMeters)
        return String(format: "%.6f,%.6f", point.latitude, point.longitude)
      }
      try drawn.joined(separator: ";").write(toFile: places, atomically: true, encoding: .utf8)
    }
    let text = try String(contentsOfFile: places, encoding: .utf8)
    let points = text.split(separator: ";").map { pair -> GeoCoordinates in
      let parts = pair.split(separator: ",").compactMap {
        Double($0.trimmingCharacters(in: .whitespacesAndNewlines))
      }
      return GeoCoordinates(uncheckedLatitude: parts[0], longitude: parts[1])
    }
    let router = RoutingEngine(trafficEngine: engine)
    let segments = engine.roadNetwork?.segments.count ?? 0
    let built = clock.measure {
      router.prepareBoundsInBackground()
      while !router.hasBounds { Thread.sleep(forTimeInterval: 0.01) }
    }
    report(
      "table: routing hierarchy build", seconds(built), "s", extra: ",\"segments\":\(segments)")
    let waypoints = points.map { Waypoint($0) }
    var last: RouteMatrix?
    for round in 1...3 {
      var matrix: RouteMatrix?
      let elapsed = try await clock.measure {
        matrix = try await router.calculateMatrix(origins: waypoints, destinations: waypoints)
      }
      let cells = matrix?.travelTimesInSeconds.joined().filter { $0 != nil }.count ?? 0
      report(
        "table: \(points.count) x \(points.count), calculateMatrix round \(round)",
        seconds(elapsed), "s", extra: ",\"cells_with_route\":\(cells)")
      last = matrix
      if round == 1, let customised = router.tableWeightsBuildSeconds {
        report("table: customisation at the departure (in round 1)", customised, "s")
      }
    }
    var exact: RouteMatrix?
    let elapsed = try clock.measure {
      exact = try router.matrix(
        origins: waypoints, destinations: waypoints, options: RouteOptions(), method: .exact)
    }
    let cells = exact?.travelTimesInSeconds.joined().filter { $0 != nil }.count ?? 0
    report(
      "table: \(points.count) x \(points.count), exact search per origin", seconds(elapsed), "s",
      extra: ",\"cells_with_route\":\(cells)")
    // How far the default table's cells are from the exact ones.
    guard let last, let exact else { return }
    var differing = 0
    var faster = 0
    var largest = 0.0
    for (a, b) in zip(last.travelTimesInSeconds.joined(), exact.travelTimesInSeconds.joined()) {
      guard let a, let b else {
        if (a == nil) != (b == nil) { differing += 1 }
        continue
      }
      if abs(a - b) > 1e-6 * max(1, b) {
        differing += 1
        if a < b { faster += 1 }
        largest = max(largest, abs(a - b) / max(b, 1))
      }
    }
    report(
      "table: cells differing from the exact search", Double(differing), "cells",
      extra: ",\"faster\":\(faster),\"largest_relative\":\(largest)")
  }
}
