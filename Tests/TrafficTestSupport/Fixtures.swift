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

  /// A public sample file shipped with the repository under `Tests/Fixtures/` (see its
  /// `NOTICE` for each file's origin and licence): `osm/…`, `wzdx/…`, `schemas/…`.
  public static func sample(_ path: String) -> URL {
    repositoryRoot.appendingPathComponent("Tests/Fixtures/\(path)")
  }

  /// The Liechtenstein OpenStreetMap extract of 2013-08-03 (ODbL), `.osm.pbf` or `.osm.bz2`.
  public static func liechtenstein(_ extension: String = "osm.pbf") -> URL {
    sample("osm/liechtenstein-2013-08-03.\(`extension`)")
  }

  /// The development checkout's extra real-world samples (`../shared/fixtures` beside the
  /// project), or `nil` when it is absent, as in every public clone. Tests may add its files
  /// to what they cover, never depend on it.
  /// `TRAFFIC_TESTS_WITHOUT_SHARED=1` hides it, to run the suite as a public clone does.
  public static var shared: URL? {
    if ProcessInfo.processInfo.environment["TRAFFIC_TESTS_WITHOUT_SHARED"] == "1" { return nil }
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
