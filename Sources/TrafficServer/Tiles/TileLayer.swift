import Geo
import Traffic
import TrafficMap

/// The tile layers the server publishes under `/tiles/{layer}/{z}/{x}/{y}.{extension}`.
enum TileLayer: String, CaseIterable, Sendable {
  /// Flow lines on a transparent PNG (`mode=withFreeFlow|withoutFreeFlow`).
  case flow
  /// Incident lines and icons on a transparent PNG.
  case incidents
  /// The Mapbox Vector Tile with the `flow` and `incidents` layers.
  case traffic
  /// The opaque road basemap drawn from the engine's network.
  case base

  /// The highest zoom level served. Beyond 22 a tile is narrower than a metre, which no
  /// web map asks for; the pyramid itself (`WebMercator.maximumZoom`) goes further.
  static let maximumZoom = 22

  /// The file extension of the layer's tiles.
  var fileExtension: String { self == .traffic ? "mvt" : "png" }

  /// The route pattern, the metrics label.
  var pattern: String { "/tiles/\(rawValue)/{z}/{x}/{y}.\(fileExtension)" }

  /// Seconds browsers and proxies may keep a tile without asking again: short for traffic,
  /// which changes by the minute; an hour for the basemap, which changes only when the
  /// server restarts with another network.
  var maxAgeSeconds: Int { self == .base ? 3600 : 30 }

  /// The position in the pyramid of a raw address `{z}/{x}/{y}.{extension}`.
  ///
  /// - Parameter rawAddress: The path after `/tiles/{layer}/`, still percent-encoded.
  /// - Returns: The tile.
  /// - Throws: `TrafficQueryError.httpError` 404 when the path does not have the shape of a
  ///   tile of this layer (wrong number of parts, wrong extension);
  ///   `.invalidParameter` naming `z`, `x` or `y` when one is not a whole number, `z` is
  ///   beyond 0...22, or `x` or `y` is outside 0..<2^z.
  /// - Complexity: O(n) in the length of the address.
  func tile(rawAddress: Substring) throws(TrafficQueryError) -> TileID {
    let parts = rawAddress.split(separator: "/", omittingEmptySubsequences: false)
    let suffix = "." + fileExtension
    guard parts.count == 3, parts[2].hasSuffix(suffix) else {
      throw .httpError(
        status: 404,
        "no tile \(QueryParameters.excerpt(String(rawAddress))); \(rawValue) tiles are "
          + pattern)
    }
    let zoom = try Self.number("z", parts[0])
    guard zoom <= Self.maximumZoom else {
      throw .invalidParameter("z \(zoom) is beyond the highest zoom, \(Self.maximumZoom)")
    }
    let count = 1 << zoom
    let x = try Self.number("x", parts[1])
    guard x < count else {
      throw .invalidParameter("x \(x) is outside 0..<\(count) at zoom \(zoom)")
    }
    let y = try Self.number("y", parts[2].dropLast(suffix.count))
    guard y < count else {
      throw .invalidParameter("y \(y) is outside 0..<\(count) at zoom \(zoom)")
    }
    do {
      return try TileID(zoom: zoom, x: x, y: y)
    } catch {
      throw .invalidParameter("tile \(zoom)/\(x)/\(y): \(error)")
    }
  }

  /// A non-negative whole number of at most nine digits (no sign, no overflow).
  private static func number(_ name: String, _ text: Substring) throws(TrafficQueryError) -> Int {
    guard !text.isEmpty, text.utf8.count <= 9,
      text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
      let value = Int(text)
    else {
      throw .invalidParameter(
        "\(name) \"\(QueryParameters.excerpt(String(text)))\" is not a whole number >= 0")
    }
    return value
  }

  /// The renderer's request for this layer's tile, with the query's `scale` and `mode`.
  ///
  /// - Parameters:
  ///   - tile: The position.
  ///   - query: The request's parameters.
  /// - Returns: The request.
  /// - Throws: `TrafficQueryError.invalidParameter` naming `scale` (not 1 or 2; only 1 for
  ///   vector tiles) or `mode` (unknown, or given for a layer other than flow).
  func request(
    for tile: TileID, query: QueryParameters
  ) throws(TrafficQueryError)
    -> TileRequest
  {
    var scale = 1
    if let text = try query.single("scale", error: TrafficQueryError.invalidParameter) {
      let allowed = self == .traffic ? ["1"] : ["1", "2"]
      guard allowed.contains(text), let value = Int(text) else {
        throw .invalidParameter(
          "scale \"\(QueryParameters.excerpt(text))\" is not supported for \(rawValue) tiles; use "
            + allowed.joined(separator: " or "))
      }
      scale = value
    }
    let modeText = try query.single("mode", error: TrafficQueryError.invalidParameter)
    if let modeText, self != .flow {
      throw .invalidParameter(
        "mode \"\(QueryParameters.excerpt(modeText))\" applies only to flow tiles")
    }
    let kind: TileKind
    switch self {
    case .flow:
      var mode = FlowTileMode.withFreeFlow
      if let modeText {
        guard let parsed = FlowTileMode(rawValue: modeText) else {
          throw .invalidParameter(
            "mode \"\(QueryParameters.excerpt(modeText))\" is unknown; use withFreeFlow or "
              + "withoutFreeFlow")
        }
        mode = parsed
      }
      kind = .flow(mode)
    case .incidents: kind = .incidents
    case .traffic: kind = .trafficVector
    case .base: kind = .basemap
    }
    do {
      return try TileRequest(kind: kind, tile: tile, scale: scale)
    } catch {
      throw .invalidParameter("scale \(scale): \(error)")
    }
  }
}
