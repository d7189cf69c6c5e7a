import Foundation
import Roads

/// Why the demo cannot start or run; each case says what is missing and what to do.
package enum DemoError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The demo road network is not installed at the path.
  case networkMissing(path: String)
  /// The network file exists but could not be imported.
  case networkUnreadable(path: String, reason: String)
  /// The network has no road of the kind a demo document needs.
  case noSuitableRoad(String)
  /// A file or directory could not be read or written.
  case io(path: String, reason: String)
  /// The SUMO executable is not installed at the path.
  case sumoMissing(path: String)
  /// SUMO could not be started or failed.
  case sumoFailed(String)
  /// The recorded probe file is absent.
  case recordingMissing(path: String)
  /// The recorded probe file could not be read.
  case recordingUnreadable(path: String, reason: String)
  /// A setting is out of range.
  case invalidArgument(String)

  /// A message for people, naming the file and the remedy.
  package var description: String {
    switch self {
    case .networkMissing(let path):
      return "the demo road network \(path) is missing; install Debian's sumo-tools package "
        + "(apt-get install sumo-tools), which ships it, or pass the path of another SUMO .net.xml"
    case .networkUnreadable(let path, let reason):
      return "the demo road network \(path) cannot be imported: \(reason)"
    case .noSuitableRoad(let what):
      return "the demo road network has no \(what)"
    case .io(let path, let reason):
      return "\(path): \(reason)"
    case .sumoMissing(let path):
      return "\(path) is not installed (apt-get install sumo); use the static demo, which "
        + "replays a recorded probe file, instead"
    case .sumoFailed(let reason):
      return "sumo: \(reason)"
    case .recordingMissing(let path):
      return "the recorded demo probes \(path) are missing"
    case .recordingUnreadable(let path, let reason):
      return "the recorded demo probes \(path) cannot be read: \(reason)"
    case .invalidArgument(let reason):
      return reason
    }
  }
}
