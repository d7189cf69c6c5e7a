import Foundation
import Testing

@testable import traffic_bench

/// The accuracy harness's settings from the environment (`traffic-bench --accuracy`).
@Suite struct AccuracySettingsTests {
  @Test("without TRAFFIC_ACCURACY_HISTORY_DAYS the harness learns its three history days")
  func defaultHistory() throws {
    #expect(try AccuracyHarness.historyDays(environment: [:]) == [0.9, 1.0, 1.1])
  }

  @Test("N history days spread their demand levels evenly over the default range")
  func spreadHistory() throws {
    let five = try AccuracyHarness.historyDays(
      environment: ["TRAFFIC_ACCURACY_HISTORY_DAYS": "5"])
    #expect(five.count == 5)
    for (level, expected) in zip(five, [0.9, 0.95, 1.0, 1.05, 1.1]) {
      #expect(abs(level - expected) < 1e-12)
    }
    #expect(
      try AccuracyHarness.historyDays(environment: ["TRAFFIC_ACCURACY_HISTORY_DAYS": " 1"])
        == [1.0])
  }

  @Test(
    "a history that is not a whole number of days from 1 to 12 is a usage error naming it",
    arguments: ["0", "13", "-2", "three", "2.5", ""])
  func badHistory(_ text: String) {
    do {
      let levels = try AccuracyHarness.historyDays(
        environment: ["TRAFFIC_ACCURACY_HISTORY_DAYS": text])
      Issue.record("\(text) gave \(levels)")
    } catch let error as AccuracyError {
      #expect(error.isUsage)
      #expect(error.description.contains("TRAFFIC_ACCURACY_HISTORY_DAYS=\(text)"))
    } catch {
      Issue.record("unexpected \(error)")
    }
  }

  @Test("without TRAFFIC_ACCURACY_NETWORK every built-in network runs at its own peak rate")
  func everyNetwork() throws {
    let chosen = try AccuracyNetwork.selected(from: AccuracyHarness.networks, environment: [:])
    #expect(chosen.map(\.name) == ["Braunschweig", "Berlin", "Liechtenstein"])
    #expect(chosen.map(\.peakRate) == AccuracyHarness.networks.map(\.peakRate))
    let busier = try AccuracyNetwork.selected(
      from: AccuracyHarness.networks,
      environment: ["TRAFFIC_ACCURACY_NETWORK": "Ber", "TRAFFIC_ACCURACY_PEAK_RATE": "1.5"])
    #expect(busier.map(\.name) == ["Berlin"])
    #expect(busier.map(\.peakRate) == [1.5])
  }

  @Test("a network file of the user's is run under its own name at the rate asked")
  func userNetwork() throws {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("accuracy-settings-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let net = folder.appendingPathComponent("ring.net.xml")
    let osm = folder.appendingPathComponent("town.osm.bz2")
    for file in [net, osm] { try Data("<x/>".utf8).write(to: file) }
    let sumo = try AccuracyNetwork.selected(
      from: AccuracyHarness.networks, environment: ["TRAFFIC_ACCURACY_NETWORK": net.path])
    #expect(sumo.map(\.name) == ["ring"])
    #expect(sumo.map(\.peakRate) == [AccuracyNetwork.defaultPeakRate])
    guard case .sumoFile(let url)? = sumo.first?.source else {
      Issue.record("\(sumo) is not the user's SUMO network")
      return
    }
    #expect(url.path == net.path)
    let extract = try AccuracyNetwork.selected(
      from: AccuracyHarness.networks,
      environment: ["TRAFFIC_ACCURACY_NETWORK": osm.path, "TRAFFIC_ACCURACY_PEAK_RATE": "0.3"])
    #expect(extract.map(\.name) == ["town"])
    #expect(extract.map(\.peakRate) == [0.3])
    guard case .openStreetMap(let url)? = extract.first?.source else {
      Issue.record("\(extract) is not the user's OpenStreetMap extract")
      return
    }
    #expect(url.path == osm.path)
  }

  @Test(
    "a network that names nothing, a missing or unknown file, a bad rate: a usage error",
    arguments: [
      ("TRAFFIC_ACCURACY_NETWORK", "Paris", "names none of Braunschweig, Berlin, Liechtenstein"),
      ("TRAFFIC_ACCURACY_NETWORK", "/nonexistent/a.net.xml", "no readable file there"),
      ("TRAFFIC_ACCURACY_NETWORK", "/etc/hostname", "not a SUMO network"),
      ("TRAFFIC_ACCURACY_PEAK_RATE", "0", "is not a number of vehicles per second"),
      ("TRAFFIC_ACCURACY_PEAK_RATE", "fast", "is not a number of vehicles per second"),
    ])
  func badNetwork(_ name: String, _ value: String, _ expected: String) {
    do {
      let chosen = try AccuracyNetwork.selected(
        from: AccuracyHarness.networks, environment: [name: value])
      Issue.record("\(name)=\(value) gave \(chosen.map(\.name))")
    } catch let error as AccuracyError {
      #expect(error.isUsage)
      #expect(error.description.contains("\(name)=\(value)"))
      #expect(error.description.contains(expected), "\(error.description)")
    } catch {
      Issue.record("unexpected \(error)")
    }
  }
}
