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
    // Standard input is spooled to a file first: PBF is read in two passes, and the kind of
    // file is told from its first bytes.
    var url = URL(fileURLWithPath: path)
    if path == "-" {
      url = FileManager.default.temporaryDirectory.appendingPathComponent(
        "traffic-stdin-\(UUID().uuidString)")
      do { try FileArguments.standardInput().write(to: url) } catch {
        throw UsageError("standard input: cannot spool it: \(FileArguments.reason(error))")
      }
    } else {
      try FileArguments.checkReadable(path)
    }
    defer { if path == "-" { try? FileManager.default.removeItem(at: url) } }
    do {
      return try NetworkFile.load(url, countryCode: countryCode, progress: progress)
    } catch {
      progress?.finish()
      guard path == "-" else { throw UsageError("\(path): \(error)") }
      let message = "\(error)".replacingOccurrences(of: url.path, with: "standard input")
        .replacingOccurrences(of: url.lastPathComponent, with: "standard input")
      throw UsageError("standard input: \(message)")
    }
  }
}
