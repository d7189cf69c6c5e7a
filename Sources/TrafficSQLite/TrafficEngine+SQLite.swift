import Foundation
import Roads
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
  /// the incidents, the road network and the flow state it holds.
  ///
  /// With a stored network (`SQLiteTrafficStore.saveNetwork(_:)`), the engine computes flow
  /// on it and starts from the stored flow state, so that flow queries answer as before the
  /// restart. A flow state that does not fit the network is ignored (flow starts empty).
  ///
  /// - Parameters:
  ///   - databasePath: The database file.
  ///   - limits: The largest query areas; HERE's by default.
  ///   - retentionInSeconds: How long ended incidents are kept; one day by default.
  /// - Throws: `TrafficEngineError.storeUnavailable` when the file cannot be opened or read
  ///   (a damaged stored network included), `.invalidConfiguration` for a negative retention.
  public convenience init(
    databasePath: String, limits: TrafficQueryLimits = .here,
    retentionInSeconds: TimeInterval = 86_400
  ) throws(TrafficEngineError) {
    let store: SQLiteTrafficStore
    do { store = try SQLiteTrafficStore(path: databasePath) } catch {
      throw .storeUnavailable(error)
    }
    try self.init(sqliteStore: store, limits: limits, retentionInSeconds: retentionInSeconds)
  }

  /// Creates an engine on an SQLite store opened as the caller chose (read-only, say),
  /// loading the incidents, the road network and the flow state it holds, as
  /// ``init(databasePath:limits:retentionInSeconds:)`` does.
  ///
  /// - Throws: `TrafficEngineError.storeUnavailable` when the file cannot be read (a damaged
  ///   stored network included), `.invalidConfiguration` for a negative retention.
  package convenience init(
    sqliteStore store: SQLiteTrafficStore, limits: TrafficQueryLimits = .here,
    retentionInSeconds: TimeInterval = 86_400
  ) throws(TrafficEngineError) {
    let network: RoadNetwork?
    do { network = try store.loadNetwork() } catch { throw .storeUnavailable(error) }
    try self.init(
      store: store, limits: limits, retentionInSeconds: retentionInSeconds, network: network)
    do {
      try restoreFlow()
    } catch .invalidConfiguration {
      // A flow state of another network or a damaged one: flow starts empty.
    }
  }
}
