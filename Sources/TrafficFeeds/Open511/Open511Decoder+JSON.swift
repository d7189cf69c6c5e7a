import Foundation
import Traffic

extension Open511Decoder {
  /// Decodes Open511 JSON: `{"events": [...]}` or a list of open511-server records.
  static func decodeJSON(
    _ input: FeedInput, options: FeedOptions
  ) throws(FeedError) -> FeedDocument {
    var data = Data()
    do {
      let chunks = try FeedChunks(input)
      while let chunk = try chunks.next() { data.append(chunk) }
    } catch {
      throw FeedError(format: format, reason: error.description)
    }
    let root: Any
    do {
      root = try JSONSerialization.jsonObject(with: data, options: [])
    } catch {
      let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
      throw FeedError(
        format: format, location: "JSON text",
        reason: "malformed JSON: \(detail ?? error.localizedDescription)")
    }
    var document = FeedDocument(isFullRefresh: true)
    let records: [Any]
    let path: String
    if let object = root as? [String: Any] {
      guard let events = object["events"] else {
        throw FeedError(
          format: format, location: "$",
          reason: "not an Open511 document: the object has no \"events\" member")
      }
      guard let list = events as? [Any] else {
        throw FeedError(format: format, location: "events", reason: "expected an array")
      }
      records = list
      path = "events"
    } else if let list = root as? [Any] {
      records = list
      path = ""
    } else {
      throw FeedError(format: format, location: "$", reason: "expected an object or an array")
    }
    for (index, record) in records.enumerated() {
      let place = "\(path)[\(index)]"
      do throws(RecordProblem) {
        guard let object = record as? [String: Any] else {
          throw RecordProblem("expected an object")
        }
        let event: Open511Event
        if let fields = object["fields"] as? [String: Any] {
          event = try serverRecord(fields, options: options)
        } else {
          event = try jsonEvent(object, options: options)
        }
        document.incidents.append(try event.incident(options: options))
      } catch {
        let id = (record as? [String: Any])?["id"].flatMap(Self.string)
        document.problems.append(
          FeedError(
            format: format, location: id.map { "\(place) id=\($0)" } ?? place,
            reason: error.reason))
      }
    }
    return document
  }

  /// A string, or a number written as one.
  static func string(_ value: Any) -> String? {
    if let text = value as? String {
      let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
      return trimmed.isEmpty ? nil : trimmed
    }
    if let number = value as? NSNumber, !isBoolean(number) { return number.stringValue }
    return nil
  }

  /// Whether a JSON number is really `true` or `false` (on Linux `1 is Bool` holds, so the
  /// number's type code decides).
  static func isBoolean(_ number: NSNumber) -> Bool {
    String(cString: number.objCType) == "c"
  }

  /// The string member `key`; `nil` when absent or null.
  static func string(
    _ object: [String: Any], _ key: String
  ) throws(RecordProblem) -> String? {
    guard let value = object[key], !(value is NSNull) else { return nil }
    guard let text = string(value) else { throw RecordProblem("\(key): expected a string") }
    return text
  }

  /// The array member `key`; empty when absent or null.
  static func array(_ object: [String: Any], _ key: String) throws(RecordProblem) -> [Any] {
    guard let value = object[key], !(value is NSNull) else { return [] }
    guard let list = value as? [Any] else { throw RecordProblem("\(key): expected an array") }
    return list
  }

  /// A non-negative integer member, tolerating strings.
  static func count(_ object: [String: Any], _ key: String) throws(RecordProblem) -> Int? {
    guard let value = object[key], !(value is NSNull) else { return nil }
    if let number = value as? NSNumber, !isBoolean(number) {
      let double = number.doubleValue
      guard double.isFinite, double >= 0, double <= 1000, double == double.rounded() else {
        throw RecordProblem("\(key): \(number) is not a lane count")
      }
      return Int(double)
    }
    if let text = value as? String, let count = Int(text), (0...1000).contains(count) {
      return count
    }
    throw RecordProblem("\(key): expected a lane count")
  }

