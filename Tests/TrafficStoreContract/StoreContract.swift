import Foundation
import Testing
import Traffic

/// How the contract suite gets stores of one implementation.
public struct StoreHarness: Sendable {
  /// Opens a new, empty store (a fresh file, schema, or object per call).
  public var makeStore: @Sendable () throws -> any TrafficStore
  /// Opens the storage behind a store again, as a restarted process would; `nil` for stores
  /// that are not durable (the persistence check is skipped for them).
  public var reopen: (@Sendable (any TrafficStore) throws -> any TrafficStore)?

  /// Creates a harness.
  ///
  /// - Parameters:
  ///   - makeStore: Opens a new, empty store.
  ///   - reopen: Opens the same storage again; `nil` when the store is not durable.
  public init(
    makeStore: @escaping @Sendable () throws -> any TrafficStore,
    reopen: (@Sendable (any TrafficStore) throws -> any TrafficStore)? = nil
  ) {
    self.makeStore = makeStore
    self.reopen = reopen
  }
}

/// One check of the `TrafficStore` contract, run against any store through a harness.
public struct StoreContractCheck: Sendable, CustomStringConvertible {
  /// What the check asserts, shown as the test argument.
  public let description: String
  fileprivate let body: @Sendable (StoreHarness) throws -> Void

  /// Runs the check; failures are recorded as Swift Testing issues.
  ///
  /// - Parameter harness: Where to get stores.
  /// - Throws: Whatever the store throws unexpectedly.
  public func run(on harness: StoreHarness) throws {
    try body(harness)
  }
}

/// The behaviour every `TrafficStore` shares — in-memory, SQLite and PostgreSQL alike.
///
/// Each store's test target runs every check:
/// ```swift
/// @Test(arguments: StoreContract.checks)
/// func contract(_ check: StoreContractCheck) throws { try check.run(on: harness) }
/// ```
public enum StoreContract {
  /// Every check of the contract.
  public static let checks: [StoreContractCheck] = [
    StoreContractCheck(description: "every field round-trips", body: everyFieldRoundTrips),
    StoreContractCheck(description: "history is oldest first", body: historyIsOldestFirst),
    StoreContractCheck(description: "the same id replaces its version", body: sameIdReplaces),
    StoreContractCheck(description: "deletions remove the history", body: deletionsRemoveHistory),
    StoreContractCheck(description: "purge removes what ended before", body: purgeRemovesEnded),
    StoreContractCheck(
      description: "an invalid batch stores nothing", body: invalidBatchStoresNothing),
    StoreContractCheck(description: "10,000 upserts are one batch", body: largeBatchesAreAtomic),
    StoreContractCheck(description: "data survives reopening", body: dataSurvivesReopening),
    StoreContractCheck(
      description: "feed states round-trip, replace by name and survive reopening",
      body: feedStatesRoundTrip),
  ]

  // MARK: Fixtures

  /// 2027-06-01 12:00 UTC plus a fraction of a second, so that stores keep sub-second times.
  static let now = Date(timeIntervalSince1970: 1_811_851_200.123_456)
  static let hour: TimeInterval = 3600

