import Foundation

/// A file that a Debian package installs and a test needs.
///
/// `make test` installs every package of the Makefile's `TEST_PACKAGES` before it runs the
/// tests, so a missing file fails the test that needs it, naming the package: a test that
/// skipped instead would hide a package missing from the list (that is how `sumo-tools`
/// went unnoticed). Each path is written whole, as a constant, so that
/// `.ci/check-debian-deps` finds it and checks its package is in the list.
public struct DebianFile: Sendable, CustomStringConvertible {
  /// The absolute path of the file.
  public let path: String
  /// The Debian package that installs it.
  public let package: String

  /// A file of a Debian package.
  public init(_ path: String, package: String) {
    self.path = path
    self.package = package
  }

  /// The path.
  public var description: String { path }

  /// The file as a URL.
  public var url: URL { URL(fileURLWithPath: path) }

  /// Whether the file is there.
  public var isInstalled: Bool { FileManager.default.fileExists(atPath: path) }

  /// The path, after checking that the file is there.
  ///
  /// - Throws: ``DebianFileMissing`` naming the package when the file is absent.
  @discardableResult
  public func require() throws(DebianFileMissing) -> String {
    guard isInstalled else { throw DebianFileMissing(file: self) }
    return path
  }

  /// Checks that every file is there.
  ///
  /// - Throws: ``DebianFileMissing`` for the first absent file.
  public static func require(_ files: DebianFile...) throws(DebianFileMissing) {
    for file in files { try file.require() }
  }
}

/// A file a test needs is not installed.
public struct DebianFileMissing: Error, CustomStringConvertible {
  /// The absent file.
  public let file: DebianFile

  /// What is missing and how to install it.
  public var description: String {
    "\(file.path) is missing: install Debian's \(file.package) package "
      + "(apt-get install \(file.package)); `make test` installs every package the tests need"
  }
}

extension DebianFile {
  /// SUMO, the traffic simulator.
  public static let sumo = DebianFile("/usr/bin/sumo", package: "sumo")
  /// SUMO's network converter (OpenStreetMap to SUMO networks).
  public static let netconvert = DebianFile("/usr/bin/netconvert", package: "sumo")
  /// SUMO's road types for OpenStreetMap, which netconvert reads.
  public static let osmTypeMap = DebianFile(
    "/usr/share/sumo/data/typemap/osmNetconvert.typ.xml", package: "sumo-tools")
  /// SUMO's router, which finds which trips can be driven at all.
  public static let duarouter = DebianFile("/usr/bin/duarouter", package: "sumo")
  /// SUMO's A10KW game scenario: the A10 (Berliner Ring) junction south-east of Berlin.
  public static let a10kwNetwork = DebianFile(
    "/usr/share/sumo/tools/game/A10KW/osm.net.xml", package: "sumo-tools")
  /// The routes of the A10KW scenario, by vehicle class and part of the network.
  public static let a10kwRoutes = [
    "/usr/share/sumo/tools/game/A10KW/osm.passenger.rou.xml",
    "/usr/share/sumo/tools/game/A10KW/osm.truck.rou.xml",
    "/usr/share/sumo/tools/game/A10KW/osm.passenger_mw.rou.xml",
    "/usr/share/sumo/tools/game/A10KW/osm.truck_mw.rou.xml",
    "/usr/share/sumo/tools/game/A10KW/osm.passenger_mwb.rou.xml",
    "/usr/share/sumo/tools/game/A10KW/osm.truck_mwb.rou.xml",
    "/usr/share/sumo/tools/game/A10KW/extra.rou.xml",
  ].map { DebianFile($0, package: "sumo-tools") }
  /// SUMO's DRT game scenario: Berlin streets with tram tracks, footways and crossings.
  public static let drtNetwork = DebianFile(
    "/usr/share/sumo/tools/game/DRT/osm.net.xml", package: "sumo-tools")
  /// SUMO's highway game scenario: a motorway with ramps near Bremen.
  public static let highwayNetwork = DebianFile(
    "/usr/share/sumo/tools/game/highway/highway.net.xml", package: "sumo-tools")
  /// The routes of the highway scenario.
  public static let highwayRoutes = DebianFile(
    "/usr/share/sumo/tools/game/highway/highway.rou.xml", package: "sumo-tools")
  /// Braunschweig's road network (SUMO's bs3d game scenario), geo-referenced (UTM 32).
  public static let braunschweigNetwork = DebianFile(
    "/usr/share/sumo/tools/game/bs3d/bs.net.xml", package: "sumo-tools")
  /// SUMO's random trip generator.
  public static let randomTrips = DebianFile(
    "/usr/share/sumo/tools/randomTrips.py", package: "sumo-tools")
  /// The system Python, which runs SUMO's tools.
  public static let python = DebianFile("/usr/bin/python3", package: "python3")
  /// Headless Chromium for the web map tests.
  public static let chromium = DebianFile("/usr/bin/chromium", package: "chromium")
  /// Leaflet, which the web map loads.
  public static let leaflet = DebianFile(
    "/usr/share/javascript/leaflet/leaflet.js", package: "libjs-leaflet")
}
