import Codec
import Foundation
import Geo
import Zlib

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// Reads a SUMO road network (`.net.xml`, the output of netconvert) into a ``RoadNetwork``,
/// converting its projected coordinates to WGS84.
///
/// - Geo-reference: the `<location>` element's `projParameter` (a PROJ string; `+proj=utm`
///   with `+zone` and optional `+south`, or `+proj=tmerc` with `+lat_0 +lon_0 +k +x_0 +y_0`,
///   on WGS84/GRS80) and `netOffset`: projected = network coordinates − netOffset, then the
///   inverse transverse Mercator projection (Karney 2011).
/// - Edges: every edge that is not internal (`function` absent or `normal`) and has a lane
///   open to motor vehicles (passenger cars, trucks, buses, delivery vans, taxis,
///   motorcycles) becomes one directed segment keeping the SUMO edge id as
///   ``RoadSegment/sourceID``. The geometry is the edge's `shape`, else the centre line of
///   its lanes (their point-wise mean when all lanes have as many points, else lane 0).
///   The speed limit is the fastest lane's `speed`, the lane count `numLanes`,
///   ``RoadSegment/isOpenToCars`` whether a lane admits `passenger` (SUMO's converted
///   `highway.service` roads, for one, admit only `delivery`), the road class the `type`
///   (`highway.motorway` -> ``RoadClass/motorway``; unknown types read as
///   ``RoadClass/road``).
/// - Nodes: the edges' `from` and `to` junctions, at the junction's `x`,`y`.
/// - Turns: ``RoadNetwork/turns`` from the `connection`s between lanes open to motor
///   vehicles (none when the file has no connections: then every turn but the way back),
///   each with the lanes it leaves from (``SegmentTurns/lanes(from:to:)``: the connections'
///   `fromLane`s, as places among the edge's lanes open to motor vehicles counted from the
///   left; SUMO counts from the outer edge, the left in `lefthand="true"` networks).
/// - Opposite directions: an edge and one joining the same junctions the other way (SUMO
///   names them `id` and `-id` when both come from one OpenStreetMap way).
/// - Left out: internal edges and junctions, `function="crossing|walkingarea|connector"`
///   edges, and edges no lane of which admits a motor vehicle class (railways, tram tracks,
///   footways, cycleways, `vip`- or `emergency`-only lanes).
/// - Files may be gzip-compressed (`.net.xml.gz`, recognised by content). Left-hand
///   networks (`lefthand="true"`) need nothing else special: geometry is the edges' centre
///   lines.
/// - Networks that are not geo-referenced (`projParameter="!"`, what `netgenerate` and
///   hand-written plain networks carry) are refused with
///   ``RoadsError/unsupported(file:reason:)``: their coordinates are metres on no map, and
///   SUMO's `--fcd-output.geo` writes those same metres as if they were degrees, so no
///   placement could make probes from such a simulation meet its roads. Build such networks
///   with a projection instead (from OpenStreetMap, or with netconvert's `--proj.utm` from
///   geo-referenced input).
public enum SUMONetworkImporter {
  /// Imports a `.net.xml` file.
  ///
  /// - Parameter url: a local SUMO network file.
  /// - Returns: the network.
  /// - Throws: ``RoadsError/unreadable(file:reason:)``;
  ///   ``RoadsError/malformed(file:position:reason:)`` naming the line and column of a
  ///   defect (the byte for a DTD, which is refused), for a file that is not XML, ends early
  ///   (truncated), lacks a `<location>`, or whose gzip data is corrupt;
  ///   ``RoadsError/unsupported(file:reason:)`` for a network
  ///   that is not geo-referenced (`projParameter="!"`), projections other than UTM and
  ///   transverse Mercator, and networks without one edge open to motor vehicles.
  /// - Complexity: O(e log e + v) for e edges of v shape points in total.
  public static func importNetwork(from url: URL) throws(RoadsError) -> RoadNetwork {
    try importNetwork(from: url, progress: nil)
  }

