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

  /// `$TRAFFIC_RESOURCES/<name>` when set, else what `inBundle` finds in the module's
  /// resource bundle (`Bundle.module...`), asked only when `bundlesAreReachable`.
  package static func locate(_ name: String, inBundle: () -> URL?) -> URL? {
    overridden(name) ?? (bundlesAreReachable ? inBundle() : nil)
  }

  /// Whether `Bundle.module` (SwiftPM's accessor, which starts from `Bundle.main`) may be
  /// asked: Foundation traps making its main bundle when this process may not search the
  /// directory of its own executable (a user running a binary from a folder they cannot
  /// list), so then the resources are missing rather than the process crashed.
  package static var bundlesAreReachable: Bool {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard count > 0 else { return false }
    let executable = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let directory = URL(fileURLWithPath: executable).deletingLastPathComponent().path
    return access(directory, X_OK) == 0 && access(executable, R_OK) == 0
  }
}
