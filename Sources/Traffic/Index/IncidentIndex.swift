import Dispatch
import Foundation
import Synchronization

/// An immutable snapshot of the current incidents with a spatial index: what every query
/// reads. Writers build the next snapshot and swap it in; readers never wait.
package struct IncidentIndex: Sendable {
  /// The incidents, in the Hilbert order of their shapes' centres: incidents near each
  /// other on the map lie near each other in memory, so that a query's candidates (and
  /// their facts) are read from a few cache lines rather than one miss each.
  ///
  /// Snapshots after a write share all but the changed chunks of this and of `facts`, so
  /// that a write costs O(n / 64 + changes), not a retain of every incident.
  package let incidents: PersistentArray<TrafficIncident>
  /// Position in `incidents` by original id, and by the feed ids of merged reports, as the
  /// snapshot was last built whole (shared by the snapshots patched from it, never copied).
  private let builtPositions: OriginalIDTable
  /// The ids `builtPositions` lacks: incidents added and reports merged since.
  private let addedPositions: [String: Int]
  /// What queries read of each incident, by position: small records beside the large
  /// incident values, which cost a retain of every field each time one is read out.
  package let facts: PersistentArray<QueryFacts>
  /// This snapshot's identity: a new object for every snapshot, for caches that must tell
  /// snapshots apart (held, so that it is never reused while compared).
  package let generation = Generation()

  /// A snapshot's identity.
  package final class Generation: Sendable {}
  /// One entry per polyline (split at the antimeridian), payload = position in `incidents`,
  /// as the snapshot was last built whole; entries of `dirty` positions are stale.
  private let tree: RTree<Int32>
  /// The entries of the incidents changed or added since the last whole build (the
  /// `dirty` positions): a write re-indexes only these, the large `tree` is shared.
  private let deltaTree: RTree<Int32>
  /// The entries `deltaTree` was built from, kept so that the next write only replaces
  /// those of the positions it touches.
  private let deltaEntries: [(box: RTreeBox, payload: Int32)]
  /// The polylines of the positions as `tree` was built, flat, for the exact tests.
  private let shapes: IncidentShapes
  /// Positions whose incident changed or was added since `tree` was built.
  private let dirty: Set<Int32>
  /// The number of incidents when they were last put in Hilbert order (later additions
  /// lie after them, out of that order, until the next whole build).
  private let sortedCount: Int

  /// The most positions re-indexed in `deltaTree` before a write rebuilds the whole
  /// snapshot (which also restores the Hilbert order of `incidents`).
  static func maxDirty(count: Int) -> Int { max(4_096, min(count / 8, 65_536)) }

  /// The positions changed since the last whole build past which the engine rebuilds the
  /// snapshot whole in the background (well before `maxDirty`, where a write must do it).
  static func mergeDirty(count: Int) -> Int { max(1_024, min(count / 64, 16_384)) }

  /// The number of positions changed since the last whole build.
  package var changedSinceWholeBuild: Int { dirty.count }

  /// Whether enough changed since the last whole build to rebuild in the background.
  package var needsMerge: Bool { dirty.count > Self.mergeDirty(count: count) }

  /// What a query filters and sorts on: the type, impact and times, the original id
  /// (shared with the incident). The geometry is tested on `shapes`, or on the incident
  /// itself where it changed since.
  package final class QueryFacts: Sendable {
    package let type: TrafficIncidentType
    package let impact: TrafficIncidentImpact
    package let startTime: Date?
    package let endTime: Date?
    package let originalId: String

    init(_ incident: TrafficIncident) {
      type = incident.type
      impact = incident.impact
      startTime = incident.startTime
      endTime = incident.endTime
      originalId = incident.originalId
    }
  }

  /// When the data last changed: the latest entry time of an incident at load, then the
  /// time of each write (HERE v7's `sourceUpdated`).
  package let updatedAt: Date?

  /// How many incidents each feed has a report in (an incident counts once per feed),
  /// for the limit of what one source may hold.
  package let heldByFeed: [String: Int]

  /// Adds (`sign` 1) or takes away (-1) an incident's feeds from `counts`.
  static func count(
    _ incident: TrafficIncident, sign: Int, into counts: inout [String: Int]
  ) {
    var counted: [String] = []
    for source in incident.sources where !counted.contains(source.feed) {
      counted.append(source.feed)
      let next = counts[source.feed, default: 0] + sign
      counts[source.feed] = next > 0 ? next : nil
    }
  }

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
    let stored = PersistentArray(incidents)
    self.incidents = stored
    // The query facts and the flat shapes are built on another thread meanwhile (each pass
    // over a million incidents is mostly waiting for memory).
    let side = Mutex<(facts: PersistentArray<QueryFacts>, shapes: IncidentShapes)?>(nil)
    let group = DispatchGroup()
    @Sendable func buildSide() {
      let built = (PersistentArray(incidents.lazy.map(QueryFacts.init)), IncidentShapes(incidents))
      side.withLock { $0 = built }
    }
    if incidents.count >= 50_000 {
      DispatchQueue.global(qos: .userInitiated).async(group: group, execute: buildSide)
    } else {
      buildSide()
    }
    var entries: [(box: RTreeBox, payload: Int32)] = []
    entries.reserveCapacity(incidents.count)
    var aliases: [(id: String, position: Int)] = []
    var latestEntry: Date?
    var held: [String: Int] = [:]
    for (position, incident) in incidents.enumerated() {
      Self.count(incident, sign: 1, into: &held)
      if let entry = incident.entryTime, entry > latestEntry ?? .distantPast { latestEntry = entry }
      for box in RTreeBox.covering(boxes[order[position]]) {
        entries.append((box, Int32(position)))
      }
      for polyline in incident.location.additionalPolylines {
        for box in RTreeBox.covering(polyline.boundingBox) {
          entries.append((box, Int32(position)))
        }
      }
      for source in incident.sources where source.id != incident.originalId {
        aliases.append((source.id, position))
      }
    }
    // The feeds' own ids of merged reports find the incident they were merged into, unless
    // an incident holds that id itself.
    let ids = OriginalIDTable(incidents, aliases: [:])
    var aliasPositions: [String: Int] = [:]
    for alias in aliases
    where aliasPositions[alias.id] == nil && ids.position(of: alias.id, in: stored) == nil {
      aliasPositions[alias.id] = alias.position
    }
    self.updatedAt = updatedAt ?? latestEntry
    heldByFeed = held
    builtPositions = ids.replacingAliases(with: aliasPositions)
    addedPositions = [:]
    tree = RTree(entries)
    deltaTree = RTree([])
    deltaEntries = []
    dirty = []
    sortedCount = incidents.count
    group.wait()
    // Always set by then; built here should the other thread not have run.
    let (builtFacts, builtShapes) =
      side.withLock { $0 }
      ?? (PersistentArray(incidents.lazy.map(QueryFacts.init)), IncidentShapes(incidents))
    facts = builtFacts
    shapes = builtShapes
  }

  /// A snapshot of patched parts sharing `tree` with the one it was made from.
  private init(
    incidents: PersistentArray<TrafficIncident>, builtPositions: OriginalIDTable,
    addedPositions: [String: Int], facts: PersistentArray<QueryFacts>, tree: RTree<Int32>,
    shapes: IncidentShapes, dirty: Set<Int32>, deltaEntries: [(box: RTreeBox, payload: Int32)],
    sortedCount: Int, heldByFeed: [String: Int], updatedAt: Date?
  ) {
    self.sortedCount = sortedCount
    self.heldByFeed = heldByFeed
    self.shapes = shapes
    self.incidents = incidents
    self.builtPositions = builtPositions
    self.addedPositions = addedPositions
    self.facts = facts
    self.tree = tree
    self.dirty = dirty
    self.updatedAt = updatedAt
    self.deltaEntries = deltaEntries
    deltaTree = RTree(deltaEntries)
  }

  /// The number of incidents held.
  package var count: Int { incidents.count }

  /// The position of the incident of this original id, or of the incident a report of
  /// this feed id was merged into.
  ///
  /// - Complexity: O(log n).
  package func position(of id: String) -> Int? {
    // An incident added since the build may hold an id that was a merged report's before.
    if !addedPositions.isEmpty, let position = addedPositions[id] { return position }
    return builtPositions.position(of: id, in: incidents)
  }

  /// The snapshot after a batch, and what changed: deletions first (by original id), then
  /// each upsert replaces the incident of its original id or is added.
  ///
  /// Works on positions: the incidents are patched in place of a copy that shares all
  /// unchanged chunks, instead of being rehashed into a dictionary by id. A batch without removals keeps every
  /// position, shares the R-tree and re-indexes only the incidents changed since the last
  /// whole build, until there are `maxDirty` of them; a batch that removes incidents, or
  /// passes that bound, rebuilds the snapshot whole.
  ///
  /// - Parameters:
  ///   - upserts: New or changed incidents; for one original id the last wins.
  ///   - deletions: Original ids to remove.
  ///   - skippingUnchanged: Whether an upsert equal to the incident it replaces is left out
  ///     (no change reported).
  ///   - updatedAt: The next snapshot's update time.
  /// - Returns: The next snapshot and the changes, in batch order.
  /// - Complexity: O(n) copies of references, plus O(d log d) for the d incidents changed
  ///   since the last whole build; O(n log n) for a whole build.
  package func applying(
    upserts: [TrafficIncident], deletions: [String], skippingUnchanged: Bool = false,
    updatedAt: Date?
  ) -> (index: IncidentIndex, changes: [IncidentChange]) {
    var next = incidents
    var removed = Set<Int>()
    var added: [String: Int] = [:]
    var changes: [IncidentChange] = []
    func position(of originalId: String) -> Int? {
      if let position = added[originalId] { return position }
      // `positions` also maps merged reports' feed ids: only the incident's own id counts.
      guard let position = self.position(of: originalId), !removed.contains(position),
        next[position].originalId == originalId
      else { return nil }
      return position
    }
    for originalId in deletions {
      guard let position = position(of: originalId) else { continue }
      changes.append(IncidentChange(kind: .removed, incident: next[position]))
      removed.insert(position)
    }
    var touched: [Int] = []
    var held = heldByFeed
    for incident in upserts {
      if let position = position(of: incident.originalId) {
        if skippingUnchanged, next[position] == incident { continue }
        Self.count(next[position], sign: -1, into: &held)
        Self.count(incident, sign: 1, into: &held)
        next[position] = incident
        touched.append(position)
        changes.append(IncidentChange(kind: .updated, incident: incident))
      } else {
        added[incident.originalId] = next.count
        Self.count(incident, sign: 1, into: &held)
        touched.append(next.count)
        next.append(incident)
        changes.append(IncidentChange(kind: .added, incident: incident))
      }
    }
    if !removed.isEmpty {
      let kept = next.indices.filter { !removed.contains($0) }.map { next[$0] }
      return (IncidentIndex(kept, updatedAt: updatedAt), changes)
    }
    // Positions are kept: patch the facts, the ids added and the set of re-indexed
    // positions.
    var nextFacts = facts
    var nextPositions = addedPositions
    var nextDirty = dirty
    // Added positions come in increasing order, after the kept ones.
    for position in touched {
      let incident = next[position]
      if position < nextFacts.count {
        nextFacts[position] = QueryFacts(incident)
      } else {
        nextFacts.append(QueryFacts(incident))
        nextPositions[incident.originalId] = position
      }
      for source in incident.sources
      where nextPositions[source.id] == nil
        && builtPositions.position(of: source.id, in: next) == nil
      {
        nextPositions[source.id] = position
      }
      nextDirty.insert(Int32(position))
    }
    if nextDirty.count > Self.maxDirty(count: next.count) {
      return (IncidentIndex(Array(next), updatedAt: updatedAt), changes)
    }
    return (
      IncidentIndex(
        incidents: next, builtPositions: builtPositions, addedPositions: nextPositions,
        facts: nextFacts, tree: tree, shapes: shapes, dirty: nextDirty,
        deltaEntries: nextDeltaEntries(touched: touched, in: next), sortedCount: sortedCount,
        heldByFeed: held, updatedAt: updatedAt),
      changes
    )
  }

  /// The same incidents at the same positions, indexed as one: the R-tree, the flat
  /// shapes and the id map built anew for every position (no changed positions left), the
  /// incidents and their query facts shared. Cheaper than a whole build, which also sorts
  /// the incidents again (`IncidentIndex(_:)`); `needsSorting` says when that is due.
  ///
  /// - Complexity: O(n log n) for n incidents, without copying them.
  package func compacted() -> IncidentIndex {
    var entries: [(box: RTreeBox, payload: Int32)] = []
    entries.reserveCapacity(incidents.count)
    for position in incidents.indices {
      let location = incidents[position].location
      for box in RTreeBox.covering(location.polyline.boundingBox) {
        entries.append((box, Int32(position)))
      }
      for polyline in location.additionalPolylines {
        for box in RTreeBox.covering(polyline.boundingBox) {
          entries.append((box, Int32(position)))
        }
      }
    }
    // Ids added since the build take precedence, as `position(of:)` gives them: those that
    // are no incident's own id join the merged reports' ids.
    var aliases = builtPositions.aliases
    for (id, position) in addedPositions where incidents[position].originalId != id {
      aliases[id] = position
    }
    let positions = OriginalIDTable(incidents, aliases: aliases)
    return IncidentIndex(
      incidents: incidents, builtPositions: positions, addedPositions: [:], facts: facts,
      tree: RTree(entries), shapes: IncidentShapes(incidents), dirty: [], deltaEntries: [],
      sortedCount: sortedCount, heldByFeed: heldByFeed, updatedAt: updatedAt)
  }

  /// Whether so many incidents were added since the last whole build (a quarter more) that
  /// the next rebuild should put them all in Hilbert order again.
  package var needsSorting: Bool { incidents.count > sortedCount + sortedCount / 4 }

  /// The entries of `deltaTree` after a write that touched `touched` positions: the
  /// others' entries kept, the touched ones' made anew from `incidents`.
  ///
  /// - Complexity: O(d + t) for d entries held and t positions touched.
  private func nextDeltaEntries(
    touched: [Int], in incidents: PersistentArray<TrafficIncident>
  ) -> [(box: RTreeBox, payload: Int32)] {
    let touchedSet = Set(touched.map(Int32.init))
    var entries = deltaEntries.filter { !touchedSet.contains($0.payload) }
    for position in touchedSet {
      for polyline in incidents[Int(position)].location.allPolylines {
        for box in RTreeBox.covering(polyline.boundingBox) { entries.append((box, position)) }
      }
    }
    return entries
  }

  /// The incident with this original id, if held.
  ///
  /// - Complexity: O(1).
  package func incident(originalId: String) -> TrafficIncident? {
    position(of: originalId).map { incidents[$0] }
  }

  /// The incident whose own original id is `originalId` (not one that merged a report of
  /// that id).
  ///
  /// - Complexity: O(1).
  package func incident(exactOriginalId originalId: String) -> TrafficIncident? {
    guard let position = position(of: originalId), incidents[position].originalId == originalId
    else { return nil }
    return incidents[position]
  }

  /// The most segments of a corridor searched as one: a longer corridor (a route's) is
  /// searched piece by piece, so that the R-tree is asked for the boxes along it rather than
  /// for its whole bounding box (a diagonal route's box holds most of a town), and each
  /// candidate is tested against a few segments rather than all of them.
  static let corridorPieceSegments = 16

  /// Positions of the incidents whose geometry really meets `area` (an R-tree search on
  /// bounding boxes, then the exact test of `GeoArea.intersects`), ascending.
  ///
  /// - Complexity: O(log n + k x m) for k candidates of m vertices each; a corridor of more
  ///   than ``corridorPieceSegments`` segments is searched in pieces of that many (the same
  ///   area: a corridor is the union of its segments' buffers).
  package func positions(meeting area: some GeoArea) -> [Int] {
    if let corridor = area as? GeoCorridor,
      corridor.polyline.count > Self.corridorPieceSegments + 1
    {
      var found = Set<Int>()
      var start = 0
      while start < corridor.polyline.count - 1 {
        let end = min(start + Self.corridorPieceSegments, corridor.polyline.count - 1)
        if let piece = try? GeoCorridor(
          polyline: Array(corridor.polyline[start...end]),
          halfWidthInMeters: corridor.halfWidthInMeters)
        {
          found.formUnion(positions(meetingWhole: piece))
        } else {
          return positions(meetingWhole: corridor)
        }
        start = end
      }
      return found.sorted()
    }
    return positions(meetingWhole: area)
  }

  /// ``positions(meeting:)`` in one search of the area's bounding box.
  private func positions(meetingWhole area: some GeoArea) -> [Int] {
    var candidates: [Int32] = []
    for box in RTreeBox.covering(area.boundingBox) {
      tree.visit(intersecting: box) { payload, _ in
        if dirty.isEmpty || !dirty.contains(payload) { candidates.append(payload) }
        return true
      }
      deltaTree.visit(intersecting: box) { payload, _ in
        candidates.append(payload)
        return true
      }
    }
    candidates.sort()
    var result: [Int] = []
    var previous: Int32 = -1
    let test = GeoPathTest(area)
    // Unchanged positions are tested on the flat shapes; changed ones (`dirty`) on their
    // query facts' polylines.
    shapes.withReader { shapes in
      for candidate in candidates where candidate != previous {
        previous = candidate
        let position = Int(candidate)
        let meets: Bool
        if dirty.isEmpty || !dirty.contains(candidate) {
          meets = shapes.meets(position, test)
        } else {
          let changed = incidents[position].location
          meets =
            test.meets(changed.polyline) || changed.additionalPolylines.contains { test.meets($0) }
        }
        if meets { result.append(position) }
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
    func distance(_ payload: Int32) -> Double {
      let incident = incidents[Int(payload)]
      guard filter(incident) else { return .infinity }
      var distance = incident.location.polyline.distance(to: point)
      for polyline in incident.location.additionalPolylines {
        distance = min(distance, polyline.distance(to: point))
      }
      return distance
    }
    let base = tree.nearest(to: point, k: 1, maxDistanceInMeters: maxDistanceInMeters) {
      dirty.contains($0) ? .infinity : distance($0)
    }.first
    let changed =
      dirty.isEmpty
      ? nil
      : deltaTree.nearest(to: point, k: 1, maxDistanceInMeters: maxDistanceInMeters) {
        distance($0)
      }.first
    // The nearer; at equal distances the lower position, as one tree would order them.
    let found = [base, changed].compactMap { $0 }.min {
      ($0.distanceInMeters, $0.payload) < ($1.distanceInMeters, $1.payload)
    }
    return found.map { (Int($0.payload), $0.distanceInMeters) }
  }
}
