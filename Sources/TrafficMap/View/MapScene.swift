import Foundation
import Synchronization
import Traffic

/// The content of a `MapView`: the basemap loaded with `loadScene`, the traffic layers
/// switched on with `enableFeatures`, and the markers and polylines the caller adds — the
/// HERE SDK's `MapScene`.
///
/// As in the HERE SDK, features are set synchronously and only on a loaded scene: call
/// `enableFeatures(_:)` after `loadScene` has completed. Setting them before the first load
/// throws `MapError.sceneNotLoaded`, and while a load is running `MapError.sceneLoading`.
public final class MapScene: Sendable {
  /// Whether a scene is there to draw.
  public enum LoadState: Hashable, Sendable {
    /// `loadScene` has not completed yet.
    case notLoaded
    /// A load is running.
    case loading
    /// A scene of this scheme is loaded.
    case loaded(MapScheme)
  }

  struct TrafficKey: Hashable {
    var centerX: Double
    var centerY: Double
    var zoom: Double
    var box: GeoBox
    var flowMode: MapFeatureModes?
    var incidents: Bool
    var filter: Set<TrafficIncidentType>
  }

  private struct State {
    var load = LoadState.notLoaded
    var loadedScheme: MapScheme?
    var loadGeneration = 0
    var basemap: BasemapIndex?
    var features: [MapFeatures: MapFeatureModes] = [:]
    var settings = MapContentSettings.standard
    var markers: [MapMarker] = []
    var polylines: [MapPolyline] = []
    var traffic: (key: TrafficKey, content: TrafficContent, fetchedAt: Date)?
  }

  /// The engine whose network, flow and incidents the scene shows.
  public let engine: TrafficEngine?
  private let clock: @Sendable () -> Date
  private let state = Mutex(State())
  /// Runs just before a load completes (tests hold a load open with it).
  let beforeLoadCompletes = Mutex<(@Sendable () async -> Void)?>(nil)

  init(engine: TrafficEngine?, clock: @escaping @Sendable () -> Date) {
    self.engine = engine
    self.clock = clock
  }

  // MARK: Loading

  /// Where loading stands.
  public var loadState: LoadState { state.withLock { $0.load } }

  /// Loads a scene: the basemap of the engine's road network (when it has one) in a scheme.
  ///
  /// The scene is `loading` from the call until the load completes; then features can be
  /// set. Loading again replaces the basemap and keeps features, markers and polylines.
  /// - Parameter mapScheme: The basemap's look.
  /// - Throws: `MapError.loadCancelled` when the calling task is cancelled first; the
  ///   previous scene (if any) stays then.
  /// - Complexity: O(n log n) to index the n segments of the network.
  public func loadScene(mapScheme: MapScheme) async throws(MapError) {
    let generation = beginLoad()
    try await finishLoad(mapScheme, generation: generation)
  }

  /// Loads a scene, reporting completion to a handler, as in the HERE SDK.
  ///
  /// The scene is `loading` when this returns; `completion` is called once from a
  /// background task when the load has finished, with `nil` on success.
  /// - Parameters:
  ///   - mapScheme: The basemap's look.
  ///   - completion: Called with `nil`, or with the error.
  public func loadScene(
    mapScheme: MapScheme, completion: @escaping @Sendable (MapError?) -> Void
  ) {
    let generation = beginLoad()
    Task {
      do throws(MapError) {
        try await finishLoad(mapScheme, generation: generation)
        completion(nil)
      } catch {
        completion(error)
      }
    }
  }

  private func beginLoad() -> Int {
    state.withLock { state in
      state.load = .loading
      state.loadGeneration += 1
      return state.loadGeneration
    }
  }

  private func finishLoad(_ scheme: MapScheme, generation: Int) async throws(MapError) {
    let basemap = engine?.roadNetwork.map(BasemapIndex.init(network:))
    if let hook = beforeLoadCompletes.withLock({ $0 }) { await hook() }
    let cancelled = Task.isCancelled
    state.withLock { state in
      // A later load supersedes this one.
      guard state.loadGeneration == generation else { return }
      if cancelled {
        state.load = state.loadedScheme.map(LoadState.loaded) ?? .notLoaded
        return
      }
      state.load = .loaded(scheme)
      state.loadedScheme = scheme
      state.basemap = basemap
      state.traffic = nil
    }
    if cancelled { throw .loadCancelled }
  }