  /// An incident with every field set to something other than its default.
  static func fullIncident(
    _ originalId: String = "full", version: Int = 1
  ) throws -> TrafficIncident {
    var restriction = VehicleRestriction()
    restriction.isTrailerRestricted = true
    restriction.restrictedIfGrossWeightMoreThanInKilograms = 7_500
    restriction.restrictedIfHigherThanInCentimeters = 380
    restriction.restrictedHazardousGoods = [.explosive, .flammable]
    restriction.restrictedTunnelCategory = .c
    let details = try TrafficIncidentDetails(
      countryCode: "de", area: "Berlin", roadName: "Sachsendamm", roadNumber: "A100",
      towards: "Hamburg", fromJunction: "Gotenstraße", toJunction: "Priesterweg",
      atJunction: "Kreuz Schöneberg", lanesClosed: 1, totalLanes: 3, closedLanes: [3],
      queueRisk: true,
      queueLengthInMeters: 1_250.5, delayInSeconds: 600.25, eventKind: .roadworks,
      cause: LocalizedText(text: "Brückenprüfung", language: .deDE),
      timeZone: TimeZone(identifier: "Europe/Berlin"))
    let main = try GeoPolyline(vertices: [
      GeoCoordinates(latitude: 52.480_012_345_678, longitude: 13.365_098_765_432, altitude: 41.5),
      GeoCoordinates(latitude: 52.481, longitude: 13.367, altitude: 42.25),
      GeoCoordinates(latitude: 52.4825, longitude: 13.3702),
    ])
    let other = try GeoPolyline(vertices: [
      GeoCoordinates(latitude: 52.4826, longitude: 13.3703),
      GeoCoordinates(latitude: 52.4811, longitude: 13.3671),
    ])
    return try TrafficIncident(
      id: "\(originalId)-v\(version)", originalId: originalId, parentId: "parent-1",
      type: .construction, impact: .critical,
      description: LocalizedText(
        text: "Baustelle \"A100\" — 1 von 3 Spuren gesperrt", language: .deDE),
      summary: LocalizedText(text: "Roadworks ✓ 🚧", language: .enGB),
      startTime: now - 3 * hour, endTime: now + 48 * hour + 0.5, entryTime: now - 4 * hour,
      isRoadClosed: true, junctionsTraversability: .intermediateClosedEdgeOpen,
      codes: [701, 401, 1],
      location: TrafficLocation(
        polyline: main, additionalPolylines: [other], lengthInMeters: 812.75,
        description: "Sachsendamm, Gotenstraße – Priesterweg",
        tmc: [
          try TMCLocationReference(
            countryCode: "D", extendedCountryCode: "E0", tableNumber: "1", tableVersion: "19.1",
            primaryLocationCode: 10429, secondaryLocationCode: 10430, extent: 1,
            direction: .negative, primaryOffsetInMeters: 120.5, secondaryOffsetInMeters: 0,
            affectedLengthInMeters: 812.75),
          try TMCLocationReference(countryCode: "D", tableNumber: "1", primaryLocationCode: 7),
        ],
        openLR: "CwRbWyNG9RpsCQCb/jsbtAT/6/+jK1lE"),
      vehicleRestrictions: [.heavyGoodsVehicle: restriction, .bus: .always],
      details: details,
      sourceTexts: [
        LocalizedText(text: "Bauarbeiten", language: .deDE),
        LocalizedText(text: "Roadworks", language: .enGB),
      ])
  }

  /// A plain incident at one point, with the given times.
  static func incident(
    _ originalId: String, version: Int = 1, start: Date? = now - hour,
    end: Date? = now + hour, latitude: Double = 52.5, longitude: Double = 13.4
  ) throws -> TrafficIncident {
    try TrafficIncident(
      id: "\(originalId)-v\(version)", originalId: originalId, type: .accident, impact: .major,
      description: LocalizedText(text: "\(originalId) version \(version)", language: .enUS),
      startTime: start, endTime: end,
      location: TrafficLocation(
        point: GeoCoordinates(latitude: latitude, longitude: longitude)))
  }

  static func current(_ store: any TrafficStore) throws -> [TrafficIncident] {
    try store.currentIncidents().sorted { $0.originalId < $1.originalId }
  }

  // MARK: Checks

  static func everyFieldRoundTrips(_ harness: StoreHarness) throws {
    let store = try harness.makeStore()
    let full = try fullIncident()
    let bare = try TrafficIncident(
      id: "bare", type: .unknown, impact: .unknown,
      location: TrafficLocation(point: GeoCoordinates(latitude: -33.9, longitude: 151.2)))
    let antimeridian = try TrafficIncident(
      id: "dateline", type: .weather, impact: .low,
      location: TrafficLocation(
        polyline: GeoPolyline(vertices: [
          GeoCoordinates(latitude: -17, longitude: 179.5),
          GeoCoordinates(latitude: -17.5, longitude: -179.5),
        ])))
    try store.apply(IncidentBatch(upserts: [full, bare, antimeridian]))
    let stored = try current(store)
    #expect(stored == [bare, antimeridian, full])
    // `TrafficIncident`'s `==` is synthesised: it compares every stored property.
    #expect(try store.history(ofOriginalId: "full") == [full])
    #expect(try store.history(ofOriginalId: "unknown").isEmpty)
  }

