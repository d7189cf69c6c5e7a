import Foundation
import Testing
import Traffic
import TrafficBuildInfo
import TrafficTestSupport

@testable import TrafficServer

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// `GET /openapi.json`: a valid OpenAPI 3.1 document (checked by `openapi-spec-validator`)
/// that names exactly the routes of `Route`, and that the server keeps — schemathesis sends
/// the running server requests generated from it and checks every answer against it.
///
/// The Python tools come from `make test` (its `python-tools` target puts them in
/// `.build/tools/venv`); without them these tests fail, naming that target.
@Suite(.serialized) struct OpenAPIDocumentTests {
  struct MissingTool: Error { var name: String }
  /// The demo server printed no "listening" line in 30 s; what it printed instead.
  struct DemoDidNotStart: Error { var log: String }

  /// A program of the tools' virtual environment, or a failure naming `make test`.
  static func tool(_ name: String) throws -> URL {
    let url = Fixtures.repositoryRoot.appendingPathComponent(".build/tools/venv/bin/\(name)")
    guard FileManager.default.isExecutableFile(atPath: url.path) else {
      Issue.record(
        """
        \(url.path) is missing: run `make test`, whose python-tools target installs \
        openapi-spec-validator and schemathesis into .build/tools/venv
        """)
      throw MissingTool(name: name)
    }
    return url
  }

  /// Runs a program to its end (at most `timeout`), its output in a file.
  static func run(
    _ program: URL, _ arguments: [String], environment: [String: String] = [:],
    in directory: URL, timeout: Duration
  ) async throws -> (status: Int32, output: String) {
    let log = directory.appendingPathComponent("output-\(UUID().uuidString).txt")
    _ = FileManager.default.createFile(atPath: log.path, contents: nil)
    let handle = try FileHandle(forWritingTo: log)
    defer { try? handle.close() }
    let process = Process()
    process.executableURL = program
    process.arguments = arguments
    process.currentDirectoryURL = directory
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    process.standardOutput = handle
    process.standardError = handle
    try process.run()
    let deadline = ContinuousClock.now + timeout
    while process.isRunning, ContinuousClock.now < deadline {
      try await Task.sleep(for: .milliseconds(200))
    }
    if process.isRunning {
      process.terminate()
      process.waitUntilExit()
      Issue.record("\(program.lastPathComponent) ran longer than \(timeout); stopped")
    }
    let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
    return (process.terminationStatus, output)
  }

