import Foundation
import Roads

/// Road network files on the command line: OSM XML (`.osm`, `.osm.bz2`), OSM PBF
/// (`.osm.pbf`) or SUMO (`.net.xml`), recognised by name.
enum NetworkArguments {
  /// Imports the network in `path`.
  ///
  /// - Throws: `UsageError` naming the file and what is wrong with it.
  static func load(_ path: String, countryCode: String? = nil) throws(UsageError) -> RoadNetwork {
    let url = URL(fileURLWithPath: path)
    do {
      if path.hasSuffix(".net.xml") || path.hasSuffix(".net.xml.gz") {
        return try SUMONetworkImporter.importNetwork(from: url)
      }
      var options = OSMImportOptions()
      options.countryCode = countryCode
      return try OSMImporter.importNetwork(from: url, options: options)
    } catch {
      throw UsageError("\(path): \(error)")
    }
  }
}
