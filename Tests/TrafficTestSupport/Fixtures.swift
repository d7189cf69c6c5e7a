import Foundation

/// Locations of test data, resolved from this source file so that tests run from any
/// working directory.
public enum Fixtures {
  /// The repository root.
  public static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  /// A file under `Tests/<suite>/Vectors/`.
  public static func vectors(_ suite: String, _ name: String) -> URL {
    repositoryRoot.appendingPathComponent("Tests/\(suite)/Vectors/\(name)")
  }

  /// The shared real-world fixtures folder (`../shared/fixtures` beside the project), or
  /// `nil` when it is absent.
  public static var shared: URL? {
    let url = repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/fixtures")
    return FileManager.default.fileExists(atPath: url.path) ? url : nil
  }
}

/// Clean-up of the files tests write to the temporary directory.
public enum TemporaryFiles {
  /// Removes a SQLite database with its write-ahead log and shared-memory files.
  public static func removeDatabase(_ path: String) {
    for suffix in ["", "-wal", "-shm", "-journal"] {
      try? FileManager.default.removeItem(atPath: path + suffix)
    }
  }
}
