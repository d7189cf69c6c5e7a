import Codec
import Foundation
import Traffic

extension Open511Decoder {
  /// Decodes Open511 JSON: `{"events": [...]}` or a list of open511-server records.
  ///
  /// The document is streamed: each element of `events` (or of a top-level list) is decoded
  /// by `decodeEvent(_:at:options:)` as it is read, and its failure becomes a problem by
  /// `problem(_:in:at:)`.
  static func decodeJSON(
    _ input: FeedInput, options: FeedOptions
  ) throws(FeedError) -> FeedDocument {
    var document = FeedDocument(isFullRefresh: true)
    let root = try JSONFeed.read(input, format: format, streaming: ["events", ""]) {
      member, index, event in
      let place = member.isEmpty ? "[\(index)]" : "\(member)[\(index)]"
      do throws(JSONFieldError) {
        document.incidents.append(try decodeEvent(event, at: place, options: options))
      } catch {
        document.problems.append(problem(error, in: event, at: place))
      }
    }
    // The streamed list is left in the root as an empty array; this checks it was there.
    _ = try eventList(of: root)
    return document
  }

  /// The list of events of a document and its JSON path: the `events` member of an object,
  /// or the document itself when it is a list (the open511-server fixture form, path `""`).
  ///
  /// - Throws: `FeedError` when the document is neither.
  static func eventList(of root: JSONValue) throws(FeedError) -> ([JSONValue], String) {
    switch root {
    case .object(let members):
      guard let events = members["events"] else {
        throw FeedError(
          format: format, location: "$",
          reason: "not an Open511 document: the object has no \"events\" member")
      }
      guard let list = events.array else {
        throw FeedError(format: format, location: "events", reason: "expected an array")
      }
      return (list, "events")
    case .array(let list):
      return (list, "")
    default:
      throw FeedError(format: format, location: "$", reason: "expected an object or an array")
    }
  }

  /// Decodes one event of a JSON document: an Open511 v1 event, or an open511-server record
  /// (`fields.xml_data` with a draft `RoadEvent`, `fields.geom` in WKT).
  ///
  /// - Parameters:
  ///   - event: The event's JSON value.
  ///   - path: Its JSON path (`events[3]`), from which error paths are built.
  ///   - options: Default language and country, axis order, the current time.
  /// - Returns: The incident.
  /// - Throws: `JSONFieldError` with the path of the member at fault
  ///   (`events[3].roads[0].lanes_closed`), or the event's path when the event as a whole
  ///   cannot be used (no geography, a schedule ending before it starts).
  /// - Complexity: O(n) in the size of the event.
  static func decodeEvent(
    _ event: JSONValue, at path: String, options: FeedOptions
  ) throws(JSONFieldError) -> TrafficIncident {
    guard case .object(let members) = event else {
      throw JSONFieldError(path: path, reason: "expected an object")
    }
    let parsed: Open511Event
    if let fields = members["fields"], fields.object != nil {
      parsed = try serverRecord(fields, at: path + ".fields", options: options)
    } else {
      parsed = try jsonEvent(event, at: path, options: options)
    }
    do {
      return try parsed.incident(options: options)
    } catch {
      throw JSONFieldError(path: path, reason: error.reason)
    }
  }

  /// The problem reported for an event that could not be decoded: placed at the event with
  /// its id (`events[3] id=drivebc.ca/DBC-103`), the rest of the path in the reason
  /// (`roads: expected an array`).
  ///
  /// - Parameters:
  ///   - error: What `decodeEvent(_:at:options:)` threw.
  ///   - event: The event's JSON value.
  ///   - path: The event's path, as given to `decodeEvent`.
  /// - Returns: The feed error.
  static func problem(_ error: JSONFieldError, in event: JSONValue, at path: String) -> FeedError {
    var reason = error.reason
    if error.path.hasPrefix(path), error.path.count > path.count {
      var inner = error.path.dropFirst(path.count)
      if inner.first == "." { inner = inner.dropFirst() }
      reason = "\(inner): \(reason)"
    } else if error.path != path {
      reason = error.description
    }
    let id = event["id"].flatMap(loose)
    return FeedError(
      format: format, location: id.map { "\(path) id=\($0)" } ?? path, reason: reason,
      recordId: id)
  }

