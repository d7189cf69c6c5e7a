import Foundation

/// An immutable snapshot of the current incidents with a spatial index: what every query
/// reads. Writers build the next snapshot and swap it in; readers never wait.
package struct IncidentIndex: Sendable {
  /// The incidents, in the Hilbert order of their shapes' centres: incidents near each
  /// other on the map lie near each other in memory, so that a query's candidates (and
  /// their facts) are read from a few cache lines rather than one miss each.
  package let incidents: [TrafficIncident]
  /// Position in `incidents` by original id, and by the feed ids of merged reports.
  package let positions: [String: Int]
  /// What queries read of each incident, by position: small records beside the large
  /// incident values, which cost a retain of every field each time one is read out.
  package let facts: [QueryFacts]
  /// One entry per polyline (split at the antimeridian), payload = position in `incidents`.
  private let tree: RTree<Int32>

  /// What a query tests and sorts on: the geometry, the type, impact and times, the ids.
  /// Shares its strings and vertex arrays with the incident.
  package struct QueryFacts: Sendable {
    package let polyline: GeoPolyline
    package let additionalPolylines: [GeoPolyline]
    package let type: TrafficIncidentType
    package let impact: TrafficIncidentImpact
    package let startTime: Date?
    package let endTime: Date?
    package let originalId: String
    /// The version id.
    package let id: String

    /// The geodesic distance from `point` to the nearest of the polylines, meters (as
    /// `TrafficEngine.distance(from:to:)`).
    package func distance(to point: GeoCoordinates) -> Double {
      additionalPolylines.reduce(polyline.distance(to: point)) { min($0, $1.distance(to: point)) }
    }

    init(_ incident: TrafficIncident) {
      polyline = incident.location.polyline
      additionalPolylines = incident.location.additionalPolylines
      type = incident.type
      impact = incident.impact
      startTime = incident.startTime
      endTime = incident.endTime
      originalId = incident.originalId
      id = incident.id
    }
  }

  /// When the data last changed: the latest entry time of an incident at load, then the
  /// time of each write (HERE v7's `sourceUpdated`).
  package let updatedAt: Date?

  /// An empty snapshot.
  package static let empty = IncidentIndex([])

  /// Builds the snapshot (bulk-loads the R-tree).
  ///
  /// - Complexity: O(n log n) for n polylines.
  package init(_ incidents: [TrafficIncident], updatedAt: Date? = nil) {
    // Each main polyline's box is computed once, for the order and for the tree.
    let boxes = incidents.map { $0.location.polyline.boundingBox }
    let order = RTree<Int32>.hilbertOrder(boxes.map { (RTreeBox.covering($0)[0], 0) })
    let incidents = order.map { incidents[$0] }
    self.incidents = incidents
    self.updatedAt = updatedAt ?? incidents.compactMap(\.entryTime).max()
    var positions: [String: Int] = [:]
    positions.reserveCapacity(incidents.count)
    var entries: [(box: RTreeBox, payload: Int32)] = []
    entries.reserveCapacity(incidents.count)
    for (position, incident) in incidents.enumerated() {
      positions[incident.originalId] = position
      for box in RTreeBox.covering(boxes[order[position]]) {
        entries.append((box, Int32(position)))
      }
      for polyline in incident.location.additionalPolylines {
        for box in RTreeBox.covering(polyline.boundingBox) {
          entries.append((box, Int32(position)))
        }
      }
    }
    // The feeds' own ids of merged reports find the incident they were merged into, unless
    // an incident holds that id itself.
    for (position, incident) in incidents.enumerated() {
      for source in incident.sources where positions[source.id] == nil {
        positions[source.id] = position
      }
    }
    self.positions = positions
    facts = incidents.map(QueryFacts.init)
    tree = RTree(entries)
  }

  /// The number of incidents held.
  package var count: Int { incidents.count }

  /// The incidents after a batch, and what changed: deletions first (by original id), then
  /// each upsert replaces the incident of its original id or is added.
  ///
  /// Works on positions: the incidents are copied once (a retain each) and patched, instead
  /// of being rehashed into a dictionary by id.
  ///
  /// - Parameters:
  ///   - upserts: New or changed incidents; for one original id the last wins.
  ///   - deletions: Original ids to remove.
  ///   - skippingUnchanged: Whether an upsert equal to the incident it replaces is left out
  ///     (no change reported).
  /// - Returns: The next snapshot's incidents (unordered) and the changes, in batch order.
  /// - Complexity: O(n) copies of references, O(k) for a batch of k.
  package func applying(
    upserts: [TrafficIncident], deletions: [String], skippingUnchanged: Bool = false
  ) -> (incidents: [TrafficIncident], changes: [IncidentChange]) {
    var next = incidents
    var removed = Set<Int>()
    var added: [String: Int] = [:]
    var changes: [IncidentChange] = []
    func position(of originalId: String) -> Int? {
      if let position = added[originalId] { return position }
      // `positions` also maps merged reports' feed ids: only the incident's own id counts.
      guard let position = positions[originalId], !removed.contains(position),
        next[position].originalId == originalId
      else { return nil }
      return position
    }
    for originalId in deletions {
      guard let position = position(of: originalId) else { continue }
      changes.append(IncidentChange(kind: .removed, incident: next[position]))
      removed.insert(position)
    }
    for incident in upserts {
      if let position = position(of: incident.originalId) {
        if skippingUnchanged, next[position] == incident { continue }
        next[position] = incident
        changes.append(IncidentChange(kind: .updated, incident: incident))
      } else {
        added[incident.originalId] = next.count
        next.append(incident)
        changes.append(IncidentChange(kind: .added, incident: incident))
      }
    }
    if !removed.isEmpty {
      next = next.indices.filter { !removed.contains($0) }.map { next[$0] }
    }
    return (next, changes)
  }

  /// The incident with this original id, if held.
  ///
  /// - Complexity: O(1).
  package func incident(originalId: String) -> TrafficIncident? {
    positions[originalId].map { incidents[$0] }
  }

  /// The incident whose own original id is `originalId` (not one that merged a report of
  /// that id).
  ///
  /// - Complexity: O(1).
  package func incident(exactOriginalId originalId: String) -> TrafficIncident? {
    guard let position = positions[originalId], incidents[position].originalId == originalId
    else { return nil }
    return incidents[position]
  }

  /// Positions of the incidents whose geometry really meets `area` (an R-tree search on
  /// bounding boxes, then the exact test of `GeoArea.intersects`), ascending.
  ///
  /// - Complexity: O(log n + k x m) for k candidates of m vertices each.
  package func positions(meeting area: some GeoArea) -> [Int] {
    var candidates: [Int32] = []
    for box in RTreeBox.covering(area.boundingBox) {
      tree.visit(intersecting: box) { payload, _ in
        candidates.append(payload)
        return true
      }
    }
    candidates.sort()
    var result: [Int] = []
    var previous: Int32 = -1
    // Through the buffer, field by field: copying a record out retained its strings too,
    // each a cache miss on a large store.
    facts.withUnsafeBufferPointer { facts in
      for candidate in candidates where candidate != previous {
        previous = candidate
        let position = Int(candidate)
        if area.intersects(facts[position].polyline)
          || facts[position].additionalPolylines.contains(where: { area.intersects($0) })
        {
          result.append(position)
        }
      }
    }
    return result
  }

  /// The nearest incident to `point` that passes `filter`, by true distance to its
  /// polylines' segments (not only their vertices), within `maxDistanceInMeters`.
  ///
  /// - Complexity: O(log n) node visits in typical cases, plus a distance computation per
  ///   candidate item reached.
  package func nearest(
    to point: GeoCoordinates, maxDistanceInMeters: Double,
    where filter: (TrafficIncident) -> Bool
  ) -> (position: Int, distanceInMeters: Double)? {
    let found = tree.nearest(to: point, k: 1, maxDistanceInMeters: maxDistanceInMeters) {
      payload in
      let incident = incidents[Int(payload)]
      guard filter(incident) else { return .infinity }
      var distance = incident.location.polyline.distance(to: point)
      for polyline in incident.location.additionalPolylines {
        distance = min(distance, polyline.distance(to: point))
      }
      return distance
    }
    return found.first.map { (Int($0.payload), $0.distanceInMeters) }
  }
}
