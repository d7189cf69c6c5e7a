import Foundation
import Roads
import Synchronization

/// The road networks of the flow and map benchmarks: files of the machine, not part of the
/// repository. A10KW comes from a Debian package that `make bench` installs, so its absence
/// is a failure (a skipped benchmark would hide a package missing from the Makefile's list);
/// the Liechtenstein extract ships in `Tests/Fixtures/osm`.
enum BenchmarkNetwork {
  /// SUMO's A10KW game scenario (a junction of the A10 Berliner Ring near Königs
  /// Wusterhausen, south-east of Berlin's centre, and the streets around it), shipped by the
  /// `sumo-tools` Debian package.
  static let a10KWPath = "/usr/share/sumo/tools/game/A10KW/osm.net.xml"

  /// OpenStreetMap's Liechtenstein extract of 2013-08-03 (© OpenStreetMap contributors,
  /// ODbL), shipped with the repository in `Tests/Fixtures/osm` (found from the working
  /// directory, the repository root where `make bench` runs).
  static var liechtensteinURL: URL {
    URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
      .appendingPathComponent("Tests/Fixtures/osm/liechtenstein-2013-08-03.osm.pbf")
  }

  /// Imports the A10KW network with `SUMONetworkImporter`, reporting the time
  /// (`network.sumo-import`).
  ///
  /// - Parameters:
  ///   - report: Receives the import time.
  /// - Returns: The network.
  /// - Throws: ``MissingPackageFile`` when the file is absent, `RoadsError` when it cannot be
  ///   read.
  static func loadA10KW(report: (Measurement) -> Void) throws -> RoadNetwork {
    guard FileManager.default.isReadableFile(atPath: a10KWPath) else {
      throw MissingPackageFile(path: a10KWPath, package: "sumo-tools")
    }
    let url = URL(fileURLWithPath: a10KWPath)
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
      note("\(url.path) is absent: the OSM import is skipped, the map uses A10KW")
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

/// A file of a Debian package that a benchmark needs is absent.
struct MissingPackageFile: Error, CustomStringConvertible {
  /// The absent file.
  var path: String
  /// The Debian package that installs it.
  var package: String

  var description: String {
    "\(path) is missing: install Debian's \(package) package (apt-get install \(package)); "
      + "`make bench` installs every package the benchmarks need"
  }
}