  static func historyIsOldestFirst(_ harness: StoreHarness) throws {
    let store = try harness.makeStore()
    try store.apply(IncidentBatch(upserts: [try incident("a", version: 1), try incident("b")]))
    try store.apply(IncidentBatch(upserts: [try incident("a", version: 2)]))
    // Two versions in one batch: both join the history, in batch order.
    try store.apply(
      IncidentBatch(upserts: [try incident("a", version: 3), try incident("a", version: 4)]))
    #expect(try store.history(ofOriginalId: "a").map(\.id) == ["a-v1", "a-v2", "a-v3", "a-v4"])
    #expect(try store.history(ofOriginalId: "b").map(\.id) == ["b-v1"])
    #expect(try current(store).map(\.id) == ["a-v4", "b-v1"])
  }

  static func sameIdReplaces(_ harness: StoreHarness) throws {
    let store = try harness.makeStore()
    try store.apply(IncidentBatch(upserts: [try incident("a", version: 1)]))
    var corrected = try incident("a", version: 1)
    corrected.impact = .critical
    try store.apply(IncidentBatch(upserts: [corrected]))
    #expect(try store.history(ofOriginalId: "a") == [corrected])
    try store.apply(IncidentBatch(upserts: [try incident("a", version: 2)]))
    var second = try incident("a", version: 2)
    second.isRoadClosed = true
    try store.apply(IncidentBatch(upserts: [second]))
    #expect(try store.history(ofOriginalId: "a") == [corrected, second])
    #expect(try current(store) == [second])
  }

  static func deletionsRemoveHistory(_ harness: StoreHarness) throws {
    let store = try harness.makeStore()
    try store.apply(
      IncidentBatch(upserts: [try incident("a"), try incident("b"), try incident("c")]))
    try store.apply(IncidentBatch(upserts: [try incident("a", version: 2)]))
    try store.apply(IncidentBatch(deletions: ["a", "never-stored"]))
    #expect(try current(store).map(\.originalId) == ["b", "c"])
    #expect(try store.history(ofOriginalId: "a").isEmpty)
    // Deleting and re-adding in later batches starts a new history.
    try store.apply(IncidentBatch(upserts: [try incident("c", version: 2)], deletions: ["b"]))
    try store.apply(IncidentBatch(upserts: [try incident("a", version: 7)]))
    #expect(try current(store).map(\.id) == ["a-v7", "c-v2"])
    #expect(try store.history(ofOriginalId: "a").map(\.id) == ["a-v7"])
    #expect(try store.history(ofOriginalId: "c").map(\.id) == ["c-v1", "c-v2"])
  }

