import Codec
import Foundation
import Traffic
import TrafficMap
import Zlib

extension TrafficServer {
  /// `GET /tiles/{layer}/{z}/{x}/{y}.{png|mvt}`: a raster or vector tile.
  ///
  /// The ETag is the renderer's (derived from what the tile shows, so it survives updates
  /// elsewhere), `If-None-Match` gets a 304 (in `finish`), `Cache-Control` allows 30 s for
  /// traffic tiles and an hour for the basemap. Vector tiles are gzipped when the client
  /// accepts it (PNG is compressed already). Bad addresses: a path that is not a tile of
  /// the layer is a 404; a `z`, `x` or `y` that is not a whole number, `z` > 22, or `x`/`y`
  /// outside 0..<2^z is a 400 naming the parameter, as are a bad `scale` or `mode`.
  func tile(
    _ layer: TileLayer, rawAddress: Substring, query: QueryParameters, request: HTTPRequest
  ) throws(TrafficQueryError) -> HTTPResponse {
    let tileID = try layer.tile(rawAddress: rawAddress)
    let tileRequest = try layer.request(for: tileID, query: query)
    let rendered = try tiles.tile(tileRequest)
    var response = HTTPResponse(
      status: 200, headers: ["Content-Type": rendered.contentType], body: rendered.data)
    response.headers.add("Cache-Control", "public, max-age=\(layer.maxAgeSeconds)")
    response.headers.add("X-Tile-Cache", rendered.fromCache ? "hit" : "miss")
    if layer == .traffic {
      response.headers.add("Vary", "Accept-Encoding")
      if Self.acceptsGzip(request), !rendered.data.isEmpty {
        response.body = Gzip.compress(rendered.data, level: 5)
        response.headers.add("Content-Encoding", "gzip")
        // A different representation needs a different strong validator.
        response.headers.add("ETag", String(rendered.etag.dropLast()) + "-gz\"")
      } else {
        response.headers.add("ETag", rendered.etag)
      }
    } else {
      response.headers.add("ETag", rendered.etag)
    }
    response.isPrepared = true
    return response
  }

  /// `GET /v1/info`: counts and the bounds of the network and the incidents.
  func info() -> HTTPResponse {
    var response = HTTPResponse.json(
      WebMapInfo.encode(engine: engine, bounds: currentInfoBounds()))
    response.headers.add("Cache-Control", "no-cache")
    return response
  }

  /// The bounds of the network and the incidents now (computed again only when the
  /// incidents changed).
  func currentInfoBounds() -> WebMapInfo.Bounds {
    infoBounds.withLock { cached in
      let fresh = WebMapInfo.bounds(of: engine, previous: cached)
      cached = fresh
      return fresh
    }
  }

  /// `GET /`: the web map. When Leaflet is missing from `leafletDirectory` the page says so
  /// at the top, naming the package to install.
  func webMapPage() -> HTTPResponse {
    guard var page = WebAssets.text("index.html") else {
      return errorResponse(.internalError("the web map's files are missing from the install"))
    }
    let leaflet = URL(fileURLWithPath: configuration.leafletDirectory)
      .appendingPathComponent("leaflet.js")
    if !FileManager.default.fileExists(atPath: leaflet.path) {
      page = page.replacingOccurrences(
        of: "<!--leaflet-status-->",
        with: "<div id=\"leaflet-missing\" class=\"fatal\">Leaflet is not installed on the "
          + "server: \(leaflet.path) is missing. Install Debian's <code>libjs-leaflet</code> "
          + "package (<code>apt-get install libjs-leaflet</code>) and reload.</div>")
    }
    var response = HTTPResponse(
      status: 200, headers: ["Content-Type": "text/html; charset=utf-8"], body: Data(page.utf8))
    response.headers.add("Cache-Control", "no-cache")
    return response
  }

  /// `GET /web/{file}`: the web map's script, style sheet and words.
  func webAsset(rawName: Substring) throws(TrafficQueryError) -> HTTPResponse {
    guard let name = QueryParameters.percentDecoded(rawName), let data = WebAssets.data(name)
    else {
      throw .httpError(
        status: 404, "no web map file \(QueryParameters.excerpt(String(rawName)))")
    }
    var response = HTTPResponse(
      status: 200, headers: ["Content-Type": Self.contentType(ofFile: name)], body: data)
    response.headers.add("Cache-Control", "no-cache")
    return response
  }

  /// `GET /leaflet/{file}`: a file of the system's Leaflet (`leafletDirectory`): a name of
  /// letters, digits, `.`, `-` and `_`, optionally under `images/`; nothing else on disk is
  /// reachable.
  func leafletFile(rawName: Substring) throws(TrafficQueryError) -> HTTPResponse {
    let components = rawName.split(separator: "/", omittingEmptySubsequences: false)
    let safe =
      (components.count == 1 || (components.count == 2 && components[0] == "images"))
      && components.allSatisfy { component in
        !component.isEmpty && !component.hasPrefix(".") && component.utf8.count <= 64
          && component.utf8.allSatisfy { byte in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
              || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
              || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
              || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
              || byte == UInt8(ascii: "_")
          }
      }
    guard safe else {
      throw .httpError(
        status: 404, "no Leaflet file \(QueryParameters.excerpt(String(rawName)))")
    }
    let path = configuration.leafletDirectory + "/" + rawName
    guard let data = FileManager.default.contents(atPath: path) else {
      throw .httpError(
        status: 404,
        "Leaflet file \(path) is missing; install Debian's libjs-leaflet package "
          + "(apt-get install libjs-leaflet)")
    }
    var response = HTTPResponse(
      status: 200, headers: ["Content-Type": Self.contentType(ofFile: String(rawName))],
      body: data)
    response.headers.add("Cache-Control", "public, max-age=86400")
    return response
  }

  /// The content type of a static file, by its extension.
  static func contentType(ofFile name: String) -> String {
    switch name.split(separator: ".").last {
    case "html": return "text/html; charset=utf-8"
    case "js": return "text/javascript; charset=utf-8"
    case "css": return "text/css; charset=utf-8"
    case "png": return "image/png"
    case "svg": return "image/svg+xml"
    case "map", "json": return "application/json; charset=utf-8"
    default: return "application/octet-stream"
    }
  }
}

/// The web map's own files, read once from the module's resources.
enum WebAssets {
  private static let files: [String: Data] = {
    var files: [String: Data] = [:]
    guard
      let folder = InstalledResources.locate(
        "web",
        inBundle: {
          Bundle.module.resourceURL?.appendingPathComponent("web")
        })
    else {
      return files
    }
    for name in ["index.html", "app.js", "style.css", "words.json"] {
      if let data = FileManager.default.contents(
        atPath: folder.appendingPathComponent(name).path)
      {
        files[name] = data
      }
    }
    return files
  }()

  /// The bytes of a file, or `nil` when there is no such file.
  static func data(_ name: String) -> Data? { files[name] }

  /// The text of a file, or `nil` when there is no such file.
  static func text(_ name: String) -> String? {
    files[name].map { String(decoding: $0, as: UTF8.self) }
  }
}