  // MARK: Features

  /// The features switched on, with their modes.
  public var enabledFeatures: [MapFeatures: MapFeatureModes] { state.withLock { $0.features } }

  /// Switches features on (or changes their mode), synchronously.
  ///
  /// - Parameter features: Features and modes: `trafficFlow` with
  ///   `trafficFlowWithFreeFlow` or `trafficFlowWithoutFreeFlow`, `trafficIncidents` with
  ///   `defaultMode`.
  /// - Throws: `MapError.sceneNotLoaded` before the first load completed,
  ///   `.sceneLoading` while a load runs, `.unsupportedFeatureMode` for a mode that does not
  ///   belong to its feature (nothing changes then).
  public func enableFeatures(_ features: [MapFeatures: MapFeatureModes]) throws(MapError) {
    for (feature, mode) in features {
      let allowed: [MapFeatureModes]
      switch feature {
      case .trafficFlow: allowed = [.trafficFlowWithFreeFlow, .trafficFlowWithoutFreeFlow]
      case .trafficIncidents: allowed = [.defaultMode]
      default: allowed = []
      }
      guard allowed.contains(mode) else {
        throw .unsupportedFeatureMode(feature: feature.rawValue, mode: mode.rawValue)
      }
    }
    try state.withLock { (state: inout State) throws(MapError) in
      try MapScene.checkLoaded(state)
      state.features.merge(features) { _, new in new }
    }
  }

  /// Switches features off, synchronously; features that are off are ignored.
  ///
  /// - Parameter features: The features.
  /// - Throws: `MapError.sceneNotLoaded` before the first load completed, `.sceneLoading`
  ///   while a load runs.
  public func disableFeatures(_ features: [MapFeatures]) throws(MapError) {
    try state.withLock { (state: inout State) throws(MapError) in
      try MapScene.checkLoaded(state)
      for feature in features { state.features[feature] = nil }
    }
  }

  private static func checkLoaded(_ state: State) throws(MapError) {
    switch state.load {
    case .loading: throw .sceneLoading
    case .notLoaded: throw .sceneNotLoaded
    case .loaded: return
    }
  }

  /// The traffic refresh period and the incident type filter.
  public var contentSettings: MapContentSettings {
    get { state.withLock { $0.settings } }
    set { state.withLock { $0.settings = newValue } }
  }

  // MARK: Overlays

  /// The markers added, in drawing order (the last on top).
  public var mapMarkers: [MapMarker] { state.withLock { $0.markers } }
  /// The polylines added, in drawing order (the last on top).
  public var mapPolylines: [MapPolyline] { state.withLock { $0.polylines } }

  /// Adds a marker on top of everything drawn so far; adding it twice has no effect.
  ///
  /// - Parameter marker: The marker.
  public func addMapMarker(_ marker: MapMarker) {
    state.withLock { state in
      if !state.markers.contains(marker) { state.markers.append(marker) }
    }
  }

  /// Removes a marker; one not added is ignored.
  ///
  /// - Parameter marker: The marker.
  public func removeMapMarker(_ marker: MapMarker) {
    state.withLock { $0.markers.removeAll { $0 === marker } }
  }

  /// Adds a polyline above the traffic layers (below markers); adding it twice has no
  /// effect.
  ///
  /// - Parameter polyline: The polyline.
  public func addMapPolyline(_ polyline: MapPolyline) {
    state.withLock { state in
      if !state.polylines.contains(polyline) { state.polylines.append(polyline) }
    }
  }

  /// Removes a polyline; one not added is ignored.
  ///
  /// - Parameter polyline: The polyline.
  public func removeMapPolyline(_ polyline: MapPolyline) {
    state.withLock { $0.polylines.removeAll { $0 === polyline } }
  }

  // MARK: Drawing