  // MARK: Members

  /// A string, or a number as written (ids are written either way); `nil` for anything
  /// else and for empty or blank strings.
  static func loose(_ value: JSONValue) -> String? {
    switch value {
    case .string(let text):
      let trimmed = text.trimmingWhitespaceAndNewlines
      return trimmed.isEmpty ? nil : trimmed
    case .number(let text):
      return text
    default:
      return nil
    }
  }

  /// The string member `key` (a number is taken as written); `nil` when absent, null or
  /// blank.
  ///
  /// - Throws: `JSONFieldError` at `path.key` for another kind of value.
  static func text(
    _ object: JSONValue, _ key: String, at path: String
  ) throws(JSONFieldError) -> String? {
    guard let value = object[key], !value.isNull else { return nil }
    if case .string = value { return loose(value) }
    guard let text = loose(value) else {
      throw JSONFieldError(path: "\(path).\(key)", reason: "expected a string")
    }
    return text
  }

  /// The array member `key`; empty when absent or null.
  ///
  /// - Throws: `JSONFieldError` at `path.key` for another kind of value.
  static func list(
    _ object: JSONValue, _ key: String, at path: String
  ) throws(JSONFieldError) -> [JSONValue] {
    guard let value = object[key], !value.isNull else { return [] }
    guard let elements = value.array else {
      throw JSONFieldError(path: "\(path).\(key)", reason: "expected an array")
    }
    return elements
  }

  /// A lane count member (0 to 1000), tolerating strings.
  ///
  /// - Throws: `JSONFieldError` at `path.key` for anything else.
  static func laneCount(
    _ object: JSONValue, _ key: String, at path: String
  ) throws(JSONFieldError) -> Int? {
    guard let value = object[key], !value.isNull else { return nil }
    switch value {
    case .number(let text):
      guard let count = value.int, (0...1000).contains(count) else {
        throw JSONFieldError(path: "\(path).\(key)", reason: "\(text) is not a lane count")
      }
      return count
    case .string(let text):
      if let count = Int(text), (0...1000).contains(count) { return count }
    default:
      break
    }
    throw JSONFieldError(path: "\(path).\(key)", reason: "expected a lane count")
  }

  // MARK: Event forms

