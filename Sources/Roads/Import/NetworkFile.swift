import Codec
import Foundation

/// Road network files, recognised by name: OpenStreetMap XML (`.osm`, `.osm.bz2`), PBF
/// (`.osm.pbf`) or SUMO (`.net.xml`, `.net.xml.gz`).
public enum NetworkFile {
  /// Imports the network in a file, with what an OpenStreetMap import left out.
  ///
  /// - Parameters:
  ///   - url: The file.
  ///   - countryCode: The ISO country of an OpenStreetMap extract, for default speed limits.
  /// - Returns: The network, and the import report of an OpenStreetMap file (`nil` for SUMO).
  /// - Throws: `RoadsError` naming the file and what is wrong with it.
  public static func load(
    _ url: URL, countryCode: String? = nil
  ) throws(RoadsError) -> (network: RoadNetwork, report: OSMImportReport?) {
    try load(url, countryCode: countryCode, progress: nil)
  }

  /// ``load(_:countryCode:)`` telling `progress` how far the reading got.
  package static func load(
    _ url: URL, countryCode: String?, progress: ProgressReporter?
  ) throws(RoadsError) -> (network: RoadNetwork, report: OSMImportReport?) {
    let name = url.lastPathComponent
    if name.hasSuffix(".net.xml") || name.hasSuffix(".net.xml.gz") {
      return (try SUMONetworkImporter.importNetwork(from: url, progress: progress), nil)
    }
    var options = OSMImportOptions()
    options.countryCode = countryCode
    let result = try OSMImporter.importNetworkReporting(
      from: url, options: options, progress: progress)
    return (result.network, result.report)
  }
}
