import Codec
import Foundation
import Roads

/// Road network files on the command line (see `NetworkFile`).
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
    _ path: String, countryCode: String? = nil, progress: ProgressReporter? = nil
  ) throws(UsageError) -> (network: RoadNetwork, report: OSMImportReport?) {
    try FileArguments.checkReadable(path)
    do {
      return try NetworkFile.load(
        URL(fileURLWithPath: path), countryCode: countryCode, progress: progress)
    } catch {
      progress?.finish()
      throw UsageError("\(path): \(error)")
    }
  }
}
