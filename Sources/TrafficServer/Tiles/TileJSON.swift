import Codec
import Foundation
import Traffic
import TrafficMap

extension TrafficServer {
  /// `GET /tiles/{layer}.json`: the TileJSON 3.0.0 document of a tile layer, for map
  /// libraries that take a layer by its TileJSON (MapLibre, Leaflet plugins, QGIS).
  ///
  /// The `tiles` URL is absolute, built from the request's `Host` header (`https` when a
  /// proxy says `X-Forwarded-Proto: https`), or the path alone when there is no usable
  /// `Host`; an `apiKey` given to this request is passed on in it. `bounds` are the data's
  /// (the `dataBounds` of `/v1/info`), the world without data.
  /// - Throws: `TrafficQueryError.httpError` 404 for a layer that does not exist.
  func tileJSON(
    rawLayer: Substring, query: QueryParameters, request: HTTPRequest
  ) throws(TrafficQueryError) -> HTTPResponse {
    guard let name = QueryParameters.percentDecoded(rawLayer), let layer = TileLayer(rawValue: name)
    else {
      throw .httpError(
        status: 404,
        "no tile layer \(QueryParameters.excerpt(String(rawLayer))); the layers are "
          + TileLayer.allCases.map(\.rawValue).joined(separator: ", "))
    }
    let key = try query.single("apiKey", error: TrafficQueryError.badRequest)
    let document = TileJSON.document(
      layer: layer, origin: TileJSON.origin(of: request), apiKey: key,
      bounds: currentInfoBounds().data)
    var response = HTTPResponse.json(document)
    response.headers.add("Cache-Control", "no-cache")
    return response
  }
}

/// TileJSON 3.0.0 (https://github.com/mapbox/tilejson-spec/tree/master/3.0.0) of the tile
/// layers.
enum TileJSON {
  /// The attributes of the vector tile's layers, as `VectorTileEncoder` writes them, with
  /// their TileJSON types.
  static let vectorLayers: [(id: String, description: String, fields: [(String, String)])] = [
    (
      "flow",
      "One line per directed road segment, in the direction of travel: jamFactor 0 (free) "
        + "to 10 (blocked), speed and freeFlow in m/s, functionalClass 1 (motorways) to 5, "
        + "traversability open, closed or reversibleNotRoutable.",
      [
        ("jamFactor", "Number"), ("speed", "Number"), ("freeFlow", "Number"),
        ("functionalClass", "Number"), ("traversability", "String"),
      ]
    ),
    (
      "incidents",
      "One line per incident (a point for an incident at one place): type and impact (v7 "
        + "type and criticality names, unknown when there is none) and originalId.",
      [("type", "String"), ("impact", "String"), ("originalId", "String")]
    ),
  ]

  /// The bounds of the Web Mercator world: what a server without data covers.
  static let world = WebMapInfo.Extent(
    west: -180, south: -85.051_128_779_806_6, east: 180, north: 85.051_128_779_806_6)

