import Codec
import Foundation

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
    writer.beginObject()
    writer.member("id", incident.id)
    writer.member("originalId", incident.originalId)
    if let parentId = incident.parentId {
      writer.member("parentId", parentId)
    }
    writer.member("type", incident.type.rawValue)
    writer.member("impact", incident.impact.rawValue)
    writer.key("description")
    write(incident.description, to: &writer)
    writer.key("summary")
    write(incident.summary, to: &writer)
    for (key, date): (StaticString, Date?) in [
      ("startTime", incident.startTime), ("endTime", incident.endTime),
      ("entryTime", incident.entryTime),
    ] {
      guard let date else { continue }
      writer.key(key)
      writer.number(date.timeIntervalSinceReferenceDate)
    }
    writer.member("isRoadClosed", incident.isRoadClosed)
    writer.member("junctionsTraversability", incident.junctionsTraversability.rawValue)
    writer.key("codes")
    writer.array(incident.codes) { code, writer in writer.integer(code) }
    writer.key("location")
    write(incident.location, to: &writer)
    writer.key("vehicleRestrictions")
    writer.beginObject()
    writer.endObject()
    writer.key("details")
    write(incident.details, to: &writer)
    writer.key("sourceTexts")
    writer.array(incident.sourceTexts) { text, writer in write(text, to: &writer) }
    if !incident.sources.isEmpty {
      writer.key("sources")
      writer.array(incident.sources) { source, writer in write(source, to: &writer) }
    }
    writer.endObject()
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
    writer.beginObject()
    writer.member("text", text.text)
    writer.member("language", text.language.identifier)
    writer.endObject()
  }

  private static func write(_ location: TrafficLocation, to writer: inout JSONWriter) {
    writer.beginObject()
    writer.key("polyline")
    write(location.polyline, to: &writer)
    if !location.additionalPolylines.isEmpty {
      writer.key("additionalPolylines")
      writer.array(location.additionalPolylines) { polyline, writer in
        write(polyline, to: &writer)
      }
    }
    writer.member("lengthInMeters", location.lengthInMeters)
    if let description = location.description {
      writer.member("description", description)
    }
    if let openLR = location.openLR {
      writer.member("openLR", openLR)
    }
    writer.endObject()
  }

  private static func write(_ polyline: GeoPolyline, to writer: inout JSONWriter) {
    writer.beginArray()
    for vertex in polyline.vertices {
      writer.beginObject()
      writer.member("lat", vertex.latitude)
      writer.member("lng", vertex.longitude)
      if let altitude = vertex.altitude {
        writer.member("alt", altitude)
      }
      writer.endObject()
    }
    writer.endArray()
  }

  private static func write(_ details: TrafficIncidentDetails, to writer: inout JSONWriter) {
    writer.beginObject()
    writer.memberIfPresent("countryCode", details.countryCode)
    writer.memberIfPresent("area", details.area)
    writer.memberIfPresent("roadName", details.roadName)
    writer.memberIfPresent("roadNumber", details.roadNumber)
    writer.memberIfPresent("towards", details.towards)
    writer.memberIfPresent("fromJunction", details.fromJunction)
    writer.memberIfPresent("toJunction", details.toJunction)
    writer.memberIfPresent("atJunction", details.atJunction)
    writer.memberIfPresent("lanesClosed", details.lanesClosed)
    writer.memberIfPresent("totalLanes", details.totalLanes)
    if let lanes = details.closedLanes {
      writer.key("closedLanes")
      writer.array(lanes) { lane, writer in writer.integer(lane) }
    }
    if details.queueRisk { writer.member("queueRisk", true) }
    writer.memberIfPresent("queueLengthInMeters", details.queueLengthInMeters)
    writer.memberIfPresent("delayInSeconds", details.delayInSeconds)
    writer.memberIfPresent("eventKind", details.eventKind?.rawValue)
    if let cause = details.cause {
      writer.key("cause")
      write(cause, to: &writer)
    }
    writer.memberIfPresent("timeZone", details.timeZone?.identifier)
    writer.endObject()
  }

  private static func write(_ source: TrafficIncidentSource, to writer: inout JSONWriter) {
    writer.beginObject()
    writer.member("feed", source.feed)
    writer.member("id", source.id)
    if let digest = source.reportDigest {
      writer.member("reportDigest", digest)
    }
    if let time = source.reportEntryTime {
      writer.member("reportEntryTime", time.timeIntervalSinceReferenceDate)
    }
    if let version = source.reportVersion {
      writer.member("reportVersion", version)
    }
    writer.endObject()
  }
}

extension JSONWriter {
  /// Appends a JSON array of `items`, each written by `write`.
  fileprivate mutating func array<Items: Collection>(
    _ items: Items, _ write: (Items.Element, inout JSONWriter) -> Void
  ) {
    beginArray()
    for item in items { write(item, &self) }
    endArray()
  }
}
