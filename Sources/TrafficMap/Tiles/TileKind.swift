/// The kinds of tile a `TileRenderer` makes.
public enum TileKind: Hashable, Sendable, CustomStringConvertible {
  /// The road basemap: an opaque PNG of the engine's network.
  case basemap
  /// Flow lines on a transparent PNG, to lay over a basemap (`/tiles/flow/...png`).
  case flow(FlowTileMode)
  /// Incident lines and icons on a transparent PNG (`/tiles/incidents/...png`).
  case incidents
  /// A Mapbox Vector Tile with the `flow` and `incidents` layers (`/tiles/traffic/...mvt`).
  case trafficVector

  /// The HTTP content type of the tile's bytes.
  public var contentType: String {
    switch self {
    case .basemap, .flow, .incidents: return "image/png"
    case .trafficVector: return "application/vnd.mapbox-vector-tile"
    }
  }

  /// A short name (`basemap`, `flow-withFreeFlow`, `incidents`, `traffic`).
  public var description: String {
    switch self {
    case .basemap: return "basemap"
    case .flow(let mode): return "flow-\(mode.rawValue)"
    case .incidents: return "incidents"
    case .trafficVector: return "traffic"
    }
  }
}