  /// An Open511 v1 JSON event.
  static func jsonEvent(
    _ object: [String: Any], options: FeedOptions
  ) throws(RecordProblem) -> Open511Event {
    var event = Open511Event()
    event.id = try string(object, "id")
    event.status = try string(object, "status")
    let language = Open511Decoder.language(
      try string(object, "lang"), fallback: options.defaultLanguage)
    if let headline = try string(object, "headline") {
      event.headlines = [LocalizedText(text: headline, language: language)]
    }
    if let description = try string(object, "description") {
      event.descriptions = [LocalizedText(text: description, language: language)]
    }
    event.eventType = try string(object, "event_type")?.uppercased()
    event.subtypes = try array(object, "event_subtypes").compactMap { string($0)?.uppercased() }
    event.severity = try string(object, "severity")?.uppercased()
    event.created = try string(object, "created")
    event.updated = try string(object, "updated")
    event.timezone = try string(object, "timezone")
    for (index, item) in try array(object, "roads").enumerated() {
      guard let road = item as? [String: Any] else {
        throw RecordProblem("roads[\(index)]: expected an object")
      }
      event.roads.append(
        Open511Event.Road(
          name: try string(road, "name"), from: try string(road, "from"),
          to: try string(road, "to"), direction: try string(road, "direction"),
          state: try string(road, "state")?.uppercased(),
          lanesClosed: try count(road, "lanes_closed"),
          lanesOpen: try count(road, "lanes_open")))
    }
    event.areas = try array(object, "areas").compactMap { area in
      (area as? [String: Any]).flatMap { $0["name"] }.flatMap(string) ?? string(area)
    }
    if let geography = object["geography"], !(geography is NSNull) {
      event.polylines = try polylines(fromGeography: geography, key: "geography")
    }
    var schedules: [[String: Any]] = []
    if let schedule = object["schedule"] as? [String: Any] { schedules.append(schedule) }
    for item in try array(object, "schedules") {
      if let schedule = item as? [String: Any] { schedules.append(schedule) }
    }
    for schedule in schedules {
      event.intervals += try array(schedule, "intervals").compactMap(string)
      var recurring = try array(schedule, "recurring_schedules")
      if schedule["start_date"] != nil { recurring.append(schedule) }
      for item in recurring {
        guard let entry = item as? [String: Any] else {
          throw RecordProblem("recurring_schedules: expected objects")
        }
        event.recurringSchedules.append(
          Open511Event.RecurringSchedule(
            startDate: try string(entry, "start_date"), endDate: try string(entry, "end_date"),
            dailyStartTime: try string(entry, "daily_start_time"),
            dailyEndTime: try string(entry, "daily_end_time")))
      }
    }
    return event
  }

  /// A GeoJSON object or a WKT string.
  static func polylines(
    fromGeography value: Any, key: String
  ) throws(RecordProblem)
    -> [GeoPolyline]
  {
    do {
      if let text = value as? String { return try WKT.parse(text).polylines }
      return try GeoJSON.decodeGeometry(fromJSONObject: value).polylines
    } catch {
      throw RecordProblem("\(key): \(error.description)")
    }
  }

  /// An open511-server fixture record: `fields.xml_data` (draft `RoadEvent` XML),
  /// `fields.geom` (WKT), `fields.id`, `fields.jurisdiction`.
  static func serverRecord(
    _ fields: [String: Any], options: FeedOptions
  ) throws(RecordProblem) -> Open511Event {
    guard let xml = try string(fields, "xml_data") else {
      throw RecordProblem("fields.xml_data: missing")
    }
    var event = Open511Event()
    var problem: RecordProblem?
    do {
      try XMLRecordReader(format: format).read(
        Data(xml.utf8), isRecord: { ancestors, _, _ in ancestors.isEmpty },
        record: { node, _, _ in
          do throws(RecordProblem) {
            event = try xmlEvent(node, documentLanguage: nil, options: options)
          } catch {
            problem = error
          }
        })
    } catch {
      throw RecordProblem("fields.xml_data: \(error.location ?? ""): \(error.reason)")
    }
    if let problem { throw problem }
    if let id = try string(fields, "id") {
      event.id = try string(fields, "jurisdiction").map { "\($0)/\(id)" } ?? id
    }
    if let geom = fields["geom"], !(geom is NSNull) {
      event.polylines = try polylines(fromGeography: geom, key: "fields.geom")
    }
    return event
  }
}
