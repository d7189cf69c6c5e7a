import Dispatch
import Foundation
import Roads
import Synchronization

/// Finds traffic incidents: in a circle, a box or a corridor along a route, by original id,
/// or the nearest to a place — the `TrafficEngine` of HERE's "Find Traffic" guide, running
/// in-process on a `TrafficStore`.
///
/// Reads never wait for writes: every query works on the immutable snapshot current when it
/// starts; `apply(_:)` stores a batch, builds the next snapshot and swaps it in.
public final class TrafficEngine: Sendable {
  /// The store behind the engine.
  public let store: any TrafficStore
  /// The largest areas a query may cover.
  public let limits: TrafficQueryLimits
  /// How long an ended incident stays in the store (and can be looked up) before
  /// `purgeExpired()` removes it, seconds.
  public let retentionInSeconds: TimeInterval

  let clock: @Sendable () -> Date
  /// Flow on the road network (probes, feeds, live values); `nil` without a network.
  let flowState: FlowState?
  /// The server a remote engine asks; `nil` for an embedded engine.
  let remote: RemoteTrafficClient?
  let snapshot: SnapshotCell
  /// While the snapshot loads in the background: what the store holds (its count and
  /// latest entry), answered meanwhile; `nil` for an engine that loaded at start.
  let storeSummary: TrafficStoreSummary?
  /// The snapshot identity reported while the snapshot loads (the data cannot change
  /// meanwhile: writes wait for the snapshot).
  let loadingGeneration = IncidentIndex.Generation()
  /// Serialises writers; readers only take `snapshot`.
  let writer = Mutex(())
  let subscriptions = Mutex(Subscriptions())
  /// While a snapshot is rebuilt in the background, the changes published since it was
  /// taken, to replay on the rebuilt one; `nil` when none is being rebuilt.
  let mergeLog = Mutex<[IncidentChange]?>(nil)
  let texts = LocalizationCache()
  /// Incidents' v7 result objects, encoded once per version, language and references.
  let v7Results = V7ResultCache()
  /// The changes published, by time, for delta publications.
  let journal: Mutex<ChangeJournal>

  struct Subscriptions {
    var nextKey = 0
    var byKey: [Int: (area: any GeoArea, continuation: AsyncStream<IncidentChange>.Continuation)] =
      [:]
  }

  /// Creates an engine on a store and loads the store's incidents.
  ///
  /// - Parameters:
  ///   - store: Where incidents live.
  ///   - limits: The largest query areas; HERE's by default.
  ///   - retentionInSeconds: How long ended incidents are kept; one day by default.
  ///   - clock: The current time; tests pass a fixed clock.
  ///   - network: The road network flow is computed on; without one the engine serves
  ///     incidents only.
  /// - Throws: `TrafficEngineError.storeUnavailable` when the store cannot be read,
  ///   `.invalidConfiguration` for a negative retention.
  public convenience init(
    store: any TrafficStore, limits: TrafficQueryLimits = .here,
    retentionInSeconds: TimeInterval = 86_400,
    clock: @escaping @Sendable () -> Date = { Date() }, network: RoadNetwork? = nil
  ) throws(TrafficEngineError) {
    try self.init(
      store: store, limits: limits, retentionInSeconds: retentionInSeconds, clock: clock,
      network: network, remote: nil)
  }

  /// How an engine gets its first snapshot.
  package enum Loading: Sendable, Hashable {
    /// Every incident is loaded and indexed before the initialiser returns.
    case immediately
    /// On an `IndexedTrafficStore`, the initialiser returns at once and the snapshot is
    /// loaded on another thread; meanwhile area queries and lookups by original id are
    /// answered from the store's own indexes (the same answers), and everything else —
    /// writes, nearest searches, flow, publications — waits for the snapshot. Other stores
    /// load immediately.
    case inBackground
  }

  /// Creates an engine on a store, loading its incidents as `loading` says.
  ///
  /// - Parameters:
  ///   - loading: Whether to return before the snapshot is loaded (`waitUntilLoaded()`
  ///     then tells when it is, and whether the load failed).
  ///   - Others: As `init(store:limits:retentionInSeconds:clock:network:)`.
  /// - Throws: `TrafficEngineError.storeUnavailable` when the store cannot be read (for a
  ///   background load: its summary), `.invalidConfiguration` for a negative retention.
  package convenience init(
    store: any TrafficStore, limits: TrafficQueryLimits = .here,
    retentionInSeconds: TimeInterval = 86_400,
    clock: @escaping @Sendable () -> Date = { Date() }, network: RoadNetwork? = nil,
    loading: Loading
  ) throws(TrafficEngineError) {
    try self.init(
      store: store, limits: limits, retentionInSeconds: retentionInSeconds, clock: clock,
      network: network, remote: nil, loading: loading)
  }

