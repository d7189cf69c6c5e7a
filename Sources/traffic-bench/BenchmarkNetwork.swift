import Foundation
import Roads
import Synchronization

/// The road networks of the flow and map benchmarks: files of the machine, skipped with a
/// note when absent (they are not part of the repository).
enum BenchmarkNetwork {
  /// SUMO's "A10 Kreuz West" game scenario (Amsterdam's ring road and the streets around
  /// its western junction), shipped by the `sumo-tools` Debian package.
  static let a10KreuzWestPath = "/usr/share/sumo/tools/game/A10KW/osm.net.xml"

  /// OpenStreetMap's Liechtenstein extract of 2013-08-03 (Geofabrik), in the shared
  /// fixtures beside the repository: `../shared/fixtures/osm` from the working directory.
  static var liechtensteinURL: URL {
    URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
      .deletingLastPathComponent()
      .appendingPathComponent("shared/fixtures/osm/liechtenstein-2013-08-03.osm.pbf")
  }

  /// Imports the A10 Kreuz West network with `SUMONetworkImporter`, reporting the time
  /// (`network.sumo-import`).
  ///
  /// - Parameters:
  ///   - report: Receives the import time.
  ///   - note: Receives a sentence when the file is absent.
  /// - Returns: The network, or `nil` when the file is absent.
  /// - Throws: `RoadsError` when the file cannot be read.
  static func loadA10KreuzWest(
    report: (Measurement) -> Void, note: (String) -> Void
  ) throws -> RoadNetwork? {
    guard FileManager.default.isReadableFile(atPath: a10KreuzWestPath) else {
      note("\(a10KreuzWestPath) is absent (apt-get install sumo-tools): flow and map skipped")
      return nil
    }
    let url = URL(fileURLWithPath: a10KreuzWestPath)
    let (network, time) = try timed { try SUMONetworkImporter.importNetwork(from: url) }
    report(
      Measurement(
        name: "network.sumo-import", value: time, unit: "ms", n: network.segments.count,
        flatbushMilliseconds: nil))
    return network
  }

  /// Imports Liechtenstein's OpenStreetMap extract with `OSMImporter` three times,
  /// reporting the median time (`network.osm-import-liechtenstein`).
  ///
  /// - Parameters:
  ///   - report: Receives the import time.
  ///   - note: Receives a sentence when the file is absent.
  /// - Returns: The network, or `nil` when the file is absent.
  /// - Throws: `RoadsError` when the file cannot be read.
  static func loadLiechtenstein(
    report: (Measurement) -> Void, note: (String) -> Void
  ) throws -> RoadNetwork? {
    let url = liechtensteinURL
    guard FileManager.default.isReadableFile(atPath: url.path) else {
      note("\(url.path) is absent: the OSM import is skipped, the map uses A10 Kreuz West")
      return nil
    }
    var network: RoadNetwork?
    var times: [Double] = []
    for _ in 0..<3 {
      let imported = try timed { try OSMImporter.importNetwork(from: url) }
      network = imported.result
      times.append(imported.milliseconds)
    }
    guard let network else { return nil }
    let bytes = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? Int
    report(
      Measurement(
        name: "network.osm-import-liechtenstein", value: times.sorted()[1], unit: "ms",
        n: network.segments.count, flatbushMilliseconds: nil,
        reference: "\(rounded(Double(bytes ?? 0) / 1e6)) MB PBF, \(network.nodes.count) nodes"))
    return network
  }
}

/// A clock the benchmark sets: the engine's "now" follows the synthetic probes' time, as it
/// would follow real time while they arrive.
final class BenchmarkClock: Sendable {
  private let current: Mutex<Date>

  /// Creates a clock showing `time`.
  init(_ time: Date) { current = Mutex(time) }

  /// The time shown.
  var now: Date { current.withLock { $0 } }

  /// Sets the time shown.
  func set(_ time: Date) { current.withLock { $0 = time } }
}
