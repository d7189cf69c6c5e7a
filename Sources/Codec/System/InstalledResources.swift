import Foundation

/// Where the files a module ships (the web map, the text catalogs, the demo's recording)
/// are found at run time: in `$TRAFFIC_RESOURCES/<folder>` when that variable names a
/// directory, else in the module's resource bundle, which SwiftPM builds beside the binary
/// and `make install` installs beside it, so that the binary finds them from its own
/// location whatever the working directory.
package enum InstalledResources {
  /// The environment variable that overrides the resource location.
  package static let environmentVariable = "TRAFFIC_RESOURCES"

  /// `$TRAFFIC_RESOURCES/<folder>`, when the variable is set and not empty.
  package static func overridden(_ folder: String) -> URL? {
    guard let root = ProcessInfo.processInfo.environment[environmentVariable], !root.isEmpty
    else { return nil }
    return URL(fileURLWithPath: root, isDirectory: true).appendingPathComponent(folder)
  }
}
