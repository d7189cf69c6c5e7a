import Foundation
import Synchronization
import Traffic

/// Renders the tiles behind the web map: basemap, flow and incident PNGs (256 pixels, or
/// 512 at scale 2) and traffic vector tiles, each from one reading of the engine's
/// snapshots, with a small cache.
///
/// **Caching.** Each tile is cached with two keys to its validity:
/// - the *data version*: the engine's `lastUpdate`, `flowLastUpdate` and the current minute
///   (incidents begin and end, and flow observations age, without an update). While the
///   version is unchanged a request is answered from the cache without reading the engine.
///   (An update whose newest observation is no newer than the previous newest leaves the
///   version unchanged; its tiles are refreshed within the minute.)
/// - the *content fingerprint*: an FNV-1a hash of what the tile shows — for a flow tile the
///   colour class of each road drawn, for an incident tile the versions of its incidents,
///   for a vector tile every attribute. After an update the tile's content is read again and
///   fingerprinted; only when the fingerprint changed is the tile drawn again. So tiles of
///   the changed area are re-rendered and the others keep their bytes and their ETag (the
///   fingerprint is the ETag).
///
/// The cache holds `cacheCapacity` tiles; beyond that the oldest quarter is dropped.
/// Safe to use from many threads (the HTTP server's); rendering happens outside the lock.
public final class TileRenderer: Sendable {
  /// The side of a tile at scale 1, pixels.
  public static let tileSizeInPixels = 256

  /// The lowest zoom whose tiles draw traffic (flow and incidents): below it a tile spans
  /// too much for per-road traffic to be readable or cheap, and its traffic is empty.
  public static let minimumTrafficZoom = Int(TrafficMapStyle.minimumTrafficZoom)

  /// Where flow and incidents come from.
  public let engine: TrafficEngine
  /// The basemap's look.
  public let scheme: MapScheme
  /// The most tiles kept.
  public let cacheCapacity: Int
  private let basemap: BasemapIndex?
  private let clock: @Sendable () -> Date
  private let cache = Mutex(Cache())

  /// How the cache has done.
  public struct CacheStatistics: Hashable, Sendable {
    /// Requests answered with cached bytes.
    public var hits = 0
    /// Requests that drew or encoded a tile.
    public var renders = 0
    /// Tiles held.
    public var entries = 0
  }

  private struct Entry {
    var version: DataVersion
    var fingerprint: UInt64
    var tile: RenderedTile
  }

  private struct DataVersion: Hashable {
    var incidents: Date?
    var flow: Date?
    var minute: Int
  }

  private struct Cache {
    var entries: [TileRequest: Entry] = [:]
    var order: [TileRequest] = []
    var statistics = CacheStatistics()
  }

  /// Creates a renderer; indexes the engine's network for the basemap.
  ///
  /// - Parameters:
  ///   - engine: Where flow and incidents come from.
  ///   - scheme: The basemap's look.
  ///   - cacheCapacity: The most tiles to keep (at least 16).
  ///   - clock: The current time (the minute is part of the data version).
  /// - Complexity: O(n log n) for the n segments of the network.
  public init(
    engine: TrafficEngine, scheme: MapScheme = .normalDay, cacheCapacity: Int = 4096,
    clock: @escaping @Sendable () -> Date = { Date() }
  ) {
    self.engine = engine
    self.scheme = scheme
    self.cacheCapacity = max(16, cacheCapacity)
    self.clock = clock
    basemap = engine.roadNetwork.map(BasemapIndex.init(network:))
  }

  /// The cache's counters.
  public var cacheStatistics: CacheStatistics {
    cache.withLock { cache in
      var statistics = cache.statistics
      statistics.entries = cache.entries.count
      return statistics
    }
  }

  /// A tile, from the cache when its content is unchanged.
  ///
  /// - Parameter request: Kind, tile and scale.
  /// - Returns: The bytes, content type and ETag.
  /// - Throws: `MapError.renderingFailed` when Cairo fails.
  /// - Complexity: O(1) while the data version holds; else O(k) to read the k roads and
  ///   incidents of the tile, plus the drawing when its content changed.
  public func tile(_ request: TileRequest) throws(MapError) -> RenderedTile {
    let version = currentVersion(for: request.kind)
    let cached = cache.withLock { $0.entries[request] }
    if let cached, cached.version == version {
      return hit(request, cached, version: version)
    }
    let content = read(request)
    let fingerprint = TileRenderer.fingerprint(content, request: request)
    if let cached, cached.fingerprint == fingerprint {
      return hit(request, cached, version: version)
    }
    let data = try render(request, content: content)
    let tile = RenderedTile(
      data: data, contentType: request.kind.contentType,
      etag: "\"\(request.kind)-\(String(fingerprint, radix: 16))\"", fromCache: false)
    cache.withLock { cache in
      if cache.entries.updateValue(
        Entry(version: version, fingerprint: fingerprint, tile: tile), forKey: request) == nil
      {
        cache.order.append(request)
      }
      cache.statistics.renders += 1
      if cache.entries.count > cacheCapacity {
        let dropped = cache.order.prefix(cacheCapacity / 4)
        for old in dropped { cache.entries[old] = nil }
        cache.order.removeFirst(dropped.count)
      }
    }
    return tile
  }