  /// ``importNetwork(from:)`` telling `progress` the edges and junctions read.
  package static func importNetwork(
    from url: URL, progress: ProgressReporter?
  ) throws(RoadsError) -> RoadNetwork {
    progress?.begin("network import", detail: "edges and junctions", unit: .items("elements"))
    guard FileManager.default.isReadableFile(atPath: url.path),
      let handle = FileHandle(forReadingAtPath: url.path)
    else {
      throw .unreadable(file: url.path, reason: "no such readable file")
    }
    let magic = (try? handle.read(upToCount: 2)) ?? Data()
    try? handle.close()
    let name = url.lastPathComponent
    if magic == Data([0x1F, 0x8B]) {
      let compressed: Data
      do { compressed = try Data(contentsOf: url) } catch {
        throw .unreadable(file: url.path, reason: SystemErrorText.reason(error))
      }
      let xml: Data
      do { xml = try Gzip.decompress(compressed, maxOutputBytes: maxUncompressedBytes) } catch {
        throw .malformed(file: name, position: "gzip data", reason: "\(error)")
      }
      return try SUMONetworkReader(fileName: name, progress: progress).read(.data(xml))
    }
    guard let stream = InputStream(url: url) else {
      throw .unreadable(file: url.path, reason: "cannot open a stream")
    }
    return try SUMONetworkReader(fileName: name, progress: progress).read(.stream(stream))
  }

  /// The largest decompressed `.net.xml.gz` read (8 GiB), a guard against gzip bombs.
  static let maxUncompressedBytes = 8 << 30

  /// Imports a SUMO network held in memory.
  ///
  /// - Parameters:
  ///   - data: the `.net.xml` document.
  ///   - name: a name for the data in error messages.
  /// - Returns: the network.
  /// - Throws: as ``importNetwork(from:)``.
  /// - Complexity: as ``importNetwork(from:)``.
  public static func importNetwork(
    xml data: Data, name: String = "SUMO network"
  )
    throws(RoadsError) -> RoadNetwork
  {
    try SUMONetworkReader(fileName: name).read(.data(data))
  }

  /// Reads a PROJ string of the kinds SUMO writes.
  ///
  /// - Throws: ``RoadsError/unsupported(file:reason:)`` for `"!"` (not geo-referenced),
  ///   other projections or ellipsoids; ``RoadsError/malformed(file:position:reason:)`` for
  ///   unreadable numbers.
  static func projection(
    _ parameters: String, fileName: String
  ) throws(RoadsError)
    -> TransverseMercator
  {
    let text = parameters.trimmingWhitespace()
    if text == "!" || text.isEmpty {
      throw .unsupported(
        file: fileName,
        reason:
          "the network is not geo-referenced (<location projParameter=\"\(text)\">): its "
          + "x,y are metres on no map; build it with a projection (netconvert --proj.utm, or "
          + "from OpenStreetMap) so that probes can be placed on it")
    }
    var values: [String: String] = [:]
    for token in text.split(separator: " ") where token.hasPrefix("+") {
      let pair = token.dropFirst().split(separator: "=", maxSplits: 1)
      guard let key = pair.first else { continue }
      values[String(key)] = pair.count > 1 ? String(pair[1]) : ""
    }
    if let ellipsoid = values["ellps"] ?? values["datum"], ellipsoid != "WGS84",
      ellipsoid != "GRS80"
    {
      throw .unsupported(file: fileName, reason: "ellipsoid \(ellipsoid) in \"\(text)\"")
    }
    func number(_ key: String, default value: Double) throws(RoadsError) -> Double {
      guard let raw = values[key] else { return value }
      guard let parsed = Double(raw), parsed.isFinite else {
        throw .malformed(
          file: fileName, position: "<location>", reason: "+\(key)=\(raw) is not a number")
      }
      return parsed
    }
    switch values["proj"] {
    case "utm":
      guard let zoneText = values["zone"], let zone = Int(zoneText), (1...60).contains(zone)
      else {
        throw .malformed(
          file: fileName, position: "<location>", reason: "UTM without a zone 1...60: \(text)")
      }
      return .utm(zone: zone, south: values["south"] != nil)
    case "tmerc":
      return TransverseMercator(
        centralMeridian: try number("lon_0", default: 0),
        latitudeOfOrigin: try number("lat_0", default: 0),
        scale: try number("k_0", default: try number("k", default: 1)),
        falseEasting: try number("x_0", default: 0),
        falseNorthing: try number("y_0", default: 0))
    default:
      throw .unsupported(file: fileName, reason: "projection \"\(text)\"")
    }
  }
}