  /// `http://HOST` (`https` behind a proxy that says `X-Forwarded-Proto: https`) from the
  /// request's `Host` header, or the empty string (URLs relative to the server) when the
  /// request has none or one that is not a host and port.
  static func origin(of request: HTTPRequest) -> String {
    guard let host = request.headers["Host"]?.trimmingCharacters(in: .whitespaces),
      !host.isEmpty, host.utf8.count <= 255,
      host.utf8.allSatisfy({ byte in
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
          || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
          || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
          || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ":")
          || byte == UInt8(ascii: "[") || byte == UInt8(ascii: "]") || byte == UInt8(ascii: "_")
      })
    else { return "" }
    let secure = request.headers["X-Forwarded-Proto"].map {
      $0.trimmingCharacters(in: .whitespaces).caseInsensitiveEquals("https")
    }
    return (secure == true ? "https://" : "http://") + host
  }

  /// The document of a layer.
  ///
  /// - Parameters:
  ///   - layer: The layer.
  ///   - origin: Scheme and host the tile URL starts with; empty for a path alone.
  ///   - apiKey: A key to pass on in the tile URL, if any.
  ///   - bounds: Where the data lies; `nil` for the whole world.
  /// - Returns: The JSON text.
  static func document(
    layer: TileLayer, origin: String, apiKey: String?, bounds: WebMapInfo.Extent?
  ) -> Data {
    let extent = clamped(bounds ?? world)
    var url = origin + "/tiles/\(layer.rawValue)/{z}/{x}/{y}.\(layer.fileExtension)"
    if let apiKey { url += "?apiKey=" + percentEncoded(apiKey) }
    var w = JSONWriter(capacity: 1024)
    w.beginObject()
    w.member("tilejson", "3.0.0")
    w.key("tiles")
    w.beginArray()
    w.string(url)
    w.endArray()
    w.member("name", "swift-traffic \(layer.rawValue)")
    w.member("description", description(of: layer))
    w.member("scheme", "xyz")
    // Traffic is drawn from zoom 8; the basemap from 0.
    let minimumZoom = layer == .base ? 0 : TileRenderer.minimumTrafficZoom
    w.member("minzoom", minimumZoom)
    w.member("maxzoom", TileLayer.maximumZoom)
    w.key("bounds")
    w.beginArray()
    for value in [extent.west, extent.south, extent.east, extent.north] { w.number(value) }
    w.endArray()
    w.key("center")
    w.beginArray()
    w.number((extent.west + extent.east) / 2)
    w.number((extent.south + extent.north) / 2)
    w.integer(centerZoom(extent))
    w.endArray()
    if layer == .traffic {
      w.key("vector_layers")
      w.beginArray()
      for vectorLayer in vectorLayers {
        w.beginObject()
        w.member("id", vectorLayer.id)
        w.member("description", vectorLayer.description)
        w.member("minzoom", minimumZoom)
        w.member("maxzoom", TileLayer.maximumZoom)
        w.key("fields")
        w.beginObject()
        for (name, type) in vectorLayer.fields {
          w.key(name)
          w.string(type)
        }
        w.endObject()
        w.endObject()
      }
      w.endArray()
    }
    w.endObject()
    return Data(w.bytes)
  }

  static func description(of layer: TileLayer) -> String {
    switch layer {
    case .flow: return "Traffic flow lines on transparent 256 px PNG tiles (scale=2: 512 px)."
    case .incidents: return "Incident lines and icons on transparent PNG tiles."
    case .traffic: return "Mapbox Vector Tiles with the layers flow and incidents."
    case .base: return "The road basemap of the server's network, opaque PNG tiles."
    }
  }

  /// The extent within the Web Mercator world (TileJSON bounds must lie in it).
  static func clamped(_ extent: WebMapInfo.Extent) -> WebMapInfo.Extent {
    WebMapInfo.Extent(
      west: max(world.west, min(world.east, extent.west)),
      south: max(world.south, min(world.north, extent.south)),
      east: max(world.west, min(world.east, extent.east)),
      north: max(world.south, min(world.north, extent.north)))
  }

  /// The zoom at which the extent about fills a 512-pixel view, 0 ... 16.
  static func centerZoom(_ extent: WebMapInfo.Extent) -> Int {
    let width = max(extent.east - extent.west, 1e-6)
    let height = max(extent.north - extent.south, 1e-6)
    let zoom = min(log2(360 / width), log2(170 / height)) + 1
    return max(0, min(16, Int(zoom.rounded(.down))))
  }

  /// Percent-encodes all but RFC 3986's unreserved characters.
  static func percentEncoded(_ text: String) -> String {
    var result = ""
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
        UInt8(ascii: "_"), UInt8(ascii: "~"):
        result.unicodeScalars.append(Unicode.Scalar(byte))
      default:
        result += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
      }
    }
    return result
  }
}
