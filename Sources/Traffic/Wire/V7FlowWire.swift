import Codec
import Foundation

/// The HERE Traffic API v7 flow response, written and read.
///
/// The shape (HERE Traffic API v7 developer guide, "Flow" and "Filter flow by jam factor";
/// see `API.md` of this project):
///
/// ```
/// {"sourceUpdated": "2021-06-08T10:07:23Z", "results": [
///   {"location": {"description"?: "Alt-Friedrichsfelde", "length": 966,
///                 "shape": {"links": [{"points": [{"lat", "lng"}, ...], "length": 966}]}},
///    "currentFlow": {"speed": 13.89, "speedUncapped": 14.72, "freeFlow": 13.89,
///                    "jamFactor": 1.2, "confidence": 0.99, "traversability": "open",
///                    "jamTendency"?: 0}}]}
/// ```
///
/// Speeds are meters per second; `jamFactor` is 0.0...10.0 (10: blocked); `confidence`
/// above 0.7 is real time, 0.5...0.7 historical, 0.5 and below the speed limit;
/// `traversability` is `open`, `closed` or `reversibleNotRoutable`; `jamTendency` is an
/// integer as in the HERE SDK (`TrafficFlow.jamTendency`, `Int16`): 1 rising, 0 stable,
/// -1 falling. `subSegments` are not written (the model has none) and are ignored reading.
///
/// Choices made so that every field of ``TrafficFlow`` round-trips:
/// - The location is one link (the flow's polyline); its `length` is written to 0.1 m
///   (`fastDistance`), `location.length` is the model's length, exactly.
/// - This project adds three members at the end of `location`, after `shape`, which v7
///   clients ignore: `functionalClass` (1...5), `segmentId` (the engine's segment index) and
///   `sourceId` (the OpenStreetMap way or SUMO edge id). Reading a response without them
///   (HERE's own) gives functional class 5, segment id -1 and an empty source id.
/// - With `includeShape: false` (`locationReferencing=none`) `shape` is left out; such a
///   response cannot be read back (a flow needs its polyline).
///
/// Output is deterministic: members are always written in the order above.
public enum V7FlowWire {
  // MARK: Encoding

  /// Encodes a flow response.
  ///
  /// - Parameters:
  ///   - flows: The results, in the order to write them.
  ///   - sourceUpdated: When the flow data was last updated; `nil` writes `null`.
  ///   - includeShape: Whether to write `location.shape` (`locationReferencing=shape`);
  ///     `false` for `locationReferencing=none`.
  /// - Returns: UTF-8 JSON text.
  /// - Complexity: O(n) in the total number of vertices and characters.
  public static func encode(
    _ flows: some Collection<TrafficFlow>, sourceUpdated: Date?, includeShape: Bool = true
  ) -> Data {
    V7Envelope.write(
      flows, sourceUpdated: sourceUpdated, capacity: 64 + flows.count * (includeShape ? 512 : 256)
    ) { flow, writer in
      writeResult(flow, includeShape: includeShape, to: &writer)
    }
  }

  private static func writeResult(
    _ flow: TrafficFlow, includeShape: Bool, to w: inout JSONWriter
  ) {
    w.beginObject()
    w.key("location")
    w.beginObject()
    if let name = flow.roadName {
      w.member("description", name)
    }
    w.member("length", flow.lengthInMeters)
    if includeShape {
      w.key("shape")
      w.beginObject()
      w.key("links")
      w.beginArray()
      V7IncidentWire.writeLink(flow.location, to: &w)
      w.endArray()
      w.endObject()
    }
    w.member("functionalClass", flow.functionalClass)
    w.member("segmentId", flow.segmentID)
    w.member("sourceId", flow.sourceID)
    w.endObject()
    w.key("currentFlow")
    w.beginObject()
    w.member("speed", flow.speedInMetersPerSecond)
    w.member("speedUncapped", flow.speedUncappedInMetersPerSecond)
    w.member("freeFlow", flow.freeFlowSpeedInMetersPerSecond)
    w.member("jamFactor", flow.jamFactor)
    w.member("confidence", flow.confidence)
    w.member("traversability", flow.traversability.rawValue)
    if let tendency = flow.jamTendency {
      w.member("jamTendency", wireValue(tendency))
    }
    w.endObject()
    w.endObject()
  }

  /// The v7 integer of a tendency: 1 rising, 0 stable, -1 falling.
  public static func wireValue(_ tendency: JamTendency) -> Int {
    switch tendency {
    case .rising: return 1
    case .stable: return 0
    case .falling: return -1
    }
  }

  // MARK: Decoding

  /// Decodes a flow response.
  ///
  /// A result that cannot be read (no shape, a bad coordinate, a jam factor outside
  /// 0...10...) is skipped and listed in `problems` with its JSON path; the others are
  /// returned. `speedUncapped` defaults to `speed`, `speed` to `freeFlow`, `confidence` to
  /// 0.5 (speed limit), `traversability` to `open`; `jamTendency` may be the integer or the
  /// names `rising`, `stable`, `falling`.
  ///
  /// - Parameter data: UTF-8 JSON text.
  /// - Returns: The flows, the source time and the skipped results.
  /// - Throws: `V7WireError` when the text is not JSON or not a flow response.
  /// - Complexity: O(n) in the size of `data`.
  public static func decode(_ data: Data) throws(V7WireError) -> V7FlowResponse {
    let root: JSONValue
    do {
      root = try JSONParser.parse(data)
    } catch {
      throw V7WireError(location: error.place, reason: "not valid JSON: \(error.reason)")
    }
    let envelope = try V7Envelope.read(root)
    let decoded = V7Envelope.decodeEach(envelope.items) { (item, path) throws(JSONFieldError) in
      try decodeFlow(item, at: path)
    }
    return V7FlowResponse(
      sourceUpdated: envelope.sourceUpdated, flows: decoded.results, problems: decoded.problems)
  }