/// The event handler behind ``SUMONetworkImporter``.
final class SUMONetworkReader: NSObject, XMLParserDelegate {
  /// Vehicle classes that make a lane part of the motor-traffic network.
  static let motorClasses: Set<String> = [
    "passenger", "private", "taxi", "bus", "coach", "delivery", "truck", "trailer",
    "motorcycle", "evehicle", "hov",
  ]

  private struct Lane {
    var speed: Double
    var shape: [(x: Double, y: Double)]
    var allowsMotorVehicles: Bool
    var allowsCars: Bool
  }

  private struct Edge {
    var id: String
    var from: String
    var to: String
    var type: String?
    var name: String?
    var shape: [(x: Double, y: Double)]?
    var lanes: [Lane] = []
  }

  private let fileName: String
  private var projection: TransverseMercator?
  private var offset = (x: 0.0, y: 0.0)
  private var edges: [Edge] = []
  private var current: Edge?
  private var junctions: [String: (x: Double, y: Double)] = [:]
  /// The lane connections between normal edges: from edge, to edge, from lane, to lane.
  private var connections: [(from: String, to: String, fromLane: Int, toLane: Int)] = []
  /// The edges `<roundabout edges="...">` lists.
  private var roundaboutEdges: Set<String> = []
  private var failure: RoadsError?
  private var sawRoot = false
  private var closedRoot = false
  /// Whether traffic keeps left (`<net lefthand="true">`): lane 0 is then the leftmost.
  private var keepsLeft = false
  /// Normal edges left out because no lane admits a motor vehicle.
  private var nonMotorEdges = 0

  /// Told the edges and junctions read.
  private let progress: ProgressReporter?
  private var elements: Int64 = 0

  init(fileName: String, progress: ProgressReporter? = nil) {
    self.fileName = fileName
    self.progress = progress
  }

  /// Parses the document through Codec's `GuardedXMLReader` and builds the network.
  func read(_ source: GuardedXMLReader.Source) throws(RoadsError) -> RoadNetwork {
    try NetworkXML.parse(
      source, delegate: self, fileName: fileName, root: "net",
      delegateFailure: { failure }, rootState: { (sawRoot, closedRoot) })
    guard let projection else {
      throw .malformed(
        file: fileName, position: nil, reason: "no <location> element with a projParameter")
    }
    guard !edges.isEmpty else {
      throw .unsupported(
        file: fileName,
        reason:
          "no edge is open to motor vehicles (\(nonMotorEdges) normal edges admit only "
          + "other vehicle classes, such as rail, bicycles, pedestrians or vip)")
    }
    return build(projection)
  }

  private func fail(_ parser: XMLParser, _ error: RoadsError) {
    guard failure == nil else { return }
    failure = error
    parser.abortParsing()
  }

  private func fail(_ parser: XMLParser, _ reason: String) {
    fail(
      parser,
      .malformed(
        file: fileName, position: "line \(parser.lineNumber), column \(parser.columnNumber)",
        reason: reason))
  }

  /// Parses "x,y x,y ..." (a third, z, value per point is ignored).
  private func shape(_ text: String) -> [(x: Double, y: Double)]? {
    var points: [(x: Double, y: Double)] = []
    for pair in text.split(separator: " ") {
      let parts = pair.split(separator: ",")
      guard parts.count >= 2, let x = Double(parts[0]), let y = Double(parts[1]), x.isFinite,
        y.isFinite
      else { return nil }
      points.append((x, y))
    }
    return points
  }

  /// Whether a lane's `allow` / `disallow` lets any of `vehicleClasses` use it.
  private func allows(_ vehicleClasses: Set<String>, _ attributes: [String: String]) -> Bool {
    if let allow = attributes["allow"] {
      let classes = allow.split(separator: " ").map(String.init)
      return classes.contains("all") || classes.contains { vehicleClasses.contains($0) }
    }
    if let disallow = attributes["disallow"] {
      let classes = Set(disallow.split(separator: " ").map(String.init))
      return !classes.contains("all") && !vehicleClasses.isSubset(of: classes)
    }
    return true
  }

