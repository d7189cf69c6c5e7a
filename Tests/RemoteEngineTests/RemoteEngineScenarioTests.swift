import Foundation
import Testing
import Traffic
import TrafficServer

/// The shared scenario suite: the same questions asked of an embedded engine and of a remote
/// engine talking to `TrafficServer` (on loopback) over the same data must get the same
/// answers — incidents, texts, order, errors.
@Suite(.serialized) struct RemoteEngineScenarioTests {
  static let now = Date()
  static let hour: TimeInterval = 3600

  static func incident(
    _ id: String, _ points: [(Double, Double)], type: TrafficIncidentType = .accident,
    impact: TrafficIncidentImpact = .major, details: TrafficIncidentDetails = .none
  ) throws -> TrafficIncident {
    let vertices = try points.map { try GeoCoordinates(latitude: $0.0, longitude: $0.1) }
    let polyline =
      vertices.count == 1 ? GeoPolyline(point: vertices[0]) : try GeoPolyline(vertices: vertices)
    return try TrafficIncident(
      id: "\(id)-v1", originalId: id, type: type, impact: impact,
      startTime: now - hour, endTime: now + 24 * hour,
      location: TrafficLocation(polyline: polyline), details: details)
  }

  static func data() throws -> [TrafficIncident] {
    [
      try incident(
        "sachsendamm", [(52.4850, 13.3656), (52.4836, 13.3611), (52.4808, 13.3528)],
        type: .construction, impact: .minor,
        details: TrafficIncidentDetails(
          countryCode: "DE", area: "Berlin", roadName: "Sachsendamm", fromJunction: "Gotenstraße",
          toJunction: "Priesterweg", lanesClosed: 1, totalLanes: 2, queueRisk: true,
          eventKind: .roadworks, timeZone: TimeZone(identifier: "Europe/Berlin"))),
      try incident("a100", [(52.4783, 13.3432)], type: .accident, impact: .critical),
      try incident("tempelhof", [(52.4711, 13.3850), (52.4652, 13.3857)], type: .roadClosure),
      try incident("far", [(52.3823, 12.8703), (52.3469, 12.9912)], type: .congestion),
    ]
  }

  /// A server with the data on loopback, a remote engine on it, and an embedded engine with
  /// the same data.
  static func withEngines(
    apiKeys: Set<String> = [], key: String? = nil,
    _ body: (_ embedded: TrafficEngine, _ remote: TrafficEngine, _ port: Int) async throws -> Void
  ) async throws {
    let store = InMemoryTrafficStore()
    try store.apply(IncidentBatch(upserts: data()))
    let served = try TrafficEngine(store: store)
    let server = try TrafficServer(
      engine: served,
      configuration: ServerConfiguration(port: 0, apiKeys: apiKeys, accessLog: .none))
    try server.start()
    defer { server.stop() }
    let port = try #require(server.port)
    let remote = try TrafficEngine(
      server: try #require(URL(string: "http://127.0.0.1:\(port)")), apiKey: key ?? apiKeys.first,
      timeoutInSeconds: 10)
    let embeddedStore = InMemoryTrafficStore()
    try embeddedStore.apply(IncidentBatch(upserts: data()))
    try await body(try TrafficEngine(store: embeddedStore), remote, port)
  }

  /// What a user sees of an incident (geometry to ~1 cm, the precision of the wire).
  static func view(_ incident: TrafficIncident) -> String {
    let points = incident.location.polyline.vertices.map {
      String(format: "%.6f,%.6f", $0.latitude, $0.longitude)
    }
    return [
      incident.originalId, incident.type.rawValue, incident.impact.rawValue,
      incident.description.text, incident.description.language.identifier, incident.summary.text,
      incident.startTime.map { String(Int($0.timeIntervalSince1970)) } ?? "-",
      incident.endTime.map { String(Int($0.timeIntervalSince1970)) } ?? "-",
      String(incident.isRoadClosed), points.joined(separator: " "),
    ].joined(separator: " | ")
  }