  /// The fields of an Open511 v1 JSON event.
  static func jsonEvent(
    _ object: JSONValue, at path: String, options: FeedOptions
  ) throws(JSONFieldError) -> Open511Event {
    var event = Open511Event()
    event.id = try text(object, "id", at: path)
    event.status = try text(object, "status", at: path)?.uppercased()
    let language = Open511Decoder.language(
      try text(object, "lang", at: path), fallback: options.defaultLanguage)
    if let headline = try text(object, "headline", at: path) {
      event.headlines = [LocalizedText(text: headline, language: language)]
    }
    if let description = try text(object, "description", at: path) {
      event.descriptions = [LocalizedText(text: description, language: language)]
    }
    event.eventType = try text(object, "event_type", at: path)?.uppercased()
    event.subtypes = try list(object, "event_subtypes", at: path).compactMap {
      loose($0)?.uppercased()
    }
    event.severity = try text(object, "severity", at: path)?.uppercased()
    event.created = try text(object, "created", at: path)
    event.updated = try text(object, "updated", at: path)
    event.timezone = try text(object, "timezone", at: path)
    event.publisherURLs = [object["url"], object["jurisdiction_url"]].compactMap {
      $0.flatMap(loose)
    }
    for (index, road) in try list(object, "roads", at: path).enumerated() {
      let roadPath = "\(path).roads[\(index)]"
      guard road.object != nil else {
        throw JSONFieldError(path: roadPath, reason: "expected an object")
      }
      event.roads.append(
        Open511Event.Road(
          name: try text(road, "name", at: roadPath), from: try text(road, "from", at: roadPath),
          to: try text(road, "to", at: roadPath),
          direction: try text(road, "direction", at: roadPath),
          state: try text(road, "state", at: roadPath)?.uppercased(),
          lanesClosed: try laneCount(road, "lanes_closed", at: roadPath),
          lanesOpen: try laneCount(road, "lanes_open", at: roadPath)))
    }
    event.areas = try list(object, "areas", at: path).compactMap { area in
      area["name"].flatMap(loose) ?? loose(area)
    }
    if let geography = object["geography"], !geography.isNull {
      event.polylines = try polylines(fromGeography: geography, at: path + ".geography")
    }
    var schedules: [(JSONValue, String)] = []
    if let schedule = object["schedule"], schedule.object != nil {
      schedules.append((schedule, path + ".schedule"))
    }
    for (index, schedule) in try list(object, "schedules", at: path).enumerated()
    where schedule.object != nil {
      schedules.append((schedule, "\(path).schedules[\(index)]"))
    }
    for (schedule, schedulePath) in schedules {
      event.intervals += try list(schedule, "intervals", at: schedulePath).compactMap(loose)
      var recurring: [(JSONValue, String)] = try list(
        schedule, "recurring_schedules", at: schedulePath
      ).enumerated().map { ($1, "\(schedulePath).recurring_schedules[\($0)]") }
      if schedule["start_date"] != nil { recurring.append((schedule, schedulePath)) }
      for (entry, entryPath) in recurring {
        guard entry.object != nil else {
          throw JSONFieldError(path: entryPath, reason: "expected an object")
        }
        event.recurringSchedules.append(
          Open511Event.RecurringSchedule(
            startDate: try text(entry, "start_date", at: entryPath),
            endDate: try text(entry, "end_date", at: entryPath),
            dailyStartTime: try text(entry, "daily_start_time", at: entryPath),
            dailyEndTime: try text(entry, "daily_end_time", at: entryPath)))
      }
    }
    return event
  }

  /// The polylines of a geography: a GeoJSON geometry object or a WKT string.
  ///
  /// - Throws: `JSONFieldError` naming the member or position at fault.
  static func polylines(
    fromGeography value: JSONValue, at path: String
  ) throws(JSONFieldError) -> [GeoPolyline] {
    guard let wkt = value.string else { return try value.geoJSONPolylines(at: path) }
    do {
      return try WKT.parse(wkt).polylines
    } catch {
      throw JSONFieldError(path: path, reason: error.description)
    }
  }

  /// The fields of an open511-server fixture record: `fields.xml_data` (a 2012 draft
  /// `RoadEvent` in XML), `fields.geom` (WKT), `fields.id`, `fields.jurisdiction`.
  static func serverRecord(
    _ fields: JSONValue, at path: String, options: FeedOptions
  ) throws(JSONFieldError) -> Open511Event {
    guard let xml = try text(fields, "xml_data", at: path) else {
      throw JSONFieldError(path: path + ".xml_data", reason: "missing")
    }
    var event = Open511Event()
    var problem: RecordProblem?
    do {
      try XMLRecordReader(format: format).read(
        .data(Data(xml.utf8)), isRecord: { ancestors, _, _ in ancestors.isEmpty },
        record: { node, _, _ in
          do throws(RecordProblem) {
            event = try xmlEvent(node, documentLanguage: nil, options: options)
          } catch {
            problem = error
          }
        })
    } catch {
      throw JSONFieldError(
        path: path + ".xml_data", reason: "\(error.location ?? ""): \(error.reason)")
    }
    if let problem { throw JSONFieldError(path: path + ".xml_data", reason: problem.reason) }
    if let id = try text(fields, "id", at: path) {
      event.id = try text(fields, "jurisdiction", at: path).map { "\($0)/\(id)" } ?? id
    }
    if let geom = fields["geom"], !geom.isNull {
      event.polylines = try polylines(fromGeography: geom, at: path + ".geom")
    }
    return event
  }
}
