import Foundation
import Toolbox

/// A fast writer of the stored incident body: the JSON of `TrafficIncident`'s `Codable`
/// form (the members `encode(to:)` writes, dates as `JSONEncoder`'s default seconds since
/// 2001), written straight into bytes without the generic containers of `JSONEncoder`,
/// which took a sixth of a pushed document's time.
///
/// It writes what `StoredIncidentReader` reads. An incident with TMC references or vehicle
/// restrictions (rare), or with a number JSON cannot carry, is left to `JSONEncoder` (`nil`),
/// which writes it or names the error. Tests read every body back with `JSONDecoder` and
/// with the fast reader.
enum StoredIncidentWriter {
  /// The body of `incident`, or `nil` when `JSONEncoder` must write it.
  static func body(of incident: TrafficIncident) -> Data? {
    guard incident.location.tmc.isEmpty, incident.vehicleRestrictions.isEmpty,
      isFinite(incident)
    else { return nil }
    var writer = JSONWriter(capacity: 1_024)
    writer.raw("{")
    writer.key("id")
    writer.string(incident.id)
    writer.nextKey("originalId")
    writer.string(incident.originalId)
    if let parentId = incident.parentId {
      writer.nextKey("parentId")
      writer.string(parentId)
    }
    writer.nextKey("type")
    writer.string(incident.type.rawValue)
    writer.nextKey("impact")
    writer.string(incident.impact.rawValue)
    writer.nextKey("description")
    write(incident.description, to: &writer)
    writer.nextKey("summary")
    write(incident.summary, to: &writer)
    for (key, date): (StaticString, Date?) in [
      ("startTime", incident.startTime), ("endTime", incident.endTime),
      ("entryTime", incident.entryTime),
    ] {
      guard let date else { continue }
      writer.nextKey(key)
      writer.number(date.timeIntervalSinceReferenceDate)
    }
    writer.nextKey("isRoadClosed")
    writer.bool(incident.isRoadClosed)
    writer.nextKey("junctionsTraversability")
    writer.string(incident.junctionsTraversability.rawValue)
    writer.nextKey("codes")
    writer.array(incident.codes) { code, writer in writer.integer(code) }
    writer.nextKey("location")
    write(incident.location, to: &writer)
    writer.nextKey("vehicleRestrictions")
    writer.raw("{}")
    writer.nextKey("details")
    write(incident.details, to: &writer)
    writer.nextKey("sourceTexts")
    writer.array(incident.sourceTexts) { text, writer in write(text, to: &writer) }
    if !incident.sources.isEmpty {
      writer.nextKey("sources")
      writer.array(incident.sources) { source, writer in write(source, to: &writer) }
    }
    writer.raw("}")
    return Data(writer.bytes)
  }

  /// Whether every number of the incident is finite (`JSONEncoder` refuses the others).
  private static func isFinite(_ incident: TrafficIncident) -> Bool {
    let dates =
      [incident.startTime, incident.endTime, incident.entryTime]
      + incident.sources.map(\.reportEntryTime)
    return dates.allSatisfy { $0?.timeIntervalSinceReferenceDate.isFinite ?? true }
      && incident.location.lengthInMeters.isFinite
      && (incident.details.queueLengthInMeters?.isFinite ?? true)
      && (incident.details.delayInSeconds?.isFinite ?? true)
  }

  private static func write(_ text: LocalizedText, to writer: inout JSONWriter) {
    writer.raw("{")
    writer.key("text")
    writer.string(text.text)
    writer.nextKey("language")
    writer.string(text.language.identifier)
    writer.raw("}")
  }

  private static func write(_ location: TrafficLocation, to writer: inout JSONWriter) {
    writer.raw("{")
    writer.key("polyline")
    write(location.polyline, to: &writer)
    if !location.additionalPolylines.isEmpty {
      writer.nextKey("additionalPolylines")
      writer.array(location.additionalPolylines) { polyline, writer in
        write(polyline, to: &writer)
      }
    }
    writer.nextKey("lengthInMeters")
    writer.number(location.lengthInMeters)
    if let description = location.description {
      writer.nextKey("description")
      writer.string(description)
    }
    if let openLR = location.openLR {
      writer.nextKey("openLR")
      writer.string(openLR)
    }
    writer.raw("}")
  }

  private static func write(_ polyline: GeoPolyline, to writer: inout JSONWriter) {
    writer.raw("[")
    for (index, vertex) in polyline.vertices.enumerated() {
      writer.raw(index > 0 ? ",{" : "{")
      writer.key("lat")
      writer.number(vertex.latitude)
      writer.nextKey("lng")
      writer.number(vertex.longitude)
      if let altitude = vertex.altitude {
        writer.nextKey("alt")
        writer.number(altitude)
      }
      writer.raw("}")
    }
    writer.raw("]")
  }

  private static func write(_ details: TrafficIncidentDetails, to writer: inout JSONWriter) {
    writer.raw("{")
    var first = true
    func key(_ name: StaticString) {
      if first { writer.key(name) } else { writer.nextKey(name) }
      first = false
    }
    let strings: [(StaticString, String?)] = [
      ("countryCode", details.countryCode), ("area", details.area),
      ("roadName", details.roadName), ("roadNumber", details.roadNumber),
      ("towards", details.towards), ("fromJunction", details.fromJunction),
      ("toJunction", details.toJunction), ("atJunction", details.atJunction),
    ]
    for (name, value) in strings {
      guard let value else { continue }
      key(name)
      writer.string(value)
    }
    if let lanesClosed = details.lanesClosed {
      key("lanesClosed")
      writer.integer(lanesClosed)
    }
    if let totalLanes = details.totalLanes {
      key("totalLanes")
      writer.integer(totalLanes)
    }
    if details.queueRisk {
      key("queueRisk")
      writer.bool(true)
    }
    if let queueLength = details.queueLengthInMeters {
      key("queueLengthInMeters")
      writer.number(queueLength)
    }
    if let delay = details.delayInSeconds {
      key("delayInSeconds")
      writer.number(delay)
    }
    if let eventKind = details.eventKind {
      key("eventKind")
      writer.string(eventKind.rawValue)
    }
    if let cause = details.cause {
      key("cause")
      write(cause, to: &writer)
    }
    if let timeZone = details.timeZone {
      key("timeZone")
      writer.string(timeZone.identifier)
    }
    writer.raw("}")
  }

  private static func write(_ source: TrafficIncidentSource, to writer: inout JSONWriter) {
    writer.raw("{")
    writer.key("feed")
    writer.string(source.feed)
    writer.nextKey("id")
    writer.string(source.id)
    if let digest = source.reportDigest {
      writer.nextKey("reportDigest")
      writer.string(digest)
    }
    if let time = source.reportEntryTime {
      writer.nextKey("reportEntryTime")
      writer.number(time.timeIntervalSinceReferenceDate)
    }
    writer.raw("}")
  }
}

extension JSONWriter {
  /// Appends a JSON array of `items`, each written by `write`.
  fileprivate mutating func array<Items: Collection>(
    _ items: Items, _ write: (Items.Element, inout JSONWriter) -> Void
  ) {
    raw("[")
    for (index, item) in items.enumerated() {
      if index > 0 { raw(",") }
      write(item, &self)
    }
    raw("]")
  }

  /// Appends `,"key":` — a member after the first.
  fileprivate mutating func nextKey(_ name: StaticString) {
    raw(",")
    key(name)
  }
}