  @Test func queriesAnswerAlikeEmbeddedAndRemote() async throws {
    try await Self.withEngines { embedded, remote, _ in
      #expect(remote.isRemote)
      let center = try GeoCoordinates(latitude: 52.4800, longitude: 13.3600)
      let areas: [any GeoArea] = [
        try GeoCircle(center: center, radiusInMeters: 2_000),
        try GeoCircle(center: center, radiusInMeters: 50_000),
        try GeoBox(west: 13.34, south: 52.46, east: 13.40, north: 52.49),
        try GeoCorridor(
          polyline: [
            try GeoCoordinates(latitude: 52.4850, longitude: 13.3300),
            try GeoCoordinates(latitude: 52.4850, longitude: 13.4000),
          ], halfWidthInMeters: 200),
      ]
      let optionSets: [TrafficIncidentsQueryOptions] = [
        TrafficIncidentsQueryOptions(),
        TrafficIncidentsQueryOptions(languageCode: .deDE),
        TrafficIncidentsQueryOptions(
          typeFilter: [.construction, .roadClosure], languageCode: .frFR),
        TrafficIncidentsQueryOptions(impactFilter: [.critical]),
        TrafficIncidentsQueryOptions(limit: 2).sortedByDistance(from: center),
      ]
      var compared = 0
      for area in areas {
        for options in optionSets {
          let local = try await embedded.queryForIncidents(inside: area, queryOptions: options)
          let far = try await remote.queryForIncidents(inside: area, queryOptions: options)
          #expect(far.map(Self.view) == local.map(Self.view), "\(type(of: area)) \(options)")
          compared += local.count
        }
      }
      #expect(compared > 20)
    }
  }