  private func hit(_ request: TileRequest, _ entry: Entry, version: DataVersion) -> RenderedTile {
    cache.withLock { cache in
      cache.entries[request]?.version = version
      cache.statistics.hits += 1
    }
    var tile = entry.tile
    tile.fromCache = true
    return tile
  }

  /// Draws or encodes a tile without the cache.
  ///
  /// - Parameter request: Kind, tile and scale.
  /// - Returns: PNG bytes (`256 × scale` pixels square) or vector tile bytes.
  /// - Throws: `MapError.renderingFailed` when Cairo fails.
  public func render(_ request: TileRequest) throws(MapError) -> Data {
    try render(request, content: read(request))
  }

  private func currentVersion(for kind: TileKind) -> DataVersion {
    let minute = Int((clock().timeIntervalSince1970 / 60).rounded(.down))
    switch kind {
    case .basemap: return DataVersion(incidents: nil, flow: nil, minute: 0)
    case .incidents: return DataVersion(incidents: engine.lastUpdate, flow: nil, minute: minute)
    case .flow, .trafficVector:
      return DataVersion(incidents: engine.lastUpdate, flow: engine.flowLastUpdate, minute: minute)
    }
  }

  private func projection(_ request: TileRequest) -> ViewProjection {
    if request.kind == .trafficVector {
      return ViewProjection(tile: request.tile, pixels: Double(VectorTileEncoder.extent))
    }
    return ViewProjection(
      tile: request.tile, pixels: Double(TileRenderer.tileSizeInPixels * request.scale))
  }

  private func read(_ request: TileRequest) -> TrafficContent {
    let projection = projection(request)
    let zoom = Double(request.tile.zoom)
    switch request.kind {
    case .basemap:
      return .empty
    case .flow(let mode):
      return TrafficContent.fetch(
        engine: engine, box: projection.coveringBox(marginInPixels: 16 * Double(request.scale)),
        zoom: zoom, flowMode: mode.featureMode, incidents: false, incidentTypes: [])
    case .incidents:
      return TrafficContent.fetch(
        engine: engine, box: projection.coveringBox(marginInPixels: 20 * Double(request.scale)),
        zoom: zoom, flowMode: nil, incidents: true, incidentTypes: [])
    case .trafficVector:
      return TrafficContent.fetch(
        engine: engine,
        box: projection.coveringBox(marginInPixels: Double(VectorTileEncoder.buffer)),
        zoom: zoom, flowMode: .trafficFlowWithFreeFlow, incidents: true, incidentTypes: [])
    }
  }

  private func render(_ request: TileRequest, content: TrafficContent) throws(MapError) -> Data {
    let projection = projection(request)
    if request.kind == .trafficVector {
      return VectorTileEncoder.encode(content, projection: projection)
    }
    let pixels = TileRenderer.tileSizeInPixels * request.scale
    let canvas = try CairoCanvas(width: pixels, height: pixels)
    var layers = SceneLayers(traffic: content)
    switch request.kind {
    case .basemap:
      layers.scheme = scheme
      layers.basemap = basemap
    case .flow(let mode): layers.flowMode = mode.featureMode
    case .incidents: layers.showIncidents = true
    case .trafficVector: break
    }
    SceneRenderer.draw(
      layers, projection: projection, styleZoom: Double(request.tile.zoom),
      pixelRatio: Double(request.scale), on: canvas)
    return try canvas.pngData()
  }

  /// FNV-1a (Fowler, Noll, Vo) over what the tile shows.
  static func fingerprint(_ content: TrafficContent, request: TileRequest) -> UInt64 {
    var hash = FNV1a()
    hash.add(String(describing: request))
    switch request.kind {
    case .basemap:
      break
    case .flow(let mode):
      for item in content.flows where mode == .withFreeFlow || item.level != .normal {
        hash.add(UInt64(item.flow.segmentID))
        hash.add(UInt64(item.level.rawValue))
      }
    case .incidents:
      for incident in content.incidents { hash.add(incident.id) }
    case .trafficVector:
      for item in content.flows {
        hash.add(UInt64(item.flow.segmentID))
        hash.add(item.flow.jamFactor.bitPattern)
        hash.add(item.flow.speedInMetersPerSecond.bitPattern)
        hash.add(item.flow.freeFlowSpeedInMetersPerSecond.bitPattern)
        hash.add(item.flow.traversability.rawValue)
      }
      for incident in content.incidents { hash.add(incident.id) }
    }
    return hash.value
  }
}

/// The 64-bit FNV-1a hash (stable across processes, unlike `Hasher`).
struct FNV1a {
  private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

  mutating func add(_ byte: UInt8) {
    value = (value ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
  }

  mutating func add(_ number: UInt64) {
    for shift in stride(from: 0, to: 64, by: 8) { add(UInt8(truncatingIfNeeded: number >> shift)) }
  }

  mutating func add(_ text: String) {
    for byte in text.utf8 { add(byte) }
    add(UInt8(0))
  }
}