  static func scratch() throws -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "openapi-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory
  }

  /// The document as the server answers it, parsed.
  static func document() throws -> [String: Any] {
    let (server, leaflet) = try APIDocumentationTests.server()
    defer { try? FileManager.default.removeItem(at: leaflet) }
    let response = server.handle(HTTPRequest(target: "/openapi.json"))
    #expect(response.status == 200)
    #expect(response.headers["Content-Type"]?.hasPrefix("application/json") == true)
    return try ServerFixtures.object(response.body)
  }

  static func paths(_ document: [String: Any]) throws -> [String: [String: Any]] {
    try #require(document["paths"] as? [String: [String: Any]])
  }

  @Test func theDocumentIsValidOpenAPI31WithTheBuildsVersion() async throws {
    let validator = try Self.tool("openapi-spec-validator")
    let (server, leaflet) = try APIDocumentationTests.server()
    defer { try? FileManager.default.removeItem(at: leaflet) }
    let response = server.handle(HTTPRequest(target: "/openapi.json"))
    let document = try ServerFixtures.object(response.body)
    #expect(document["openapi"] as? String == "3.1.0")
    #expect((document["info"] as? [String: Any])?["version"] as? String == BuildInfo.version)
    let directory = try Self.scratch()
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("openapi.json")
    try response.body.write(to: file)
    let (status, output) = try await Self.run(
      validator, [file.path], in: directory, timeout: .seconds(120))
    #expect(status == 0, "openapi-spec-validator: \(output)")
    #expect(output.contains("OK"), "\(output)")
  }

  @Test func theVersionIsFilledInEscaped() {
    let file = Data(#"{"info": {"title": "t", "version": "@BUILD_VERSION@"}}"#.utf8)
    let filled = OpenAPIDocument.filled(file, version: #"1.0 "beta"\"#)
    #expect(String(decoding: filled, as: UTF8.self).contains(#""version": "1.0 \"beta\"\\""#))
  }

  /// A concrete path of a documented template, with values the router takes.
  static func concrete(_ template: String) -> String {
    var path = template
    for (name, value) in [
      ("z", "1"), ("x", "0"), ("y", "1"), ("layer", "flow"), ("originalId", "A"),
      ("format", "waze"), ("file", "app.js"),
    ] {
      path = path.replacingOccurrences(of: "{\(name)}", with: value)
    }
    return path
  }

  @Test func theDocumentHasEveryRouteAndNothingElse() throws {
    let paths = try Self.paths(try Self.document())
    var labels = Set<String>()
    for sample in APIDocumentationTests.samples {
      let route = try #require(sample.route)
      guard labels.insert(route.label).inserted else { continue }
      guard let item = paths[route.label] else {
        Issue.record("/openapi.json has no path \(route.label)")
        continue
      }
      // HEAD is answered like GET and documented once, in the document's conventions.
      let documented = Set(item.keys.map { $0.uppercased() })
      let expected = Set(route.allowedMethods).subtracting(["HEAD"])
      #expect(documented == expected, "\(route.label): \(documented) in the document")
    }
    for (template, _) in paths {
      let route = Endpoint(rawPath: Self.concrete(template)[...])
      #expect(route?.label == template, "\(template) is not a route of the server")
      #expect(labels.contains(template), "\(template) has no sample in APIDocumentationTests")
    }
  }

  @Test func keyedOperationsDeclareTheirSecurity() throws {
    let document = try Self.document()
    let components = try #require(document["components"] as? [String: Any])
    let schemes = try #require(components["securitySchemes"] as? [String: [String: Any]])
    #expect(schemes["apiKey"]?["type"] as? String == "apiKey")
    #expect(schemes["apiKey"]?["in"] as? String == "query")
    #expect(schemes["apiKey"]?["name"] as? String == "apiKey")
    #expect(schemes["bearer"]?["type"] as? String == "http")
    #expect(schemes["bearer"]?["scheme"] as? String == "bearer")
    let global = try #require(document["security"] as? [[String: Any]])
    #expect(Set(global.flatMap(\.keys)) == ["apiKey", "bearer"])
    for (template, item) in try Self.paths(document) {
      let route = try #require(Endpoint(rawPath: Self.concrete(template)[...]))
      for (method, operation) in item {
        let security = (operation as? [String: Any])?["security"] as? [Any]
        #expect(
          (security?.isEmpty == true) == !route.needsKey,
          "\(method.uppercased()) \(template): security \(String(describing: security))")
      }
    }
  }

  /// A server on a loopback port with a key, `FlowServerFixtures`' network with a jam on
  /// its west road, the incident `A` at the crossing and a Leaflet folder of its own.
  static func startedServer(key: String) throws -> (TrafficServer, port: Int, leaflet: URL) {
    let leaflet = try scratch()
    try Data("/* leaflet */".utf8).write(to: leaflet.appendingPathComponent("leaflet.js"))
    var configuration = ServerConfiguration(
      port: 0, apiKeys: [key], threads: 4, heartbeatIntervalSeconds: 0.2, accessLog: .none)
    configuration.leafletDirectory = leaflet.path
    let accident = try TrafficIncident(
      id: "A-v1", originalId: "A", type: .accident, impact: .critical,
      startTime: Date().addingTimeInterval(-600), endTime: Date().addingTimeInterval(3600),
      location: TrafficLocation(point: APIDocumentationTests.crossing))
    let server = try FlowServerFixtures.server(
      incidents: [accident], configuration: configuration)
    // A jam on the west road, so that flow answers carry live values too.
    let network = try FlowServerFixtures.network()
    _ = server.engine.ingest(observations: [
      FlowObservation(polyline: network.segments[0].geometry, jamFactor: 9, time: Date())
    ])
    try server.start()
    return (server, try #require(server.port), leaflet)
  }

  /// The static demo as users run it (`traffic serve --demo=static`, the built binary), on
  /// a free port with `key`: its process and port. Its state goes to `directory`.
  static func startedDemo(key: String, in directory: URL) async throws -> (Process, port: Int) {
    let built = Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent(
      "traffic")
    let binary =
      FileManager.default.isExecutableFile(atPath: built.path)
      ? built : Fixtures.repositoryRoot.appendingPathComponent(".build/debug/traffic")
    let process = Process()
    process.executableURL = binary
    process.arguments = [
      // schemathesis sends hundreds of wrong keys on purpose: not throttled here.
      "serve", "--demo=static", "--port", "0", "--api-key", key, "--access-log", "off",
      "--failed-key-limit", "off",
      "--state-dir", directory.appendingPathComponent("state").path,
    ]
    process.currentDirectoryURL = directory
    let log = directory.appendingPathComponent("serve.log")
    _ = FileManager.default.createFile(atPath: log.path, contents: nil)
    let handle = try FileHandle(forWritingTo: log)
    process.standardOutput = handle
    process.standardError = handle
    try process.run()
    for _ in 0..<300 {
      let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
      if let range = text.range(of: "listening on http://127.0.0.1:"),
        let port = Int(text[range.upperBound...].prefix { $0.isNumber }),
        text.contains("replaying recorded probes")
      {
        return (process, port)
      }
      try await Task.sleep(for: .milliseconds(100))
    }
    process.terminate()
    process.waitUntilExit()
    throw DemoDidNotStart(log: (try? String(contentsOf: log, encoding: .utf8)) ?? "")
  }

  /// schemathesis against the running demo server, every check on: every answer has a
  /// documented status, content type, headers and body; no answer is a 5xx; what the
  /// document calls valid is taken and what it calls invalid refused; keyed operations refuse
  /// requests without a key. At least 1000 requests, in a couple of minutes.
  @Test func schemathesisFindsNothingTheDocumentDoesNotSay() async throws {
    let schemathesis = try Self.tool("schemathesis")
    let key = "schemathesis-key"
    let directory = try Self.scratch()
    defer { try? FileManager.default.removeItem(at: directory) }
    let (demo, port) = try await Self.startedDemo(key: key, in: directory)
    defer {
      demo.terminate()
      demo.waitUntilExit()
    }
    try Data(Self.hooks.utf8).write(to: directory.appendingPathComponent("traffic_hooks.py"))
    let configuration = directory.appendingPathComponent("schemathesis.toml")
    try Data(Self.configuration.utf8).write(to: configuration)
    let arguments = [
      "--config-file", configuration.path, "run", "http://127.0.0.1:\(port)/openapi.json",
      "--checks", "all", "--header", "Authorization: Bearer \(key)",
      "--generation-with-security-parameters", "false",
      "--phases", "examples,coverage,fuzzing", "--max-examples", "40", "--seed", "20261206",
      "--generation-database", "none", "--request-timeout", "30", "--no-color",
    ]
    let (status, output) = try await Self.run(
      schemathesis, arguments,
      environment: [
        "SCHEMATHESIS_HOOKS": "traffic_hooks", "PYTHONPATH": directory.path,
        // Two places on the demo's A10 network, between which a route exists.
        "TRAFFIC_SCHEMATHESIS_ROUTE": "52.3050,13.6200;52.3250,13.5800",
        "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost",
      ], in: directory, timeout: .seconds(600))
    let summary = output.split(separator: "\n").suffix(40).joined(separator: "\n")
    #expect(status == 0, "schemathesis found failures:\n\(output.suffix(12_000))")
    let generated = output.firstMatch(of: /([0-9]+) generated/).flatMap { Int($0.1) } ?? 0
    #expect(generated >= 1000, "only \(generated) test cases:\n\(summary)")
    print("schemathesis: \(output.split(separator: "\n").last { $0.contains("generated") } ?? "")")
  }

  /// schemathesis' configuration: what is particular to some operations.
  static let configuration = #"""
    # Where the event stream's answer ends: it never does, so it is read for a second.
    [[operations]]
    include-path = "/v7/incidents/stream"
    request-timeout = 1.0

    # A feed document's and a probe batch's validity is their format's, not JSON Schema's: the
    # server refuses an unreadable one with 400 (docs/api.md), which a generated body mostly is.
    [[operations]]
    include-path-regex = '^/v1/(feeds/\{format\}|probes)$'
    checks.positive_data_acceptance.expected-statuses = ["2xx", "400", "401", "404", "409", "429"]

    # OSRM's coordinates are valid by their pattern anywhere on Earth; one off the road
    # network, or a pair no road connects, is OSRM's 400 NoSegment or NoRoute (docs/api.md).
    [[operations]]
    include-path-regex = '^/(route|table|nearest)/v1/'
    checks.positive_data_acceptance.expected-statuses = ["2xx", "400", "401", "429", "503"]
    """#

  /// The schemathesis hooks (a Python module): the rules of docs/api.md that JSON Schema
  /// cannot state, applied to the requests schemathesis calls valid.
  static let hooks = #"""
    """Schemathesis hooks for swift-traffic's /openapi.json.

    What a JSON Schema cannot say, the server's documented rules say: a `Schema-valid request`
    (positive mode) is kept only when it also keeps those rules (docs/api.md), so that every
    positive case must be answered with success. Negative cases are left as generated.
    """
    import math
    import os
    import re

    import schemathesis

    NUMBER = re.compile(r"^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$")
    TIME = re.compile(
        r"^([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt ]([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.[0-9]+)?"
        r"(?:[Zz]|([+-])([0-9]{2}):([0-9]{2}))?$")
    POLYLINE = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    LIMITED = {"/v7/incidents", "/v7/flow"}
    # Where the test's road network is: origin and destination of routes that exist.
    ROUTE = os.environ.get("TRAFFIC_SCHEMATHESIS_ROUTE", "")


    def decimal(text):
        """The server's plain decimal (QueryParameters.decimal): finite, at most 64 characters."""
        text = str(text)
        if len(text) > 64 or not NUMBER.match(text):
            return None
        value = float(text)
        return value if math.isfinite(value) else None


    def seconds(text):
        """Seconds since 1970 of an RFC 3339 time (no offset: UTC), or None."""
        match = TIME.match(str(text))
        if not match:
            return None
        y, mo, d, h, mi, s = (int(match.group(k)) for k in range(1, 7))
        y2 = y - (mo <= 2)
        era = y2 // 400
        yoe = y2 - era * 400
        doy = (153 * (mo + (-3 if mo > 2 else 9)) + 2) // 5 + d - 1
        days = era * 146097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 719468
        offset = 0
        if match.group(7):
            offset = (int(match.group(8)) * 60 + int(match.group(9))) * 60
            offset = -offset if match.group(7) == "-" else offset
        return days * 86400 + h * 3600 + mi * 60 + s - offset


    def polyline(text):
        """The points of a flexible polyline without a third dimension, strictly, or None."""
        values, value, shift = [], 0, 0
        for character in text:
            index = POLYLINE.find(character)
            if index < 0:
                return None
            value |= (index & 0x1F) << shift
            if index & 0x20:
                shift += 5
                if shift > 50:
                    return None
            else:
                values.append(value)
                value, shift = 0, 0
        if shift or len(values) < 2 or values[0] != 1 or values[1] >= 16 or len(values) % 2:
            return None
        scale = 10 ** values[1]
        points, lat, lng = [], 0, 0
        for k in range(2, len(values), 2):
            lat += ~(values[k] >> 1) if values[k] & 1 else values[k] >> 1
            lng += ~(values[k + 1] >> 1) if values[k + 1] & 1 else values[k + 1] >> 1
            if not (-90 <= lat / scale <= 90 and -180 <= lng / scale <= 180):
                return None
            points.append((lat / scale, lng / scale))
        return points


    def length(points):
        total = 0.0
        for (a, b), (c, d) in zip(points, points[1:]):
            p, q = math.radians(a), math.radians(c)
            h = math.sin((q - p) / 2) ** 2 + math.cos(p) * math.cos(q) * math.sin(math.radians(d - b) / 2) ** 2
            total += 2 * 6371008.8 * math.asin(min(1.0, math.sqrt(h)))
        return total


    def coordinates(text):
        parts = str(text).split(",")
        if len(parts) != 2:
            return None
        lat, lng = decimal(parts[0]), decimal(parts[1])
        if lat is None or lng is None or not (-90 <= lat <= 90 and -180 <= lng <= 180):
            return None
        return lat, lng


    def area(text, limited):
        """Whether the server takes `in` (V7AreaQuery.decode and TrafficQueryLimits.here)."""
        if not isinstance(text, str) or ":" not in text:
            return False
        kind, rest = text.split(":", 1)
        kind = kind.lower()
        if kind in ("circle", "corridor"):
            parts = rest.split(";")
            if len(parts) != 2 or not parts[1].startswith("r="):
                return False
            radius = decimal(parts[1][2:])
            if radius is None or radius < 0:
                return False
            if kind == "circle":
                return coordinates(parts[0]) is not None and (not limited or radius <= 50000)
            points = polyline(parts[0])
            if points is None or len(points) < 2 or radius <= 0:
                return False
            return not limited or (len(points) <= 300 and radius <= 5000 and length(points) <= 499000)
        if kind == "bbox":
            values = [decimal(part) for part in rest.split(",")]
            if len(values) != 4 or None in values:
                return False
            west, south, east, north = values
            if not (-180 <= west <= 180 and -180 <= east <= 180 and -90 <= south <= north <= 90):
                return False
            width = east - west + 360 if west > east else east - west
            return not limited or (width <= 1 and north - south <= 1)
        return False


    def text(value):
        """A POST body member as the server reads it (RequestParameters.of)."""
        if value is None:
            return None
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, (int, float)):
            if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
                return str(int(value))
            return str(value)
        if isinstance(value, list):
            return ",".join(text(item) for item in value)
        if isinstance(value, dict):
            kind = value.get("type")
            if kind == "circle":
                center = value.get("center") or {}
                return f"circle:{center.get('lat')},{center.get('lng')};r={value.get('radius')}"
            if kind == "bbox":
                return f"bbox:{value.get('west')},{value.get('south')},{value.get('east')},{value.get('north')}"
            if kind == "corridor":
                return f"corridor:{value.get('corridor')};r={value.get('radius')}"
            return ""
        return value


    def v7_parameters(path, parameters):
        """The cross-parameter rules of the v7 queries and the publications."""
        limited = path in LIMITED
        if "in" in parameters and not area(parameters["in"], limited):
            return False
        start, end = parameters.get("earliestStartTime"), parameters.get("latestEndTime")
        if start is not None and end is not None:
            if seconds(end) is None or seconds(start) is None or seconds(end) < seconds(start):
                return False
        if (parameters.get("sort") is None) != (parameters.get("from") is None):
            return False
        if parameters.get("from") is not None and coordinates(parameters["from"]) is None:
            return False
        low, high = parameters.get("minJamFactor"), parameters.get("maxJamFactor")
        if low is not None and high is not None and float(low) > float(high):
            return False
        return True


    @schemathesis.hook
    def filter_case(context, case):
        meta = case.meta
        if meta is None or not meta.generation.mode.is_positive:
            return True
        path = case.operation.path
        query = dict(case.query or {})
        if path in ("/v7/incidents", "/v7/flow") and case.method.upper() == "POST":
            if not isinstance(case.body, dict):
                return False
            members = {name: text(value) for name, value in case.body.items() if value is not None}
            return v7_parameters(path, members)
        if path in ("/v7/incidents", "/v7/flow", "/v7/incidents/stream", "/datex2/v3/situations",
                    "/wzdx/v4.2/feed"):
            return v7_parameters(path, query)
        if path.startswith("/tiles/") and "{z}" in path:
            parameters = case.path_parameters or {}
            try:
                z, x, y = (int(parameters[name]) for name in ("z", "x", "y"))
            except (KeyError, TypeError, ValueError):
                return True
            return 0 <= z <= 22 and 0 <= x < 1 << z and 0 <= y < 1 << z
        if path == "/v8/routes":
            if "departureTime" in query and "arrivalTime" in query:
                return False
            returned = query.get("return") or []
            if "instructions" in returned and "actions" not in returned:
                return False
            for via in query.get("via") or []:
                stops = re.findall(r"!stopDuration=([0-9]+)", via)
                if any(int(stop) > 86400 for stop in stops):
                    return False
            return True
        if path == "/v8/matrix":
            body = case.body if isinstance(case.body, dict) else {}
            origins = body.get("origins") or []
            destinations = body.get("destinations") or origins
            if len(origins) * len(destinations) > 10000:
                return False
            region = body.get("regionDefinition") or {}
            if region.get("type") == "boundingBox" and not region.get("north", 0) > region.get("south", 0):
                return False
            return True
        if path == "/v1/route/traffic":
            route = case.body.get("route") if isinstance(case.body, dict) else None
            if not isinstance(route, dict):
                return False
            if isinstance(route.get("polyline"), str):
                points = polyline(route["polyline"])
                if points is None:
                    return False
            else:
                points = [(point["lat"], point["lng"]) for point in route.get("coordinates") or []]
            return 2 <= len(points) <= 10000 and length(points) <= 499000
        return True


    @schemathesis.hook
    def map_case(context, case):
        """Positive route requests between two places of the test's network."""
        meta = case.meta
        if (meta is None or not meta.generation.mode.is_positive or not ROUTE
                or case.operation.path != "/v8/routes"):
            return case
        origin, destination = ROUTE.split(";")
        query = dict(case.query or {})
        query["origin"], query["destination"] = origin, destination
        query["via"] = [origin + via[via.index("!"):] if "!" in via else origin
                        for via in query.get("via") or []]
        if not query["via"]:
            del query["via"]
        case.query = query
        return case
    """#
}