  static func purgeRemovesEnded(_ harness: StoreHarness) throws {
    let store = try harness.makeStore()
    let cutoff = now
    try store.apply(
      IncidentBatch(upserts: [
        try incident("long-ended", start: now - 9 * hour, end: now - 5 * hour),
        try incident("just-ended", start: now - hour, end: now - 0.000_1),
        // Within the same millisecond as the cutoff, yet before it.
        try incident("ended-a-moment-before", start: now - hour, end: now - 0.000_000_5),
        try incident("ends-at-cutoff", start: now - hour, end: cutoff),
        try incident("running", end: now + hour),
        try incident("open-ended", end: nil),
      ]))
    try store.apply(
      IncidentBatch(upserts: [
        try incident("long-ended", version: 2, start: now - 9 * hour, end: now - 4 * hour)
      ]))
    #expect(
      try store.purge(endedBefore: cutoff) == ["ended-a-moment-before", "just-ended", "long-ended"])
    #expect(
      try current(store).map(\.originalId) == ["ends-at-cutoff", "open-ended", "running"])
    #expect(try store.history(ofOriginalId: "long-ended").isEmpty)
    #expect(try store.purge(endedBefore: cutoff).isEmpty)
    #expect(try store.purge(endedBefore: now + 2 * hour) == ["ends-at-cutoff", "running"])
  }

  static func invalidBatchStoresNothing(_ harness: StoreHarness) throws {
    let store = try harness.makeStore()
    try store.apply(IncidentBatch(upserts: [try incident("a")]))
    let invalid = IncidentBatch(
      upserts: [try incident("a", version: 2), try incident("b")], deletions: ["c", "b"])
    #expect(throws: TrafficStoreError.invalidBatch("original id b is both upserted and deleted")) {
      try store.apply(invalid)
    }
    #expect(try current(store).map(\.id) == ["a-v1"])
    #expect(try store.history(ofOriginalId: "a").map(\.id) == ["a-v1"])
    #expect(try store.history(ofOriginalId: "b").isEmpty)
  }

  static func largeBatchesAreAtomic(_ harness: StoreHarness) throws {
    let store = try harness.makeStore()
    let count = 10_000
    let first = try (0..<count).map { i in
      try incident(
        "n\(i)", latitude: -80 + Double(i % 160), longitude: -179 + Double(i % 358))
    }
    try store.apply(IncidentBatch(upserts: first))
    let stored = try current(store)
    #expect(stored.count == count)
    #expect(Set(stored) == Set(first))
    // A second large batch that is invalid only at its very end changes nothing.
    var second = try (0..<count).map { i in try incident("n\(i)", version: 2) }
    second.append(try incident("late"))
    #expect(throws: TrafficStoreError.self) {
      try store.apply(IncidentBatch(upserts: second, deletions: ["late"]))
    }
    #expect(try current(store).allSatisfy { $0.id.hasSuffix("-v1") })
    #expect(try store.history(ofOriginalId: "n9999").map(\.id) == ["n9999-v1"])
  }

  static func dataSurvivesReopening(_ harness: StoreHarness) throws {
    guard let reopen = harness.reopen else { return }
    let store = try harness.makeStore()
    try store.apply(IncidentBatch(upserts: [try fullIncident(), try incident("b")]))
    try store.apply(IncidentBatch(upserts: [try fullIncident(version: 2)], deletions: ["b"]))
    let reopened = try reopen(store)
    #expect(try current(reopened) == [try fullIncident(version: 2)])
    #expect(
      try reopened.history(ofOriginalId: "full") == [
        try fullIncident(), try fullIncident(version: 2),
      ])
    #expect(try reopened.history(ofOriginalId: "b").isEmpty)
  }

  static func feedStatesRoundTrip(_ harness: StoreHarness) throws {
    let store = try harness.makeStore()
    let feeds = try #require(store as? any FeedStateStore, "every store keeps feed states")
    #expect(try feeds.feedState(named: "berlin") == nil)
    var state = FeedPollState(
      name: "berlin", url: "https://user:pw@example.org/datex.xml?key=1", etag: "W/\"7\"",
      lastModified: "Wed, 21 Oct 2015 07:28:00 GMT", lastFetch: now,
      lastSuccess: now.addingTimeInterval(-60.5), lastError: nil, fetchCount: 12,
      errorCount: 3, consecutiveFailures: 0, incidentCount: 340, problemCount: 2)
    try feeds.saveFeedState(state)
    try feeds.saveFeedState(FeedPollState(name: "wien", url: "https://example.org/wien"))
    #expect(try feeds.feedState(named: "berlin") == state)
    #expect(
      try feeds.feedState(named: "wien")
        == FeedPollState(
          name: "wien", url: "https://example.org/wien"))
    state.etag = nil
    state.lastModified = nil
    state.lastError = "HTTP status 503 — «unavailable»"
    state.errorCount = 4
    state.consecutiveFailures = 1
    try feeds.saveFeedState(state)
    #expect(try feeds.feedState(named: "berlin") == state)
    guard let reopen = harness.reopen else { return }
    let reopened = try #require(try reopen(store) as? any FeedStateStore)
    #expect(try reopened.feedState(named: "berlin") == state)
  }
}