  func parser(
    _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
    qualifiedName qName: String?, attributes: [String: String] = [:]
  ) {
    if progress != nil, elementName == "edge" || elementName == "junction" {
      elements += 1
      if elements & 0x3FF == 0 { progress?.update(done: elements) }
    }
    switch elementName {
    case "net":
      sawRoot = true
      keepsLeft = attributes["lefthand"] == "true" || attributes["lefthand"] == "1"
    case "location":
      if let text = attributes["netOffset"] {
        let parts = text.split(separator: ",")
        guard parts.count == 2, let x = Double(parts[0]), let y = Double(parts[1]) else {
          return fail(parser, "netOffset \"\(text)\" is not \"x,y\"")
        }
        offset = (x, y)
      }
      do {
        projection = try SUMONetworkImporter.projection(
          attributes["projParameter"] ?? "!", fileName: fileName)
      } catch {
        fail(parser, error)
      }
    case "edge":
      let function = attributes["function"] ?? "normal"
      guard function == "normal" else { return }
      guard let id = attributes["id"], let from = attributes["from"], let to = attributes["to"]
      else { return fail(parser, "edge without id, from or to") }
      var edge = Edge(
        id: id, from: from, to: to, type: attributes["type"], name: attributes["name"])
      if let text = attributes["shape"] {
        guard let points = shape(text), points.count >= 2 else {
          return fail(parser, "edge \(id) has an unreadable shape")
        }
        edge.shape = points
      }
      current = edge
    case "lane":
      guard current != nil else { return }
      guard let speedText = attributes["speed"], let speed = Double(speedText), speed > 0,
        speed.isFinite, let shapeText = attributes["shape"], let points = shape(shapeText),
        points.count >= 2
      else {
        return fail(parser, "lane \(attributes["id"] ?? "?") lacks a valid speed or shape")
      }
      current?.lanes.append(
        Lane(
          speed: speed, shape: points,
          allowsMotorVehicles: allows(Self.motorClasses, attributes),
          allowsCars: allows(["passenger"], attributes)))
    case "junction":
      guard let id = attributes["id"], let x = attributes["x"].flatMap(Double.init),
        let y = attributes["y"].flatMap(Double.init)
      else { return }
      junctions[id] = (x, y)
    case "connection":
      guard let from = attributes["from"], let to = attributes["to"], !from.hasPrefix(":"),
        !to.hasPrefix(":"), let fromLane = attributes["fromLane"].flatMap(Int.init),
        let toLane = attributes["toLane"].flatMap(Int.init)
      else { return }
      connections.append((from, to, fromLane, toLane))
    case "roundabout":
      for edge in (attributes["edges"] ?? "").split(separator: " ") {
        roundaboutEdges.insert(String(edge))
      }
    default:
      break
    }
  }

  func parser(
    _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?,
    qualifiedName qName: String?
  ) {
    if elementName == "net" { closedRoot = true }
    guard elementName == "edge", let edge = current else { return }
    current = nil
    if edge.lanes.contains(where: \.allowsMotorVehicles) {
      edges.append(edge)
    } else {
      nonMotorEdges += 1
    }
  }

