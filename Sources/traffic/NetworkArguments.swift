import Foundation
import Roads

/// Road network files on the command line: OSM XML (`.osm`, `.osm.bz2`), OSM PBF
/// (`.osm.pbf`) or SUMO (`.net.xml`), recognised by name.
enum NetworkArguments {
  /// Imports the network in `path`.
  ///
  /// - Throws: `UsageError` naming the file and what is wrong with it.
  static func load(_ path: String, countryCode: String? = nil) throws(UsageError) -> RoadNetwork {
    try loadReporting(path, countryCode: countryCode).network
  }

  /// Imports the network in `path`, with what the import left out (OpenStreetMap files).
  ///
  /// - Throws: `UsageError` naming the file and what is wrong with it.
  static func loadReporting(
    _ path: String, countryCode: String? = nil
  ) throws(UsageError) -> (network: RoadNetwork, report: OSMImportReport?) {
    let url = URL(fileURLWithPath: path)
    do {
      if path.hasSuffix(".net.xml") || path.hasSuffix(".net.xml.gz") {
        return (try SUMONetworkImporter.importNetwork(from: url), nil)
      }
      var options = OSMImportOptions()
      options.countryCode = countryCode
      let result = try OSMImporter.importNetworkReporting(from: url, options: options)
      return (result.network, result.report)
    } catch {
      throw UsageError("\(path): \(error)")
    }
  }
}
