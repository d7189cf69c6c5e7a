import TrafficRouting

/// The endpoints of the server (the HTTP route table), matched on the raw path.
enum Endpoint: Equatable {
  case index
  case health
  /// `/readyz`: 200 once the data serves, 503 while it loads.
  case readiness
  case metrics
  case incidents
  case incidentStream
  case incidentLookup(rawId: Substring)
  case flow
  case feeds
  case feedPush(rawFormat: Substring)
  case probes
  case routeTraffic
  /// `/v8/routes`: HERE Routing API v8 routes on live traffic.
  case routes
  /// `/v8/matrix`: HERE Matrix Routing API v8 (synchronous) on live traffic.
  case matrix
  /// `/tiles/{layer}/{z}/{x}/{y}.{png|mvt}`; the address after the layer, unparsed.
  case tile(TileLayer, rawAddress: Substring)
  /// `/v1/info`: counts and the bounds of the data, for the web map's first view.
  case info
  /// `/web/{file}`: the web map's own script and style sheet.
  case webAsset(rawName: Substring)
  /// `/leaflet/{file}`: Leaflet from the system's `libjs-leaflet` package.
  case leaflet(rawName: Substring)
  /// `/api`: a short page listing the API.
  case apiSummary
  /// `/datex2/v3/situations`: the incidents as a DATEX II v3 SituationPublication.
  case datex2Situations
  /// `/wzdx/v4.2/feed`: the work zones and closures as a WZDx 4.2 WorkZoneFeed.
  case wzdxFeed
  /// `/openapi.json`: the OpenAPI 3.1 description of this API.
  case openAPI
  /// `/tiles/{layer}.json`: the TileJSON 3.0.0 of a tile layer; the layer's name unchecked.
  case tileJSON(rawLayer: Substring)
  /// `/{route|table|nearest}/v1/{profile}/{coordinates}`: OSRM's HTTP API v5; the path after
  /// the version, unparsed.
  case osrm(OSRMQuery.Service, rawPath: Substring)

  /// The route of a raw path, or `nil` when none matches.
  init?(rawPath: Substring) {
    switch rawPath {
    case "/": self = .index
    case "/healthz": self = .health
    case "/readyz": self = .readiness
    case "/metrics": self = .metrics
    case "/v7/incidents": self = .incidents
    case "/v7/incidents/stream": self = .incidentStream
    case "/v7/flow": self = .flow
    case "/v1/feeds": self = .feeds
    case "/v1/probes": self = .probes
    case "/v1/route/traffic": self = .routeTraffic
    case "/v8/routes": self = .routes
    case "/v8/matrix": self = .matrix
    case "/v1/info": self = .info
    case "/api": self = .apiSummary
    case "/datex2/v3/situations": self = .datex2Situations
    case "/wzdx/v4.2/feed": self = .wzdxFeed
    case "/openapi.json": self = .openAPI
    default:
      if rawPath.utf8.starts(with: "/tiles/".utf8) {
        let rest = rawPath.dropFirst("/tiles/".count)
        if !rest.utf8.contains(UInt8(ascii: "/")), rest.hasSuffix(".json") {
          self = .tileJSON(rawLayer: rest.dropLast(".json".count))
          return
        }
        guard let slash = rest.utf8.firstIndex(of: UInt8(ascii: "/")),
          let layer = TileLayer(rawValue: String(rest[..<slash]))
        else { return nil }
        self = .tile(layer, rawAddress: rest[rest.utf8.index(after: slash)...])
      } else if let service = OSRMQuery.Service.allCases.first(where: {
        rawPath.utf8.starts(with: "/\($0.rawValue)/v1/".utf8)
      }) {
        self = .osrm(service, rawPath: rawPath.dropFirst(service.rawValue.count + 5))
      } else if rawPath.utf8.starts(with: "/web/".utf8) {
        self = .webAsset(rawName: rawPath.dropFirst("/web/".count))
      } else if rawPath.utf8.starts(with: "/leaflet/".utf8) {
        self = .leaflet(rawName: rawPath.dropFirst("/leaflet/".count))
      } else if rawPath.utf8.starts(with: "/v7/incidents/".utf8) {
        self = .incidentLookup(rawId: rawPath.dropFirst("/v7/incidents/".count))
      } else if rawPath.utf8.starts(with: "/v1/feeds/".utf8),
        !rawPath.utf8.dropFirst(10).contains(UInt8(ascii: "/"))
      {
        self = .feedPush(rawFormat: rawPath.dropFirst("/v1/feeds/".count))
      } else {
        return nil
      }
    }
  }

  /// The route pattern, used as the metrics label (a bounded set).
  var label: String {
    switch self {
    case .index: return "/"
    case .health: return "/healthz"
    case .readiness: return "/readyz"
    case .metrics: return "/metrics"
    case .incidents: return "/v7/incidents"
    case .incidentStream: return "/v7/incidents/stream"
    case .incidentLookup: return "/v7/incidents/{originalId}"
    case .flow: return "/v7/flow"
    case .feeds: return "/v1/feeds"
    case .feedPush: return "/v1/feeds/{format}"
    case .probes: return "/v1/probes"
    case .routeTraffic: return "/v1/route/traffic"
    case .routes: return "/v8/routes"
    case .matrix: return "/v8/matrix"
    case .tile(let layer, _): return layer.pattern
    case .info: return "/v1/info"
    case .webAsset: return "/web/{file}"
    case .leaflet: return "/leaflet/{file}"
    case .apiSummary: return "/api"
    case .datex2Situations: return "/datex2/v3/situations"
    case .wzdxFeed: return "/wzdx/v4.2/feed"
    case .openAPI: return "/openapi.json"
    case .tileJSON: return "/tiles/{layer}.json"
    case .osrm(.route, _): return "/route/v1/{profile}/{coordinates}"
    case .osrm(.table, _): return "/table/v1/{profile}/{coordinates}"
    case .osrm(.nearest, _): return "/nearest/v1/{profile}/{coordinates}"
    }
  }

  /// The methods the route answers (besides `OPTIONS`, answered for every route).
  var allowedMethods: [String] {
    switch self {
    case .incidents, .flow: return ["GET", "HEAD", "POST"]
    case .feedPush, .probes, .routeTraffic, .matrix: return ["POST"]
    default: return ["GET", "HEAD"]
    }
  }

  /// Whether the route answers and fails in OSRM's shapes.
  var isOSRM: Bool {
    if case .osrm = self { return true }
    return false
  }

  /// Whether successful `GET` answers of the route may be served from the response cache.
  var isCacheable: Bool {
    switch self {
    case .incidents, .flow: return true
    default: return false
    }
  }

  /// Whether the route needs an API key when keys are configured.
  var needsKey: Bool {
    switch self {
    case .index, .health, .readiness, .webAsset, .leaflet, .apiSummary, .openAPI: return false
    default: return true
    }
  }
}
