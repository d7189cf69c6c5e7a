import Codec
// traffic-fuzz: one libFuzzer target per decoder, chosen with TRAFFIC_FUZZ_TARGET.
//
// Built with `-sanitize=fuzzer -DFUZZING` (see `make fuzz`) it is a libFuzzer binary;
// built normally it replays the seed corpus under Tests/*/Fuzz/<target>/ (or the files given
// as arguments) through the same entry point; `make test` replays every seed that way.
import Foundation
import Geo
import Roads
import Traffic
import TrafficFeeds
import TrafficServer

/// The fuzz targets by name: each takes arbitrary bytes and must return without crashing,
/// trapping or hanging, whatever the input.
let fuzzTargets: [String: @Sendable (Data) -> Void] = {
  var targets: [String: @Sendable (Data) -> Void] = [:]
  for format in FeedFormat.allCases {
    targets[format.rawValue] = { data in
      _ = FeedFormat.detect(data)
      guard
        let document = try? format.decoder.decode(data, options: FeedOptions(sourceName: "fuzz"))
      else { return }
      checkPublishingReadsBack(document.incidents)
    }
  }
  targets["flexible-polyline"] = { data in
    _ = try? FlexiblePolyline.decode(String(decoding: data, as: UTF8.self))
  }
  targets["wkt"] = { data in _ = try? WKT.parse(String(decoding: data, as: UTF8.self)) }
  targets["geojson"] = { data in _ = try? GeoJSON.decodeGeometry(from: data) }
  targets["openlr"] = { data in
    _ = try? OpenLR.decode([UInt8](data))
    _ = try? OpenLR.decode(base64: String(decoding: data, as: UTF8.self))
  }
  targets["json-stream"] = { data in checkStreamAgreesWithParser(data) }
  // The HTTP API's query strings (`in=`, filters, times...): any query must get a 2xx or 4xx,
  // never a 5xx; a 5xx stops the fuzzer as a crash.
  targets["v7-query"] = { data in
    guard let server = fuzzServer else { return }
    let query = String(decoding: data, as: UTF8.self)
    for path in ["/v7/incidents?", "/v7/flow?", "/v7/incidents/x?", "/tiles/flow/3/4/2.png?"] {
      let status = server.handle(HTTPRequest(target: path + query)).status
      if status >= 500 { fatalError("\(path)\(query) answered \(status)") }
    }
  }
  // HERE Routing v8 queries on a small grid of streets: any query must get a 2xx or 4xx.
  // Each input is tried alone and after a valid origin and destination, so that the
  // options (`via`, `departureTime`, `alternatives`, `return`, `spans`...) reach a search.
  targets["v8-query"] = { data in
    guard let server = fuzzRoutingServer else { return }
    let query = String(decoding: data, as: UTF8.self)
    for prefix in [
      "/v8/routes?",
      "/v8/routes?transportMode=car&origin=52.5201,13.4002&destination=52.5238,13.4037&",
    ] {
      let status = server.handle(HTTPRequest(target: prefix + query)).status
      if status >= 500 { fatalError("\(prefix)\(query) answered \(status)") }
    }
  }
  // OSRM's HTTP API on the same streets: the input is the part after the service and version
  // (`{profile}/{coordinates}?options`), tried on each service alone and after valid
  // coordinates, so that options reach a search. Any request must get a 2xx or 4xx.
  targets["osrm-query"] = { data in
    guard let server = fuzzRoutingServer else { return }
    let rest = String(decoding: data, as: UTF8.self)
    for service in ["route", "table", "nearest"] {
      for prefix in ["/\(service)/v1/", "/\(service)/v1/driving/13.4002,52.5201;13.4037,52.5238?"] {
        let status = server.handle(HTTPRequest(target: prefix + rest)).status
        if status >= 500 { fatalError("\(prefix)\(rest) answered \(status)") }
      }
    }
  }
  // Bodies of the POST forms of the queries (v7's JSON parameters, traffic along a route,
  // HERE Matrix Routing v8): any body must get a 2xx or 4xx.
  targets["post-body"] = { data in
    guard let server = fuzzRoutingServer else { return }
    for path in ["/v7/incidents", "/v7/flow", "/v1/route/traffic", "/v8/matrix?async=false"] {
      let request = HTTPRequest(
        method: "POST", target: path, headers: ["Content-Type": "application/json"], body: data)
      let status = server.handle(request).status
      if status >= 500 { fatalError("POST \(path) answered \(status)") }
    }
  }
  return targets
}()

