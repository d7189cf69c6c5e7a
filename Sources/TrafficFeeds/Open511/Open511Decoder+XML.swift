import Foundation
import Traffic

extension Open511Decoder {
  /// Decodes Open511 XML: `<open511><events><event>...` or a bare draft `RoadEvent`.
  static func decodeXML(
    _ input: FeedInput, options: FeedOptions
  ) throws(FeedError) -> FeedDocument {
    var document = FeedDocument(isFullRefresh: true)
    var rootName: String?
    var documentLanguage: String?
    try XMLRecordReader(format: format).read(
      input,
      isRecord: { ancestors, name, _ in
        (name == "event" && ancestors.last == "events") || name == "RoadEvent"
      },
      opening: { ancestors, node in
        if ancestors.isEmpty {
          rootName = node.name
          documentLanguage = node.attributes["lang"]
        }
      },
      record: { node, number, _ in
        do throws(RecordProblem) {
          let event = try xmlEvent(node, documentLanguage: documentLanguage, options: options)
          document.incidents.append(try event.incident(options: options))
        } catch {
          let id = node.childValue("id")
          document.problems.append(
            FeedError(
              format: format,
              location:
                "\(node.name)[\(number)]\(id.map { " id=\($0)" } ?? "") (line \(node.line))",
              reason: error.reason, recordId: id))
        }
      })
    guard rootName == "open511" || rootName == "RoadEvent" else {
      throw FeedError(
        format: format, location: "line 1",
        reason: "not an Open511 document: the root element is <\(rootName ?? "")>, not <open511>")
    }
    return document
  }

  /// An Open511 v1 `event` or a 2012 draft `RoadEvent` element.
  static func xmlEvent(
    _ node: XMLNode, documentLanguage: String?, options: FeedOptions
  ) throws(RecordProblem) -> Open511Event {
    let eventLanguage = node.attributes["lang"] ?? documentLanguage
    func texts(_ names: [String]) -> [LocalizedText] {
      names.flatMap { name in
        node.children(name).compactMap { child in
          child.value.map {
            LocalizedText(
              text: $0,
              language: language(
                child.attributes["lang"] ?? eventLanguage, fallback: options.defaultLanguage))
          }
        }
      }
    }
    var event = Open511Event()
    event.id = node.childValue("id")
    event.status = node.childValue("status")?.uppercased()
    event.headlines = texts(["headline", "Title"])
    event.descriptions = texts(["description", "Description"])
    event.eventType = node.childValue("event_type")?.uppercased()
    event.subtypes =
      node.child("event_subtypes")?.children("event_subtype")
      .compactMap { $0.value?.uppercased() } ?? []
    event.severity = node.childValue("severity")?.uppercased()
    event.created = node.childValue("created")
    event.updated = node.childValue("updated")
    event.timezone = node.childValue("timezone")
    event.publisherURLs =
      node.children("link").compactMap { $0.attributes["href"] }
      + [node.childValue("jurisdiction_url")].compactMap { $0 }
    for road in node.child("roads")?.children("road") ?? [] {
      func lanes(_ name: String) throws(RecordProblem) -> Int? {
        guard let text = road.childValue(name) else { return nil }
        guard let value = Int(text), (0...1000).contains(value) else {
          throw RecordProblem("road \(name) \"\(text)\" (line \(road.line)) is not a lane count")
        }
        return value
      }
      event.roads.append(
        Open511Event.Road(
          name: road.childValue("name"), from: road.childValue("from"),
          to: road.childValue("to"), direction: road.childValue("direction"),
          state: road.childValue("state")?.uppercased(), lanesClosed: try lanes("lanes_closed"),
          lanesOpen: try lanes("lanes_open")))
    }
    event.areas = node.child("areas")?.children("area").compactMap { $0.childValue("name") } ?? []
    if let schedule = node.child("schedule") {
      event.intervals = schedule.child("intervals")?.children("interval").compactMap(\.value) ?? []
      for entry in schedule.child("recurring_schedules")?.children("recurring_schedule") ?? [] {
        event.recurringSchedules.append(
          Open511Event.RecurringSchedule(
            startDate: entry.childValue("start_date"), endDate: entry.childValue("end_date"),
            dailyStartTime: entry.childValue("daily_start_time"),
            dailyEndTime: entry.childValue("daily_end_time")))
      }
    }
    event.startDate = node.childValue("StartDate")
    event.endDate = node.childValue("EndDate")
    event.locationDescription = node.childValue("AffectedRoads")
    if let geography = node.child("geography") ?? node.child("Geometry") {
      event.polylines = try gmlPolylines(geography, axisOrder: options.axisOrder)
    }
    return event
  }

  /// The polylines of a GML geometry: each `pos` a point, each `posList` a line, each
  /// `coordinates` (`x,y x,y`, longitude first) a line or point.
  static func gmlPolylines(
    _ node: XMLNode, axisOrder: FeedOptions.AxisOrder
  ) throws(RecordProblem) -> [GeoPolyline] {
    let reader = DATEXIILocationReader(axisOrder: axisOrder)
    var result: [GeoPolyline] = []
    var stack = [node]
    var ordered: [XMLNode] = []
    while let next = stack.popLast() {
      if next.name == "pos" || next.name == "posList" || next.name == "coordinates" {
        ordered.append(next)
      } else {
        stack += next.children.reversed()
      }
    }
    for element in ordered {
      if element.name == "coordinates" {
        var vertices: [GeoCoordinates] = []
        for tuple in element.text.split(whereSeparator: { $0 == " " || $0.isNewline }) {
          let numbers = tuple.split(separator: ",").compactMap { Double($0) }
          guard numbers.count >= 2 else {
            throw RecordProblem("gml:coordinates \"\(tuple.prefix(40))\" (line \(element.line))")
          }
          do {
            vertices.append(try GeoCoordinates(latitude: numbers[1], longitude: numbers[0]))
          } catch {
            throw RecordProblem("gml:coordinates (line \(element.line)): \(error.description)")
          }
        }
        if vertices.count == 1 { result.append(GeoPolyline(point: vertices[0])) }
        if vertices.count > 1 { result.append(GeoPolyline(uncheckedVertices: vertices)) }
      } else {
        result.append(
          try reader.polyline(
            posList: element, dimension: element.attributes["srsDimension"], grid: nil))
      }
    }
    return result
  }
}