  /// A remote engine's `lastUpdate` is the server's `sourceUpdated` (what `traffic
  /// incidents --server --json` prints); it was always `nil`.
  @Test func lastUpdateIsTheServersSourceUpdated() async throws {
    let served = try TrafficEngine(store: InMemoryTrafficStore())
    try served.ingest(try Self.data(), from: "feed", isFullRefresh: false)
    let written = try #require(served.lastUpdate)
    let server = try TrafficServer(
      engine: served, configuration: ServerConfiguration(port: 0, accessLog: .none))
    try server.start()
    defer { server.stop() }
    let port = try #require(server.port)
    let remote = try TrafficEngine(
      server: try #require(URL(string: "http://127.0.0.1:\(port)")), timeoutInSeconds: 10)
    #expect(remote.lastUpdate == nil)
    _ = try await remote.queryForIncidents(
      inside: try GeoCircle(
        center: try GeoCoordinates(latitude: 52.48, longitude: 13.36), radiusInMeters: 2_000))
    let seen = try #require(remote.lastUpdate)
    // To the millisecond of the wire.
    #expect(abs(seen.timeIntervalSince(written)) < 0.002)
  }

  @Test func lookupNearestAndErrorsAnswerAlike() async throws {
    try await Self.withEngines { embedded, remote, _ in
      for language in [LanguageCode.deDE, .enGB, .plPL] {
        let options = TrafficIncidentLookupOptions(languageCode: language)
        #expect(
          Self.view(try await remote.lookupIncident(with: "sachsendamm", lookupOptions: options))
            == Self.view(
              try await embedded.lookupIncident(with: "sachsendamm", lookupOptions: options)))
      }
      let car = try GeoCoordinates(latitude: 52.4826, longitude: 13.3575)
      let near = try await remote.nearestIncident(to: car, within: 5_000)
      #expect(near?.incident.originalId == "sachsendamm")
      let local = try await embedded.nearestIncident(to: car, within: 5_000)
      #expect(abs((near?.distanceInMeters ?? 0) - (local?.distanceInMeters ?? 1)) < 0.5)

      #expect(
        await Self.error { _ = try await remote.lookupIncident(with: "nope") }
          == .incidentIdNotFound("nope"))
      let huge = try GeoCircle(center: car, radiusInMeters: 60_000)
      #expect(
        await Self.error { _ = try await remote.queryForIncidents(inside: huge) }?.name
          == "invalidGeometry")
      let inverted = TrafficIncidentsQueryOptions(
        earliestStartTime: Self.now, latestEndTime: Self.now - 60)
      #expect(
        await Self.error {
          _ = try await remote.queryForIncidents(
            inside: GeoCircle(center: car, radiusInMeters: 100), queryOptions: inverted)
        }?.name == "invalidFilterOptions")
    }
  }

  @Test func aLongCorridorGoesByPostAndStillAnswers() async throws {
    try await Self.withEngines { embedded, remote, _ in
      // 280 points: the URL would exceed the limit, so the remote engine POSTs.
      let path = try (0..<280).map { i in
        try GeoCoordinates(
          latitude: 52.47 + Double(i % 2) * 0.0001, longitude: 13.30 + Double(i) * 0.0005)
      }
      let corridor = try GeoCorridor(polyline: path, halfWidthInMeters: 1_500)
      let local = try await embedded.queryForIncidents(inside: corridor)
      let far = try await remote.queryForIncidents(inside: corridor)
      #expect(!local.isEmpty)
      #expect(far.map(Self.view) == local.map(Self.view))
    }
  }

  @Test func changeStreamsFollowTheServer() async throws {
    let store = InMemoryTrafficStore()
    let served = try TrafficEngine(store: store)
    let server = try TrafficServer(
      engine: served, configuration: ServerConfiguration(port: 0, accessLog: .none))
    try server.start()
    defer { server.stop() }
    let port = try #require(server.port)
    let remote = try TrafficEngine(server: try #require(URL(string: "http://127.0.0.1:\(port)")))
    let area = try GeoCircle(
      center: GeoCoordinates(latitude: 52.4783, longitude: 13.3432), radiusInMeters: 1_000)
    let stream = remote.incidentChanges(inside: area)
    let watcher = Task { () -> [String] in
      var seen: [String] = []
      for await change in stream {
        seen.append("\(change.kind.rawValue) \(change.incident.originalId)")
        if seen.count == 2 { break }
      }
      return seen
    }
    // Give the stream time to connect, then change things on the server.
    try await Task.sleep(for: .milliseconds(500))
    try served.apply(IncidentBatch(upserts: [try Self.incident("a100", [(52.4783, 13.3432)])]))
    try served.apply(IncidentBatch(deletions: ["a100"]))
    let timeout = Task {
      try await Task.sleep(for: .seconds(10))
      watcher.cancel()
    }
    let seen = await watcher.value
    timeout.cancel()
    #expect(seen == ["added a100", "removed a100"])
  }

  @Test func completionHandlersWorkRemotely() async throws {
    try await Self.withEngines { _, remote, _ in
      let circle = try GeoCircle(
        center: GeoCoordinates(latitude: 52.4783, longitude: 13.3432), radiusInMeters: 100)
      let ids: [String] = await withCheckedContinuation { continuation in
        remote.queryForIncidents(inside: circle) { error, incidents in
          continuation.resume(
            returning: error == nil
              ? (incidents ?? []).map(\.originalId) : ["\(String(describing: error))"])
        }
      }
      #expect(ids == ["a100"])
    }
  }

  @Test(arguments: ["stream", "..", "."])
  func idsThatAreAlsoPathsAreLookedUp(id: String) async throws {
    // `/v7/incidents/stream` is the event stream, and a URL resolves `..` and `.` away.
    let store = InMemoryTrafficStore()
    try store.apply(
      IncidentBatch(upserts: [try Self.incident(id, [(52.4783, 13.3432)], type: .accident)]))
    let server = try TrafficServer(
      engine: try TrafficEngine(store: store),
      configuration: ServerConfiguration(port: 0, accessLog: .none))
    try server.start()
    defer { server.stop() }
    let port = try #require(server.port)
    let remote = try TrafficEngine(
      server: try #require(URL(string: "http://127.0.0.1:\(port)")), timeoutInSeconds: 10)
    #expect(try await remote.lookupIncident(with: id).originalId == id)
  }

  @Test func keysAreSentAndAWrongKeyIsAuthenticationFailed() async throws {
    try await Self.withEngines(apiKeys: ["secret-key"]) { _, remote, port in
      #expect(try await remote.lookupIncident(with: "a100").originalId == "a100")
      let stranger = try TrafficEngine(
        server: try #require(URL(string: "http://127.0.0.1:\(port)")), apiKey: "wrong")
      #expect(
        await Self.error { _ = try await stranger.lookupIncident(with: "a100") }
          == .authenticationFailed)
    }
  }

  @Test func anUnreachableServerIsServerUnreachable() async throws {
    // Port 1 on loopback: nothing listens there.
    let remote = try TrafficEngine(
      server: try #require(URL(string: "http://127.0.0.1:1")), timeoutInSeconds: 5)
    #expect(
      await Self.error { _ = try await remote.lookupIncident(with: "a100") } == .serverUnreachable)
    #expect(throws: TrafficEngineError.self) {
      try TrafficEngine(server: try #require(URL(string: "ftp://example.org")))
    }
  }

  static func error(_ body: () async throws -> Void) async -> TrafficQueryError? {
    do {
      try await body()
      return nil
    } catch let error as TrafficQueryError {
      return error
    } catch {
      return .internalError("\(error)")
    }
  }
}