  private func build(_ projection: TransverseMercator) -> RoadNetwork {
    func geo(_ point: (x: Double, y: Double)) -> GeoCoordinates {
      let result = projection.unproject(easting: point.x - offset.x, northing: point.y - offset.y)
      return GeoCoordinates(
        uncheckedLatitude: min(90, max(-90, result.latitude)), longitude: result.longitude)
    }
    var nodes: [RoadNode] = []
    var nodeIndex: [String: Int] = [:]
    func node(_ id: String, fallback: (x: Double, y: Double)) -> Int {
      if let index = nodeIndex[id] { return index }
      let index = nodes.count
      nodes.append(RoadNode(id: index, sourceID: id, coordinates: geo(junctions[id] ?? fallback)))
      nodeIndex[id] = index
      return index
    }
    struct Pending {
      var edge: Edge
      var from: Int
      var to: Int
      var geometry: GeoPolyline
    }
    var pending: [Pending] = []
    for edge in edges {
      let points = edge.shape ?? centreLine(edge.lanes)
      let from = node(edge.from, fallback: points[0])
      let to = node(edge.to, fallback: points[points.count - 1])
      pending.append(
        Pending(
          edge: edge, from: from, to: to,
          geometry: GeoPolyline(uncheckedVertices: points.map(geo))))
    }
    // Pair opposite directions, preferring SUMO's "id" / "-id" naming.
    var opposite = [Int?](repeating: nil, count: pending.count)
    var byEnds: [[Int]: [Int]] = [:]
    for (i, item) in pending.enumerated() { byEnds[[item.from, item.to], default: []].append(i) }
    for (i, item) in pending.enumerated() where opposite[i] == nil && item.from != item.to {
      let candidates = (byEnds[[item.to, item.from]] ?? []).filter { opposite[$0] == nil }
      let id = item.edge.id
      let twin = id.hasPrefix("-") ? String(id.dropFirst()) : "-" + id
      if let match = candidates.first(where: { pending[$0].edge.id == twin }) ?? candidates.first {
        opposite[i] = match
        opposite[match] = i
      }
    }
    var segments: [RoadSegment] = []
    segments.reserveCapacity(pending.count)
    for (i, item) in pending.enumerated() {
      let edge = item.edge
      let speed = edge.lanes.map(\.speed).max() ?? 13.89
      segments.append(
        RoadSegment(
          id: i, sourceID: edge.id, fromNode: item.from, toNode: item.to,
          geometry: item.geometry, name: edge.name, ref: nil,
          roadClass: Self.roadClass(edge.type),
          speedLimit: SpeedLimit(metersPerSecond: speed, source: .posted),
          laneCount: edge.lanes.count, isReversed: edge.id.hasPrefix("-"),
          oppositeID: opposite[i], isOpenToCars: edge.lanes.contains(where: \.allowsCars),
          isRoundabout: roundaboutEdges.contains(edge.id)))
    }
    // The turns: an edge leads to another where a lane of it open to motor vehicles
    // connects to one of the other that is (SUMO's `connection`s, which leave out the turns
    // a junction forbids and have U-turns only where the network allows them).
    var turns: SegmentTurns?
    if !connections.isEmpty {
      var index: [String: Int] = [:]
      for (i, item) in pending.enumerated() { index[item.edge.id] = i }
      // Each lane's place among its edge's driving lanes, counted from the left (SUMO
      // counts from the outer edge: the right where traffic keeps right).
      let fromLeft = pending.map { item -> [Int?] in
        let driving = item.edge.lanes.indices.filter { item.edge.lanes[$0].allowsMotorVehicles }
        var place = [Int?](repeating: nil, count: item.edge.lanes.count)
        for (rank, lane) in driving.enumerated() {
          place[lane] = keepsLeft ? rank : driving.count - 1 - rank
        }
        return place
      }
      var next = [[Int: SegmentTurns.Lanes]](repeating: [:], count: pending.count)
      for connection in connections {
        guard let from = index[connection.from], let to = index[connection.to],
          pending[to].from == pending[from].to,
          pending[from].edge.lanes.indices.contains(connection.fromLane),
          pending[to].edge.lanes.indices.contains(connection.toLane),
          pending[from].edge.lanes[connection.fromLane].allowsMotorVehicles,
          pending[to].edge.lanes[connection.toLane].allowsMotorVehicles
        else { continue }
        let place = fromLeft[from][connection.fromLane] ?? 0
        let bit: SegmentTurns.Lanes = place < 32 ? 1 << place : 0
        next[from][to, default: 0] |= bit
      }
      var table = SegmentTurns()
      for successors in next {
        table.append(
          successors.keys.sorted().map { (segment: $0, lanes: successors[$0] ?? 0) })
      }
      turns = table
    }
    return RoadNetwork(uncheckedNodes: nodes, segments: segments, turns: turns)
  }

  /// The lanes' centre line: the point-wise mean when all lanes have as many points.
  private func centreLine(_ lanes: [Lane]) -> [(x: Double, y: Double)] {
    // An edge is kept only with a motor lane, so `lanes` is not empty here.
    guard let first = lanes.first else { return [] }
    guard lanes.count > 1, lanes.allSatisfy({ $0.shape.count == first.shape.count }) else {
      return first.shape
    }
    let count = Double(lanes.count)
    return first.shape.indices.map { k in
      (
        lanes.reduce(0) { $0 + $1.shape[k].x } / count,
        lanes.reduce(0) { $0 + $1.shape[k].y } / count
      )
    }
  }

  /// The road class of a SUMO edge type such as `highway.primary` or
  /// `highway.primary|railway.tram`.
  static func roadClass(_ type: String?) -> RoadClass {
    for part in (type ?? "").split(separator: "|") where part.hasPrefix("highway.") {
      if let roadClass = RoadClass(highway: String(part.dropFirst("highway.".count))) {
        return roadClass
      }
    }
    return .road
  }
}