  /// What a view of `projection` shows of traffic under the scene's features and settings:
  /// the cache key, and the queries (`nil` when it shows none).
  private static func traffic(
    for projection: ViewProjection, _ state: State
  ) -> (key: TrafficKey, request: TrafficContent.Request?) {
    let flowMode = state.features[.trafficFlow]
    let showIncidents = state.features[.trafficIncidents] != nil
    let filter = state.settings.incidentTypeFilter
    let key = TrafficKey(
      centerX: projection.centerX, centerY: projection.centerY, zoom: projection.zoom,
      box: projection.coveringBox(marginInPixels: 32), flowMode: flowMode,
      incidents: showIncidents, filter: filter)
    let request = TrafficContent.Request(
      box: key.box, zoom: projection.zoom, flowMode: flowMode, incidents: showIncidents,
      incidentTypes: filter)
    return (key, request)
  }

  /// Whether traffic fetched at `fetchedAt` is still within the refresh period.
  private func isFresh(_ fetchedAt: Date, _ settings: MapContentSettings) -> Bool {
    abs(clock().timeIntervalSince(fetchedAt)) < settings.trafficRefreshPeriodInSeconds
  }

  /// The layers of a view. Traffic is fetched when the view, features or settings changed
  /// or the data is older than the refresh period; for a remote engine, whose server answers
  /// only asynchronously, it is what `refreshTraffic(for:)` fetched for this view, however
  /// old.
  ///
  /// - Parameter unfetchedTrafficIsEmpty: Whether a remote engine's view whose traffic was
  ///   not fetched has none, rather than being an error.
  /// - Throws: `MapError.sceneNotLoaded` before a scene is loaded, `.trafficNotFetched` for
  ///   a remote engine's view whose traffic was not fetched.
  func layers(
    for projection: ViewProjection, unfetchedTrafficIsEmpty: Bool = false
  ) throws(MapError) -> SceneLayers {
    let snapshot = state.withLock { $0 }
    guard let scheme = snapshot.loadedScheme else { throw .sceneNotLoaded }
    let (key, request) = MapScene.traffic(for: projection, snapshot)
    var traffic = TrafficContent.empty
    if let engine, request != nil {
      if let cached = snapshot.traffic, cached.key == key,
        engine.isRemote || isFresh(cached.fetchedAt, snapshot.settings)
      {
        traffic = cached.content
      } else if engine.isRemote {
        if !unfetchedTrafficIsEmpty { throw .trafficNotFetched }
      } else {
        let now = clock()
        traffic = TrafficContent.fetch(
          engine: engine, box: key.box, zoom: projection.zoom, flowMode: key.flowMode,
          incidents: key.incidents, incidentTypes: key.filter)
        let fetched = traffic
        state.withLock { $0.traffic = (key, fetched, now) }
      }
    }
    return SceneLayers(
      scheme: scheme, basemap: snapshot.basemap, flowMode: key.flowMode,
      showIncidents: key.incidents, traffic: traffic, polylines: snapshot.polylines,
      markers: snapshot.markers)
  }

  /// Fetches the traffic a view of `projection` shows through the engine's asynchronous
  /// queries (a remote engine's server) and keeps it for the view's next pictures and picks.
  ///
  /// - Parameter onlyWhenStale: Whether traffic fetched for this view within the refresh
  ///   period is kept instead.
  /// - Throws: `MapError.sceneNotLoaded` before a scene is loaded, `.trafficQueryFailed`
  ///   with the engine's error.
  func refreshTraffic(
    for projection: ViewProjection, onlyWhenStale: Bool = false
  ) async throws(MapError) {
    let snapshot = state.withLock { $0 }
    guard snapshot.loadedScheme != nil else { throw .sceneNotLoaded }
    let (key, request) = MapScene.traffic(for: projection, snapshot)
    guard let engine, let request else { return }
    if onlyWhenStale, let cached = snapshot.traffic, cached.key == key,
      isFresh(cached.fetchedAt, snapshot.settings)
    {
      return
    }
    let now = clock()
    let content: TrafficContent
    do {
      content = try await TrafficContent.fetch(request, engine: engine)
    } catch {
      throw .trafficQueryFailed(error)
    }
    state.withLock { $0.traffic = (key, content, now) }
  }
}
