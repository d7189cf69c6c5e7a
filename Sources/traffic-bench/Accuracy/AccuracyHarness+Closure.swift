import Foundation
import Roads
import Traffic

/// The lane-closed day: where the lane closes, and the incident that publishes it.
extension AccuracyHarness {
  /// The lane to close on the lane-closure day: the rightmost lane open to cars of the edge
  /// with two or more such lanes that most vehicles entered on a usual day, from 07:00 to
  /// 08:00. (Until 2026-12-06 it was SUMO's lane 0 of an edge of two or more lanes of any
  /// kind: on Berlin a footway beside one car lane, so nothing closed for cars.)
  static func closureSite(
    roads: RoadNetwork, day: SimulatedDay, carLanes: [String: [Int]]
  ) throws -> LaneClosure {
    var entered: [String: Int] = [:]
    for interval in day.edgeData {
      for (edge, values) in interval where (carLanes[edge]?.count ?? 0) >= 2 {
        entered[edge, default: 0] += values.entered
      }
    }
    guard let busiest = entered.max(by: { ($0.value, $1.key) < ($1.value, $0.key) }),
      let lanes = carLanes[busiest.key], let rightmost = lanes.first
    else {
      throw AccuracyError("no edge of two or more lanes open to cars carried traffic")
    }
    // Published as a road authority's feed says it: the rightmost of the edge's lanes open
    // to cars, counted from the left (the harness's networks keep right).
    return LaneClosure(
      edge: busiest.key, lane: rightmost, from: 1_800, until: 5_400,
      announced: (lanes.count, lanes.count))
  }

  /// The lanes open to cars (admitting `passenger`) of each edge of a SUMO network file, by
  /// SUMO's index (0: the rightmost), ascending.
  static func carLanes(in file: URL) throws -> [String: [Int]] {
    let data = try Data(contentsOf: file)
    guard data.first != 0x1F else {
      throw AccuracyError("\(file.lastPathComponent) is compressed; the harness reads plain XML")
    }
    var lanes: [String: [Int]] = [:]
    for line in String(decoding: data, as: UTF8.self).split(separator: "\n")
    where line.contains("<lane id=\"") {
      guard let id = AccuracySimulator.attribute("id", in: line), !id.hasPrefix(":"),
        let index = AccuracySimulator.attribute("index", in: line).flatMap(Int.init),
        id.hasSuffix("_\(index)")
      else { continue }
      func classes(_ name: String) -> [Substring]? {
        AccuracySimulator.attribute(name, in: line).map { $0.split(separator: " ") }
      }
      let open =
        classes("allow").map { $0.contains("passenger") || $0.contains("all") }
        ?? !(classes("disallow").map { $0.contains("passenger") || $0.contains("all") } ?? false)
      if open { lanes[String(id.dropLast("_\(index)".count)), default: []].append(index) }
    }
    return lanes.mapValues { $0.sorted() }
  }

  /// The lane closure of `day` as a road authority's feed publishes it (a WZDx or DATEX II
  /// roadworks record: the road, which lane, from when to when), `nil` without one.
  static func closureIncident(
    _ day: AccuracyDay, roads: RoadNetwork, segments: [String: Int]
  ) throws -> TrafficIncident? {
    guard let closure = day.closure,
      let segment = segments[closure.edge]
    else { return nil }
    return try TrafficIncident(
      id: "lane closure \(closure.edge)", type: .laneRestriction, impact: .major,
      startTime: day.start + closure.from, endTime: day.start + closure.until,
      location: TrafficLocation(polyline: roads.segments[segment].geometry),
      details: TrafficIncidentDetails(
        lanesClosed: 1, totalLanes: closure.announced.lanes,
        closedLanes: [closure.announced.place]))
  }
}