/// A server on a 5 × 5 grid of streets about 110 m apart in Berlin (one of them one-way), so
/// that route and flow requests reach the search and the flow tables.
let fuzzRoutingServer: TrafficServer? = {
  var xml = "<osm version=\"0.6\">"
  for row in 0..<5 {
    for column in 0..<5 {
      let id = row * 5 + column + 1
      xml += "<node id=\"\(id)\" lat=\"\(52.52 + Double(row) * 0.001)\" "
      xml += "lon=\"\(13.40 + Double(column) * 0.001)\"/>"
    }
  }
  var way = 100
  func street(_ nodes: [Int], oneway: Bool) {
    way += 1
    xml += "<way id=\"\(way)\">" + nodes.map { "<nd ref=\"\($0)\"/>" }.joined()
    xml += "<tag k=\"highway\" v=\"residential\"/><tag k=\"maxspeed\" v=\"50\"/>"
    if oneway { xml += "<tag k=\"oneway\" v=\"yes\"/>" }
    xml += "</way>"
  }
  for line in 0..<5 {
    street((0..<5).map { line * 5 + $0 + 1 }, oneway: line == 2)
    street((0..<5).map { $0 * 5 + line + 1 }, oneway: false)
  }
  xml += "</osm>"
  guard let network = try? OSMImporter.importNetwork(xml: Data(xml.utf8)),
    let engine = try? TrafficEngine(store: InMemoryTrafficStore(), network: network)
  else { return nil }
  return try? TrafficServer(engine: engine, configuration: ServerConfiguration(accessLog: .none))
}()

/// Whatever a decoder made of the input is published as DATEX II and WZDx, and each
/// document must read back into as many incidents (WZDx: its work zones); a difference stops
/// the fuzzer as a crash.
func checkPublishingReadsBack(_ incidents: [TrafficIncident]) {
  guard !incidents.isEmpty else { return }
  let time = Date(timeIntervalSince1970: 1_800_000_000)
  let publication = Publication(incidents: incidents, publicationTime: time)
  let options = FeedOptions(sourceName: "fuzz", now: time)
  let datex = DATEXIIPublisher.document(publication)
  let datexBack = (try? DATEXIIDecoder.decode(datex, options: options))?.incidents.count ?? -1
  if datexBack != incidents.count {
    fatalError("DATEX II publication read back \(datexBack) of \(incidents.count) incidents")
  }
  let workZones = incidents.filter(WZDxPublisher.includes).count
  let wzdx = WZDxPublisher.document(publication)
  let wzdxBack = (try? WZDxDecoder.decode(wzdx, options: options))?.incidents.count ?? -1
  if wzdxBack != workZones {
    fatalError("WZDx publication read back \(wzdxBack) of \(workZones) work zones")
  }
}

