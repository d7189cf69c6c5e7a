import Dispatch
import Synchronization
import Traffic
import TrafficMap

/// The server's tile renderer, made on the first tile request (indexing the network for the
/// basemap takes O(n log n), which a server that never serves tiles should not pay), and a
/// bound on how many tiles are drawn at once.
///
/// Tiles are drawn on the socket layer's threads; drawing one takes tens of milliseconds,
/// so without a bound a burst of tile requests from one browser would occupy every thread
/// and stall incident queries behind it. At most `concurrency` requests are inside the
/// renderer at once; the others wait for a permit, up to `waitSeconds`, then get a 503.
final class TileService: Sendable {
  /// How many tile requests may be inside the renderer at once.
  let concurrency: Int
  /// The longest wait for a permit, seconds.
  let waitSeconds: Double
  private let engine: TrafficEngine
  private let renderer = Mutex<TileRenderer?>(nil)
  private let permits: DispatchSemaphore

  /// Creates the service; nothing is indexed until the first tile.
  ///
  /// - Parameters:
  ///   - engine: The engine the tiles show.
  ///   - concurrency: Tiles drawn at once, at least 1.
  ///   - waitSeconds: The longest wait for a permit.
  init(engine: TrafficEngine, concurrency: Int, waitSeconds: Double = 10) {
    self.engine = engine
    self.concurrency = max(1, concurrency)
    self.waitSeconds = waitSeconds
    permits = DispatchSemaphore(value: self.concurrency)
  }

  /// The renderer, made now if this is the first use.
  var tileRenderer: TileRenderer {
    renderer.withLock { renderer in
      if let renderer { return renderer }
      let made = TileRenderer(engine: engine)
      renderer = made
      return made
    }
  }

  /// The renderer's cache counters, or `nil` before the first tile.
  var statistics: TileRenderer.CacheStatistics? {
    renderer.withLock { $0 }?.cacheStatistics
  }

  /// A tile, drawn or from the renderer's cache, once a permit is free.
  ///
  /// - Parameter request: The tile.
  /// - Returns: The bytes, content type and ETag.
  /// - Throws: `TrafficQueryError.httpError` 503 when no permit came within `waitSeconds`,
  ///   `.internalError` when drawing failed.
  /// - Complexity: That of `TileRenderer.tile(_:)`.
  func tile(_ request: TileRequest) throws(TrafficQueryError) -> RenderedTile {
    let renderer = tileRenderer
    guard permits.wait(timeout: .now() + waitSeconds) == .success else {
      throw .httpError(
        status: 503,
        "all \(concurrency) tile renderers stayed busy for \(waitSeconds) s; retry later")
    }
    defer { permits.signal() }
    do {
      return try renderer.tile(request)
    } catch {
      throw .internalError("tile \(request) could not be drawn: \(error)")
    }
  }
}