  init(
    store: any TrafficStore, limits: TrafficQueryLimits, retentionInSeconds: TimeInterval,
    clock: @escaping @Sendable () -> Date, network: RoadNetwork?, remote: RemoteTrafficClient?,
    loading: Loading = .immediately
  ) throws(TrafficEngineError) {
    guard retentionInSeconds.isFinite, retentionInSeconds >= 0 else {
      throw .invalidConfiguration("retention \(retentionInSeconds) s must be >= 0")
    }
    self.store = store
    self.limits = limits
    self.retentionInSeconds = retentionInSeconds
    self.clock = clock
    self.remote = remote
    journal = Mutex(ChangeJournal(horizon: clock()))
    flowState = network.map(FlowState.init(network:))
    if loading == .inBackground, let indexed = store as? any IndexedTrafficStore {
      let summary: TrafficStoreSummary
      do { summary = try indexed.summary() } catch { throw .storeUnavailable(error) }
      storeSummary = summary
      let cell = SnapshotCell(loadingLater: ())
      snapshot = cell
      DispatchQueue.global(qos: .userInitiated).async {
        cell.load(
          Result { () throws(TrafficStoreError) in
            IncidentIndex(try store.currentIncidents(), updatedAt: summary.latestEntry)
          })
      }
      return
    }
    storeSummary = nil
    let incidents: [TrafficIncident]
    do { incidents = try store.currentIncidents() } catch { throw .storeUnavailable(error) }
    snapshot = SnapshotCell(IncidentIndex(incidents))
  }

  /// Waits until the snapshot is loaded (at once unless it loads in the background).
  ///
  /// - Throws: `TrafficEngineError.storeUnavailable` when the background load failed: the
  ///   engine then holds no incidents and must not serve.
  package func waitUntilLoaded() throws(TrafficEngineError) {
    snapshot.waitUntilLoaded()
    if let failure = snapshot.loadFailure { throw .storeUnavailable(failure) }
  }

  /// Whether the snapshot is loaded (always, unless it is still loading in the background).
  package var isLoaded: Bool { snapshot.isLoaded }

  /// While the snapshot loads in the background: the store's indexed reader and what it
  /// holds; `nil` once the snapshot is there (or for an engine that loaded at start).
  private var interimStore: (store: any IndexedTrafficStore, summary: TrafficStoreSummary)? {
    guard !snapshot.isLoaded, let summary = storeSummary,
      let indexed = store as? any IndexedTrafficStore
    else { return nil }
    return (indexed, summary)
  }

  /// The engine's current time (its clock; tests fix it).
  package var now: Date { clock() }

  /// The snapshot queries read now.
  package var currentSnapshot: IncidentIndex { snapshot.withLock { $0 } }

  /// What identifies the current snapshot's data, read without copying the snapshot (a
  /// copy retains and releases every one of its arrays and trees): for the server's
  /// response cache, on every request.
  package var snapshotStamp: (generation: IncidentIndex.Generation, updatedAt: Date?, count: Int) {
    if let interim = interimStore {
      return (loadingGeneration, interim.summary.latestEntry, interim.summary.count)
    }
    return snapshot.withLock { ($0.generation, $0.updatedAt, $0.count) }
  }

  /// When the incidents last changed (HERE v7's `sourceUpdated`): the time of the last
  /// write, or at start-up the latest entry time of a stored incident; on a remote engine
  /// the server's, as its last incident answer gave it (`nil` before one).
  public var lastUpdate: Date? {
    if let remote { return remote.sourceUpdated.withLock { $0.incidents } }
    if let interim = interimStore { return interim.summary.latestEntry }
    return snapshot.withLock { $0.updatedAt }
  }

  /// The number of incidents held (ended ones included until purged).
  public var incidentCount: Int {
    if let interim = interimStore { return interim.summary.count }
    return snapshot.withLock { $0.count }
  }