/// Differential target: `JSONStreamReader`, fed in chunks of 1–16 bytes (the first input
/// byte chooses), must accept exactly what `JSONParser` accepts, with the same values, and
/// reject the rest at the same byte; a disagreement stops the fuzzer as a crash.
///
/// Inputs with 200 or more brackets are only run, not compared: the reader counts nesting
/// from each streamed record, the parser from the root.
func checkStreamAgreesWithParser(_ data: Data) {
  guard let first = data.first else { return }
  let chunk = Int(first % 16) + 1
  let text = Data(data.dropFirst())
  var offset = text.startIndex
  var reader = JSONStreamReader { () throws(JSONStreamError) -> Data? in
    guard offset < text.endIndex else { return nil }
    let end = min(offset + chunk, text.endIndex)
    defer { offset = end }
    return text[offset..<end]
  }
  var elements: [JSONValue] = []
  let streamed = Result { () throws(JSONStreamError) in
    try reader.read(streaming: ["a", ""]) { _, _, value in elements.append(value) }
  }
  let whole = Result { () throws(JSONSyntaxError) in try JSONParser.parse(text) }
  let brackets = text.count { $0 == UInt8(ascii: "[") || $0 == UInt8(ascii: "{") }
  guard brackets < 200 else { return }
  switch (whole, streamed) {
  case (.success(let value), .success(let rest)):
    if case .array(let items) = value {
      guard rest == .array([]), elements == items else { fatalError("root array differs") }
    } else if case .object(var members) = value, let items = members["a"]?.array,
      text.firstRange(of: Data("\"a\"".utf8)) == text.lastRange(of: Data("\"a\"".utf8))
    {
      members["a"] = .array([])
      guard rest == .object(members), elements == items else { fatalError("object differs") }
    }
  case (.failure(let expected), .failure(.syntax(let found))):
    guard expected.offset == found.offset else {
      fatalError("parser fails at byte \(expected.offset), stream at \(found.offset)")
    }
  default:
    fatalError("parser and stream disagree: \(whole) vs \(streamed)")
  }
}

/// A server on an empty in-memory engine, for the HTTP targets.
let fuzzServer: TrafficServer? = {
  guard let engine = try? TrafficEngine(store: InMemoryTrafficStore()) else { return nil }
  return try? TrafficServer(engine: engine, configuration: ServerConfiguration(accessLog: .none))
}()

/// The target named by `TRAFFIC_FUZZ_TARGET`.
func selectedTarget() -> (name: String, run: @Sendable (Data) -> Void)? {
  guard let name = ProcessInfo.processInfo.environment["TRAFFIC_FUZZ_TARGET"],
    let run = fuzzTargets[name]
  else { return nil }
  return (name, run)
}

#if FUZZING
  /// libFuzzer's entry point.
  @_cdecl("LLVMFuzzerTestOneInput")
  public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard let target = selectedTarget() else {
      FileHandle.standardError.write(
        Data(
          "set TRAFFIC_FUZZ_TARGET to one of: \(fuzzTargets.keys.sorted().joined(separator: ", "))\n"
            .utf8))
      exit(64)
    }
    target.run(Data(bytes: bytes, count: count))
    return 0
  }

  @_silgen_name("LLVMFuzzerRunDriver")
  func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
  ) -> CInt

  /// The package manager links an executable's entry point under this name; hand control to
  /// libFuzzer's driver from it.
  @_cdecl("traffic_fuzz_main")
  public func fuzzMain(
    _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
  ) -> CInt {
    var count = argc
    var arguments = argv
    return runFuzzerDriver(&count, &arguments) { bytes, length in
      fuzzOneInput(bytes, length)
    }
  }
#else
  /// Replays seed files through the fuzz entry point (no libFuzzer needed).
  @main
  enum Replay {
    static func main() {
      let arguments = Array(CommandLine.arguments.dropFirst())
      guard let target = selectedTarget() else {
        print("usage: TRAFFIC_FUZZ_TARGET=NAME traffic-fuzz FILE|DIR...")
        print("targets: \(fuzzTargets.keys.sorted().joined(separator: ", "))")
        exit(64)
      }
      var count = 0
      for path in arguments {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
          FileHandle.standardError.write(Data("traffic-fuzz: no such file \(path)\n".utf8))
          exit(64)
        }
        let files =
          isDirectory.boolValue
          ? ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted().map {
            path + "/" + $0
          } : [path]
        for file in files {
          guard let data = FileManager.default.contents(atPath: file) else { continue }
          target.run(data)
          count += 1
        }
      }
      print("\(target.name): replayed \(count) inputs")
    }
  }
#endif
