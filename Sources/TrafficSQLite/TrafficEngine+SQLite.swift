import Foundation
import Traffic

extension TrafficEngine {
  /// Creates an engine on the embedded default store: the SQLite file at
  /// `SQLiteTrafficStore.defaultPath` (`$TRAFFIC_DB`, else `./traffic.sqlite`), created when
  /// missing, loading the incidents it holds.
  ///
  /// - Throws: `TrafficEngineError.storeUnavailable` when the file cannot be opened or read.
  public convenience init() throws(TrafficEngineError) {
    try self.init(databasePath: SQLiteTrafficStore.defaultPath)
  }

  /// Creates an engine on the SQLite store in `databasePath`, created when missing, loading
  /// the incidents it holds.
  ///
  /// - Parameters:
  ///   - databasePath: The database file.
  ///   - limits: The largest query areas; HERE's by default.
  ///   - retentionInSeconds: How long ended incidents are kept; one day by default.
  /// - Throws: `TrafficEngineError.storeUnavailable` when the file cannot be opened or read,
  ///   `.invalidConfiguration` for a negative retention.
  public convenience init(
    databasePath: String, limits: TrafficQueryLimits = .here,
    retentionInSeconds: TimeInterval = 86_400
  ) throws(TrafficEngineError) {
    let store: SQLiteTrafficStore
    do {
      store = try SQLiteTrafficStore(path: databasePath)
    } catch {
      throw .storeUnavailable(error)
    }
    try self.init(store: store, limits: limits, retentionInSeconds: retentionInSeconds)
  }
}
