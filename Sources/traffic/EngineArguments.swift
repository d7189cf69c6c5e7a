import Foundation
import Traffic
import TrafficSQLite

/// Where a command's engine reads from: `--db PATH` (SQLite, the default `./traffic.sqlite`
/// or `TRAFFIC_DB`).
enum EngineArguments {
  static let usage = """
      --db PATH             the SQLite store (default: $TRAFFIC_DB or ./traffic.sqlite)
    """

  /// The database path the arguments (or the environment) name.
  static func databasePath(from arguments: inout ArgumentList) throws(UsageError) -> String {
    try arguments.option("--db") ?? SQLiteTrafficStore.defaultPath
  }

  /// Opens the engine the arguments name.
  ///
  /// - Throws: `UsageError` when the store cannot be opened (a bad path, not a traffic
  ///   database), since that is the user's input.
  static func open(_ arguments: inout ArgumentList) throws(UsageError) -> TrafficEngine {
    let path = try databasePath(from: &arguments)
    do {
      return try TrafficEngine(databasePath: path)
    } catch {
      throw UsageError("\(path): \(error)")
    }
  }
}
