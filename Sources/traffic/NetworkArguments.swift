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
    let shown = path == "-" ? "standard input" : path
    // Standard input, a FIFO or `<(…)` is spooled to a file first: PBF is read in two
    // passes, and the kind of file is told from its first bytes (each a read of its own).
    let spooled = path == "-" || FileArguments.kind(path) == .other
    var url = URL(fileURLWithPath: path)
    if spooled {
      let data = try FileArguments.contents(path)
      url = FileManager.default.temporaryDirectory.appendingPathComponent(
        "traffic-input-\(UUID().uuidString)")
      do { try data.write(to: url) } catch {
        throw UsageError("\(shown): cannot spool it: \(FileArguments.reason(error))")
      }
    } else {
      try FileArguments.checkReadable(path)
    }
    defer { if spooled { try? FileManager.default.removeItem(at: url) } }
    do {
      return try NetworkFile.load(url, countryCode: countryCode, progress: progress)
    } catch {
      progress?.finish()
      // The file named once, with the formats it is none of.
      var message = "\(error)"
      if case .unrecognized(_, let reason) = error {
        message = "\(RoadsError.unrecognizedFormat): \(reason)"
      }
      guard spooled else { throw UsageError("\(path): \(message)") }
      message = message.replacingOccurrences(of: url.path, with: shown)
        .replacingOccurrences(of: url.lastPathComponent, with: shown)
      throw UsageError("\(shown): \(message)")
    }
  }
}