  // MARK: Queries

  /// The incidents whose geometry meets `area` and that pass the options.
  ///
  /// An incident is returned when any of its polylines really intersects the area (tested
  /// segment by segment, not by bounding box) and, by default, it is active now. Texts are
  /// in `queryOptions.languageCode`, else in the language of each incident's country.
  /// - Parameters:
  ///   - area: A `GeoCircle`, `GeoBox` or `GeoCorridor` within `limits`.
  ///   - queryOptions: Filters, language, order and limit.
  /// - Returns: The incidents, nearest first when `sortOrigin` is set, else most severe
  ///   first (then latest start, then original id).
  /// - Throws: `TrafficQueryError.invalidGeometry` beyond a limit, `.invalidFilterOptions`
  ///   or `.invalidParameter` for bad options, `.httpError` 413 when more incidents match
  ///   than `limits.maxResults` and no smaller `limit` is asked, `.operationCancelled` when
  ///   the task is cancelled.
  /// - Complexity: O(log n + k) index work for k candidates, plus sorting the results.
  public func queryForIncidents(
    inside area: some GeoArea,
    queryOptions: TrafficIncidentsQueryOptions = TrafficIncidentsQueryOptions()
  ) async throws(TrafficQueryError) -> [TrafficIncident] {
    guard !Task.isCancelled else { throw .operationCancelled }
    if let remote {
      try limits.check(area)
      try queryOptions.validate()
      return try await remote.incidents(inside: area, options: queryOptions).incidents
    }
    return try incidents(inside: area, options: queryOptions)
  }

  /// The incident with this original id (the id stays the same across versions), in the
  /// requested language.
  ///
  /// The id may carry HERE's prefix `here:traffic:incident:`. Ended incidents are found
  /// until they are purged.
  /// - Throws: `TrafficQueryError.incidentIdNotFound` naming the id,
  ///   `.invalidIncident` for an empty id, `.operationCancelled` when cancelled.
  /// - Complexity: O(1).
  public func lookupIncident(
    with originalId: String,
    lookupOptions: TrafficIncidentLookupOptions = TrafficIncidentLookupOptions()
  ) async throws(TrafficQueryError) -> TrafficIncident {
    guard !Task.isCancelled else { throw .operationCancelled }
    if let remote {
      guard !originalId.isEmpty else { throw .invalidIncident("the incident id is empty") }
      return try await remote.incident(originalId: originalId, options: lookupOptions)
    }
    return try incident(originalId: originalId, options: lookupOptions)
  }

  /// The incident nearest to `point` within `radiusInMeters`, measured to the segments of
  /// its polylines (not only to their vertices, which misleads for long straight roads).
  ///
  /// - Parameters:
  ///   - point: Where to measure from.
  ///   - radiusInMeters: How far to look; at most `limits.maxCircleRadiusInMeters`.
  ///   - queryOptions: Filters and language as for queries (`sortOrigin`, `limit` unused).
  /// - Returns: The incident and its distance, or `nil` when none passes within the radius.
  /// - Throws: `TrafficQueryError.invalidGeometry` for a bad radius; as queries otherwise.
  /// - Complexity: O(log n) typical.
  public func nearestIncident(
    to point: GeoCoordinates, within radiusInMeters: Double = 50_000,
    queryOptions: TrafficIncidentsQueryOptions = TrafficIncidentsQueryOptions()
  ) async throws(TrafficQueryError) -> TrafficIncidentDistance? {
    guard !Task.isCancelled else { throw .operationCancelled }
    if let remote {
      return try await remote.nearest(
        to: point, within: radiusInMeters, options: queryOptions, limits: limits)
    }
    return try nearest(to: point, within: radiusInMeters, options: queryOptions)
  }

  // MARK: Synchronous core (the HTTP server calls these from its own threads)

  /// `queryForIncidents` without the async wrapper.
  package func incidents(
    inside area: some GeoArea, options: TrafficIncidentsQueryOptions
  )
    throws(TrafficQueryError) -> [TrafficIncident]
  {
    let (index, positions) = try matchingPositions(inside: area, options: options)
    return positions.map { texts.localized(index.incidents[$0], to: options.languageCode) }
  }

