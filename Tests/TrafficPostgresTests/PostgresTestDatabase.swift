import Foundation
import Traffic
import TrafficTestSupport

@testable import TrafficPostgres

/// Fresh, empty places for stores on the shared throw-away cluster: each store gets a schema
/// of its own (first in its `search_path`), so tests run in parallel without seeing each
/// other's tables.
enum PostgresTestDatabase {
  /// The URL of a new empty schema in the cluster's `traffic` database.
  ///
  /// - Throws: `PostgresClusterError` when no server can be started (PostgreSQL missing),
  ///   which fails the test.
  static func freshURL() throws -> String {
    let cluster = try PostgresCluster.shared()
    let schema = "test_\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: ""))"
    try PostgresAdmin.run("CREATE SCHEMA \(schema)", url: cluster.url)
    return url(ofSchema: schema, in: cluster)
  }

  /// The URL of the cluster's `traffic` database with `schema` first in the search path.
  static func url(ofSchema schema: String, in cluster: PostgresCluster) -> String {
    "\(cluster.url)?options=-csearch_path%3D\(schema)%2Cpublic"
  }

  /// A new store in a fresh schema.
  static func freshStore() throws -> PostgresTrafficStore {
    try PostgresTrafficStore(url: freshURL())
  }
}
