import Foundation

/// The region-size benchmarks of issue 15 (`traffic-bench --scale`): the release `traffic`
/// binary as users run it, on a generated region, by the scripts in `bench/` that start,
/// feed and stop its processes (`scale.sh`: 1,000,000 work zones imported, served, pushed
/// to and queried; `scale_postgres.sh`: the same on two PostgreSQL nodes; `scale_flow.sh`:
/// 2M road segments, probes, flow and routes). They run from the project's root, one after
/// another; their figure lines go to standard output as they come.
enum RegionBenchmarks {
  static let scripts = ["bench/scale.sh", "bench/scale_postgres.sh", "bench/scale_flow.sh"]

  /// Runs every script; returns the names of those that failed. Throws when the working
  /// directory is not the project's root (the scripts are not there).
  static func run(note: (String) -> Void) throws -> [String] {
    let root = FileManager.default.currentDirectoryPath
    var failed: [String] = []
    for script in scripts {
      let path = root + "/" + script
      guard FileManager.default.isExecutableFile(atPath: path) else {
        throw RegionBenchmarkError.notInProjectRoot(path)
      }
      note("running \(script)")
      let process = Process()
      process.executableURL = URL(fileURLWithPath: path)
      try process.run()
      process.waitUntilExit()
      if process.terminationStatus != 0 {
        failed.append("\(script) exited with status \(process.terminationStatus)")
      }
    }
    return failed
  }
}

enum RegionBenchmarkError: Error, CustomStringConvertible {
  case notInProjectRoot(String)

  var description: String {
    switch self {
    case .notInProjectRoot(let path):
      "--scale runs the region benchmarks from the project's root: \(path) is not there"
    }
  }
}