  /// The v7 JSON answer (`V7IncidentWire.encode`) of `incidents(inside:options:)`,
  /// assembled from result objects encoded once per incident version.
  ///
  /// - Parameters:
  ///   - area: The area.
  ///   - options: Filters, order, limit and language.
  ///   - locationReferencing: The location references to write.
  ///   - sourceUpdated: The envelope's update time.
  /// - Returns: UTF-8 JSON text, byte for byte `V7IncidentWire.encode` of the same answer.
  /// - Throws: As `incidents(inside:options:)`.
  /// - Complexity: That of the query, plus O(k) cache lookups and the answer's bytes.
  package func encodedIncidents(
    inside area: some GeoArea, options: TrafficIncidentsQueryOptions,
    locationReferencing: V7IncidentWire.LocationReferencing, sourceUpdated: Date?
  ) throws(TrafficQueryError) -> SharedBytes {
    let (index, positions) = try matchingPositions(inside: area, options: options)
    let language = options.languageCode
    // Worded straight, not through `texts`: the encoded fragment is the cache here, and
    // keeping a localised copy beside it held a second incident per fragment (and cleared
    // 200,000 of them at once on the query path when full).
    return v7Results.encode(
      positions, of: index, language: language, references: locationReferencing,
      sourceUpdated: sourceUpdated
    ) { $0.localized(to: language) }
  }

  /// Forgets the texts of these version ids (they were written again; their encodings
  /// are keyed by the incident values themselves and miss on their own).
  func forgetRendered(_ ids: [String]) {
    texts.invalidate(ids)
  }

  /// The snapshot and the positions in it of the incidents a query answers, in answer
  /// order (by distance from `sortOrigin`, else most severe first), cut to `limit`.
  private func matchingPositions(
    inside area: some GeoArea, options: TrafficIncidentsQueryOptions
  ) throws(TrafficQueryError) -> (index: IncidentIndex, positions: [Int]) {
    try limits.check(area)
    try options.validate()
    let index = interimSnapshot(meeting: area.boundingBox) ?? currentSnapshot
    let now = clock()
    // Work on positions and the index's small query facts, not incidents: an incident is
    // a large value, and reading one out of the array or sorting them copied all of it.
    var matches = index.positions(meeting: area)
    let window = options.timeWindow(now: now)
    let facts = index.facts
    matches.removeAll {
      let fact = facts[$0]
      return !options.matches(
        type: fact.type, impact: fact.impact, startTime: fact.startTime,
        endTime: fact.endTime, window: window)
    }
    // Bounded before anything is sorted or encoded.
    try limits.check(results: matches.count, limit: options.limit)
    if let origin = options.sortOrigin {
      let incidents = index.incidents
      let keys = matches.map {
        (Self.distance(from: origin, to: incidents[$0]), facts[$0].originalId)
      }
      matches = matches.indices.sorted { keys[$0] < keys[$1] }.map { matches[$0] }
    } else {
      // The keys are sorted in place (their fields compared where they lie, not copied
      // out per comparison); plain numbers first, the original ids, read from the facts
      // only then, break ties (a key without a string is neither retained nor released).
      var keys = matches.map { SeverityKey(facts[$0], position: $0) }
      keys.sort { a, b in
        if a.rank != b.rank { return a.rank < b.rank }
        if a.start != b.start { return a.start > b.start }
        let first = facts[a.position].originalId, second = facts[b.position].originalId
        if first != second { return first < second }
        return a.position < b.position
      }
      matches = keys.map(\.position)
    }
    if let limit = options.limit, matches.count > limit {
      matches.removeSubrange(limit...)
    }
    return (index, matches)
  }

  /// While the snapshot loads in the background: a snapshot of the store's candidates for
  /// `box`, which the query then tests, filters and orders as on the whole snapshot; `nil`
  /// once that is there, or when the store cannot be read (the query waits for the whole
  /// snapshot then).
  private func interimSnapshot(meeting box: GeoBox) -> IncidentIndex? {
    guard let interim = interimStore,
      let candidates = try? interim.store.candidates(intersecting: box)
    else { return nil }
    return IncidentIndex(candidates, updatedAt: interim.summary.latestEntry)
  }

  /// The answer order without a sort origin: most severe first, then the latest start,
  /// then by original id (a total order, so results are stable).
  private struct SeverityKey {
    var rank: Int
    var start: Double
    var position: Int