  /// Decodes one result object `{"location", "currentFlow"}`.
  ///
  /// - Throws: `JSONFieldError` naming the member that is missing or wrong.
  package static func decodeFlow(
    _ value: JSONValue, at path: String
  ) throws(JSONFieldError) -> TrafficFlow {
    let locationPath = path + ".location"
    let location = try value.required("location", at: path)
    let polyline = try decodeShape(location, at: locationPath)
    var roadName: String?
    if let member = location["description"], !member.isNull {
      roadName = try member.requiredString(at: locationPath + ".description")
    }
    var length = polyline.lengthInMeters
    if let member = location["length"], !member.isNull {
      length = try member.requiredDouble(at: locationPath + ".length")
      guard length >= 0 else {
        throw JSONFieldError(path: locationPath + ".length", reason: "must be >= 0")
      }
    }
    var functionalClass = 5
    if let member = location["functionalClass"], !member.isNull {
      guard let number = member.int, (1...5).contains(number) else {
        throw JSONFieldError(
          path: locationPath + ".functionalClass", reason: "expected an integer 1...5")
      }
      functionalClass = number
    }
    var segmentID = -1
    if let member = location["segmentId"], !member.isNull {
      guard let number = member.int else {
        throw JSONFieldError(path: locationPath + ".segmentId", reason: "expected an integer")
      }
      segmentID = number
    }
    var sourceID = ""
    if let member = location["sourceId"], !member.isNull {
      sourceID = try member.requiredString(at: locationPath + ".sourceId")
    }

    let flowPath = path + ".currentFlow"
    let current = try value.required("currentFlow", at: path)
    func speed(_ key: String) throws(JSONFieldError) -> Double? {
      guard let member = current[key], !member.isNull else { return nil }
      let number = try member.requiredDouble(at: "\(flowPath).\(key)")
      guard number >= 0 else {
        throw JSONFieldError(path: "\(flowPath).\(key)", reason: "a speed must be >= 0")
      }
      return number
    }
    guard let freeFlow = try speed("freeFlow") else {
      throw JSONFieldError(path: flowPath, reason: "missing member \"freeFlow\"")
    }
    let capped = try speed("speed") ?? freeFlow
    let uncapped = try speed("speedUncapped") ?? capped
    let jamFactor = try current.required("jamFactor", at: flowPath).requiredDouble(
      at: flowPath + ".jamFactor")
    guard (0...10).contains(jamFactor) else {
      throw JSONFieldError(path: flowPath + ".jamFactor", reason: "must be within 0...10")
    }
    var confidence = 0.5
    if let member = current["confidence"], !member.isNull {
      confidence = try member.requiredDouble(at: flowPath + ".confidence")
      guard (-1...1).contains(confidence) else {
        throw JSONFieldError(path: flowPath + ".confidence", reason: "must be within -1...1")
      }
    }
    var traversability = Traversability.open
    if let member = current["traversability"], !member.isNull {
      let name = try member.requiredString(at: flowPath + ".traversability")
      guard let known = Traversability(rawValue: name) else {
        throw JSONFieldError(
          path: flowPath + ".traversability",
          reason: "unknown traversability \"\(name)\" (open, closed, reversibleNotRoutable)")
      }
      traversability = known
    }
    var tendency: JamTendency?
    if let member = current["jamTendency"], !member.isNull {
      if let number = member.int {
        tendency = number > 0 ? .rising : number < 0 ? .falling : .stable
      } else if let name = member.string, let known = JamTendency(rawValue: name) {
        tendency = known
      } else {
        throw JSONFieldError(
          path: flowPath + ".jamTendency", reason: "expected an integer (-1, 0 or 1)")
      }
    }
    return TrafficFlow(
      location: polyline, lengthInMeters: length, roadName: roadName,
      functionalClass: functionalClass, speedInMetersPerSecond: capped,
      speedUncappedInMetersPerSecond: uncapped, freeFlowSpeedInMetersPerSecond: freeFlow,
      jamFactor: jamFactor, confidence: confidence, traversability: traversability,
      jamTendency: tendency, segmentID: segmentID, sourceID: sourceID)
  }

  /// The links of `location.shape` joined into one polyline (consecutive links share their
  /// end points, which are kept once).
  private static func decodeShape(
    _ location: JSONValue, at path: String
  ) throws(JSONFieldError) -> GeoPolyline {
    let linksPath = path + ".shape.links"
    var vertices: [GeoCoordinates] = []
    for (index, link) in try V7IncidentWire.shapeLinks(of: location, at: path).enumerated() {
      for (pointIndex, vertex) in link.enumerated() {
        if pointIndex == 0, index > 0, vertices.last == vertex { continue }
        vertices.append(vertex)
      }
    }
    do {
      return try GeoPolyline(vertices: vertices)
    } catch {
      throw JSONFieldError(path: linksPath, reason: "a flow needs at least two points: \(error)")
    }
  }
}

/// A decoded v7 flow response.
public struct V7FlowResponse: Sendable {
  /// When the flow data was last updated (`sourceUpdated`), if the response says.
  public var sourceUpdated: Date?
  /// The flows that could be read, in response order.
  public var flows: [TrafficFlow]
  /// Results that were skipped, each with its JSON path and the reason.
  public var problems: [V7WireError]

  /// Creates a response.
  public init(sourceUpdated: Date?, flows: [TrafficFlow], problems: [V7WireError] = []) {
    self.sourceUpdated = sourceUpdated
    self.flows = flows
    self.problems = problems
  }
}
