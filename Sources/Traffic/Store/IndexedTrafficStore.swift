import Foundation

/// A store that answers reads from its own indexes, without an engine's snapshot: an
/// engine that loads its snapshot in the background (`TrafficEngine.Loading.inBackground`)
/// answers area queries and lookups by original id from the store until the snapshot is in
/// memory. The answers are the same either way: the store gives candidates, the engine
/// tests, filters and orders them exactly as it does on its snapshot.
///
/// Implementations read on a connection of their own, so that these calls are not held
/// up by `currentIncidents()` loading the snapshot meanwhile.
package protocol IndexedTrafficStore: TrafficStore {
  /// How many incidents the store holds and the latest entry time among them, read from
  /// the store's indexes (not from every body).
  func summary() throws(TrafficStoreError) -> TrafficStoreSummary

  /// The current incidents any of whose polylines has a bounding box meeting `box` (edges
  /// touching count): the candidates of an area query, which the caller tests exactly.
  /// A box crossing the antimeridian is searched on both sides.
  func candidates(intersecting box: GeoBox) throws(TrafficStoreError) -> [TrafficIncident]

  /// The current incident of this original id (not a merged report's feed id), or `nil`.
  func incident(originalId: String) throws(TrafficStoreError) -> TrafficIncident?
}

/// What an `IndexedTrafficStore` holds, in brief.
package struct TrafficStoreSummary: Sendable, Hashable {
  /// The number of current incidents.
  package var count: Int
  /// The latest entry time of a current incident, `nil` when none has one.
  package var latestEntry: Date?

  package init(count: Int, latestEntry: Date?) {
    self.count = count
    self.latestEntry = latestEntry
  }
}