    init(_ facts: IncidentIndex.QueryFacts, position: Int) {
      rank = TrafficEngine.severityRank(facts.impact)
      start = (facts.startTime ?? .distantPast).timeIntervalSinceReferenceDate
      self.position = position
    }
  }

  /// `lookupIncident` without the async wrapper.
  package func incident(
    originalId: String, options: TrafficIncidentLookupOptions
  )
    throws(TrafficQueryError) -> TrafficIncident
  {
    let prefix = V7IncidentWire.idNamespace
    guard !originalId.isEmpty, originalId != prefix else {
      throw .invalidIncident("the incident id is empty")
    }
    // Ids are stored as their source wrote them, with or without HERE's namespace prefix;
    // a lookup finds either form.
    let bare =
      originalId.hasPrefix(prefix) ? String(originalId.dropFirst(prefix.count)) : originalId
    // While the snapshot loads, the store finds incidents by their own ids; a merged
    // report's feed id, or an id not found, waits for the snapshot.
    if let interim = interimStore {
      for id in [originalId, bare, prefix + bare] {
        if let found = (try? interim.store.incident(originalId: id)) ?? nil {
          return texts.localized(found, to: options.languageCode)
        }
      }
    }
    let snapshot = currentSnapshot
    // An incident's own id in any form before a feed's id of a merged report: another
    // feed's report under the other form is kept apart on ingest, and must not answer here.
    let forms = originalId == bare ? [bare, prefix + bare] : [originalId, bare]
    guard
      let incident = forms.lazy.compactMap({ snapshot.incident(exactOriginalId: $0) }).first
        ?? forms.lazy.compactMap({ snapshot.incident(originalId: $0) }).first
    else {
      throw .incidentIdNotFound(bare)
    }
    return texts.localized(incident, to: options.languageCode)
  }

  /// `nearestIncident` without the async wrapper.
  package func nearest(
    to point: GeoCoordinates, within radiusInMeters: Double,
    options: TrafficIncidentsQueryOptions
  ) throws(TrafficQueryError) -> TrafficIncidentDistance? {
    guard radiusInMeters.isFinite, radiusInMeters >= 0 else {
      throw .invalidGeometry("radius \(radiusInMeters) must be a finite number >= 0")
    }
    guard radiusInMeters <= limits.maxCircleRadiusInMeters else {
      throw .invalidGeometry(
        "radius \(radiusInMeters) m exceeds the limit of \(limits.maxCircleRadiusInMeters) m")
    }
    try options.validate()
    let index = currentSnapshot
    let now = clock()
    guard
      let found = index.nearest(
        to: point, maxDistanceInMeters: radiusInMeters, where: { options.matches($0, now: now) })
    else { return nil }
    return TrafficIncidentDistance(
      incident: texts.localized(index.incidents[found.position], to: options.languageCode),
      distanceInMeters: found.distanceInMeters)
  }

  package static func distance(from point: GeoCoordinates, to incident: TrafficIncident) -> Double {
    var best = incident.location.polyline.distance(to: point)
    for polyline in incident.location.additionalPolylines {
      best = min(best, polyline.distance(to: point))
    }
    return best
  }

  private static func severityRank(_ impact: TrafficIncidentImpact) -> Int {
    switch impact {
    case .critical: return 0
    case .major: return 1
    case .minor: return 2
    case .low: return 3
    case .unknown: return 4
    }
  }

  // MARK: Change streams

  /// A stream of the changes to incidents that meet `area`: additions, new versions and
  /// removals, from now on. Cancel the consuming task (or stop iterating) to end it.
  ///
  /// A remote engine follows the server's event stream (`/v7/incidents/stream`),
  /// reconnecting when the connection drops.
  /// - Parameter area: The area to watch (any size; limits do not apply to watching).
  /// - Returns: An unbounded stream; a slow consumer buffers changes in memory.
  public func incidentChanges(inside area: some GeoArea) -> AsyncStream<IncidentChange> {
    if let remote { return remote.changes(inside: area) }
    let (stream, continuation) = AsyncStream<IncidentChange>.makeStream()
    let key = subscriptions.withLock { subscriptions in
      let key = subscriptions.nextKey
      subscriptions.nextKey += 1
      subscriptions.byKey[key] = (area, continuation)
      return key
    }
    continuation.onTermination = { [weak self] _ in
      _ = self?.subscriptions.withLock { $0.byKey.removeValue(forKey: key) }
    }
    return stream
  }
}
