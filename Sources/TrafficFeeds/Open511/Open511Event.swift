import Foundation
import Roads
import Traffic

/// The fields of one Open511 road event as read from JSON or XML, before they are checked and
/// mapped to a `TrafficIncident` (see `Open511Decoder` for the mapping).
struct Open511Event {
  /// One entry of `roads`.
  struct Road {
    var name: String?
    var from: String?
    var to: String?
    var direction: String?
    var state: String?
    var lanesClosed: Int?
    var lanesOpen: Int?
  }

  /// One entry of `recurring_schedules`; dates `yyyy-mm-dd`, times `hh:mm`, local time.
  struct RecurringSchedule {
    var startDate: String?
    var endDate: String?
    var dailyStartTime: String?
    var dailyEndTime: String?
  }

  var id: String?
  var status: String?
  var headlines: [LocalizedText] = []
  var descriptions: [LocalizedText] = []
  var eventType: String?
  var subtypes: [String] = []
  var severity: String?
  var created: String?
  var updated: String?
  var timezone: String?
  /// The event's own `url` and its `jurisdiction_url` (XML: `link` `href`s), which name the
  /// publisher.
  var publisherURLs: [String] = []
  var roads: [Road] = []
  var areas: [String] = []
  var polylines: [GeoPolyline] = []
  var intervals: [String] = []
  var recurringSchedules: [RecurringSchedule] = []
  /// Start and end dates of the 2012 draft schema (`StartDate`, `EndDate`).
  var startDate: String?
  var endDate: String?
  /// A text naming the affected place (`AffectedRoads` in the draft schema).
  var locationDescription: String?

  /// The incident this event describes.
  ///
  /// - Throws: `RecordProblem` for a missing id or geometry, a date that does not parse, an
  ///   end before the start.
  func incident(options: FeedOptions) throws(RecordProblem) -> TrafficIncident {
    guard let id, !id.isEmpty else { throw RecordProblem("the event has no id") }
    guard let main = polylines.first else {
      throw RecordProblem("the event has no geography")
    }
    let zone = timezone.flatMap(TimeZone.init(identifier:))
    let fallbackOffset = (updated ?? created).flatMap(FeedDates.utcOffsetInSeconds)
    func local(_ text: String, field: String) throws(RecordProblem) -> Date {
      guard let date = Self.parseLocal(text, zone: zone, fallbackOffset: fallbackOffset) else {
        throw RecordProblem("\(field) \"\(text)\" is not an ISO 8601 date-time")
      }
      return date
    }
    let createdTime = try created.map { (text) throws(RecordProblem) in
      try local(text, field: "created")
    }
    let updatedTime = try updated.map { (text) throws(RecordProblem) in
      try local(text, field: "updated")
    }

    // DriveBC (British Columbia, api.open511.gov.bc.ca) writes its intervals in UTC, not
    // local time: an event created at 16:08:02-07:00 has the interval "23:08/".
    let intervalsInUTC = publisherURLs.contains { $0.contains("://api.open511.gov.bc.ca/") }
    func intervalTime(_ text: String, field: String) throws(RecordProblem) -> Date {
      guard intervalsInUTC else { return try local(text, field: field) }
      guard let date = Self.parseLocal(text, zone: nil, fallbackOffset: 0) else {
        throw RecordProblem("\(field) \"\(text)\" is not an ISO 8601 date-time")
      }
      return date
    }
    var starts: [Date] = []
    var ends: [Date] = []
    var isOpenEnded = false
    for interval in intervals {
      let parts = interval.split(separator: "/", omittingEmptySubsequences: false)
      guard parts.count == 2, !parts[0].isEmpty else {
        throw RecordProblem("schedule interval \"\(interval)\" is not \"start/end\"")
      }
      starts.append(try intervalTime(String(parts[0]), field: "schedule interval start"))
      if parts[1].trimmingCharacters(in: .whitespaces).isEmpty {
        isOpenEnded = true
      } else {
        ends.append(try intervalTime(String(parts[1]), field: "schedule interval end"))
      }
    }
    for schedule in recurringSchedules {
      guard let startDate = schedule.startDate else {
        throw RecordProblem("a recurring schedule has no start_date")
      }
      let startTime = schedule.dailyStartTime ?? "00:00"
      starts.append(try local("\(startDate)T\(startTime)", field: "recurring schedule start"))
      guard let endDate = schedule.endDate else {
        isOpenEnded = true
        continue
      }
      var end = try local(
        "\(endDate)T\(schedule.dailyEndTime ?? "00:00")", field: "recurring schedule end")
      // No daily end time, or one past midnight: the last day runs to the next morning.
      if schedule.dailyEndTime == nil || (schedule.dailyEndTime ?? "") <= startTime {
        end = end.addingTimeInterval(86_400)
      }
      ends.append(end)
    }
    if let startDate {
      starts.append(try local(startDate, field: "StartDate"))
    }
    if let endDate {
      // A date-only end is inclusive: the event ends at the following midnight.
      ends.append(try local(endDate, field: "EndDate").addingTimeInterval(86_400))
    } else if startDate != nil {
      isOpenEnded = true
    }
    let startTime = starts.min()
    var endTime = isOpenEnded ? nil : ends.max()
    if let startTime, let endTime, endTime < startTime {
      throw RecordProblem("the schedule ends (\(endTime)) before it starts (\(startTime))")
    }
    if status == "ARCHIVED" {
      let archivedAt = updatedTime ?? options.now
      if endTime.map({ $0 > archivedAt }) ?? true {
        endTime = max(archivedAt, startTime ?? archivedAt)
      }
    }

    let isRoadClosed = roads.contains { $0.state == "CLOSED" }
    let lanesRestricted = roads.contains {
      $0.state == "SOME_LANES_CLOSED" || $0.state == "SINGLE_LANE_ALTERNATING"
    }
    var (type, kind) = Self.classify(eventType: eventType, subtypes: subtypes)
    if type == .unknown {
      (type, kind) = Self.classify(headlines: headlines, descriptions: descriptions)
    }
    if type == .unknown || type == .other {
      if isRoadClosed {
        type = .roadClosure
      } else if lanesRestricted {
        type = .laneRestriction
      }
    }
    var impact = Self.impact(severity: severity)
    if impact == .major, isRoadClosed { impact = .critical }

    let road = roads.first
    let lanesClosed = roads.compactMap(\.lanesClosed).filter { $0 > 0 }.max()
    var totalLanes: Int?
    if let road, let closed = road.lanesClosed, let open = road.lanesOpen, closed >= 0, open >= 0 {
      totalLanes = closed.addingReportingOverflow(open).overflow ? nil : closed + open
      if totalLanes == 0 { totalLanes = nil }
    }
    if let total = totalLanes, let lanesClosed, lanesClosed > total { totalLanes = nil }
    do {
      let details = try TrafficIncidentDetails(
        countryCode: options.defaultCountryCode, area: areas.first,
        roadName: road?.name, fromJunction: road?.from, toJunction: road?.to,
        lanesClosed: lanesClosed, totalLanes: totalLanes, eventKind: kind, timeZone: zone)
      let location = try TrafficLocation(
        polyline: main, additionalPolylines: Array(polylines.dropFirst()),
        description: locationDescription)
      // Each update a version of its own, as WZDx's: `<id>_<updated as Unix seconds>`.
      let version = updatedTime.map { "\(id)_\(Int($0.timeIntervalSince1970))" } ?? id
      return try TrafficIncident(
        id: version, originalId: id, type: type, impact: impact, startTime: startTime,
        endTime: endTime, entryTime: createdTime ?? updatedTime, isRoadClosed: isRoadClosed,
        location: location, details: details, sourceTexts: headlines + descriptions)
    } catch {
      throw RecordProblem(error.description)
    }
  }

  /// Reads a date-time that may lack an offset (Open511 schedules are in local time): the
  /// offset written wins, else the event's time zone, else `fallbackOffset` (taken from the
  /// event's `updated` or `created`), else UTC. A bare date is local midnight.
  static func parseLocal(_ text: String, zone: TimeZone?, fallbackOffset: Int?) -> Date? {
    let trimmed = text.trimmingWhitespace
    guard let asUTC = FeedDates.parseISO8601(trimmed) else { return nil }
    if FeedDates.utcOffsetInSeconds(trimmed) != nil { return asUTC }
    if let zone { return PlaceTimeZone.instant(ofLocalTime: asUTC, in: zone) }
    return asUTC.addingTimeInterval(-Double(fallbackOffset ?? 0))
  }

  /// The type and event kind for an Open511 event type and subtypes (see `Open511Decoder`).
  static func classify(
    eventType: String?, subtypes: [String]
  ) -> (TrafficIncidentType, TrafficEventKind?) {
    let subtypes = Set(subtypes)
    if subtypes.contains("ACCIDENT") { return (.accident, .accident) }
    if subtypes.contains("ROAD_CONSTRUCTION") { return (.construction, .roadworks) }
    if !subtypes.isDisjoint(with: ["ROAD_MAINTENANCE", "EMERGENCY_MAINTENANCE"]) {
      return (.construction, .maintenanceWork)
    }
    if !subtypes.isDisjoint(with: ["SPILL", "OBSTRUCTION", "OIL_ON_ROADWAY"]) {
      return (.roadHazard, .objectOnRoad)
    }
    if !subtypes.isDisjoint(with: ["PARTLY_ICY", "ICE_COVERED"]) { return (.weather, .ice) }
    if !subtypes.isDisjoint(with: [
      "PARTLY_SNOW_PACKED", "SNOW_PACKED", "PARTLY_SNOW_COVERED", "SNOW_COVERED",
      "DRIFTING_SNOW",
    ]) {
      return (.weather, .snow)
    }
    if subtypes.contains("SURFACE_WATER_HAZARD") { return (.weather, .flooding) }
    if subtypes.contains("STRONG_WINDS") { return (.weather, .strongWinds) }
    if subtypes.contains("POOR_VISIBILITY") { return (.weather, .fog) }
    switch eventType {
    case "CONSTRUCTION": return (.construction, .roadworks)
    case "SPECIAL_EVENT": return (.plannedEvent, .majorEvent)
    case "INCIDENT":
      if !subtypes.isDisjoint(with: ["HAZARD", "FIRE", "MUD", "LOOSE_GRAVEL"]) {
        return (.roadHazard, nil)
      }
      return (.other, nil)
    case "WEATHER_CONDITION": return (.weather, nil)
    case "ROAD_CONDITION": return (.roadHazard, nil)
    default: return (.unknown, nil)
    }
  }

  /// The type and event kind an event without a (known) type states in words: its
  /// headlines, then its descriptions, in French or English (see `Open511Decoder`).
  /// Closures are read from headlines only: descriptions also mention what stays open
  /// ("aucune voie fermée").
  static func classify(
    headlines: [LocalizedText], descriptions: [LocalizedText]
  ) -> (TrafficIncidentType, TrafficEventKind?) {
    for (texts, readsClosures) in [(headlines, true), (descriptions, false)] {
      let words = Set(texts.flatMap { Self.words($0.text) })
      if !words.isDisjoint(with: TextClue.accident) { return (.accident, .accident) }
      if !words.isDisjoint(with: TextClue.works) { return (.construction, .roadworks) }
      if !words.isDisjoint(with: TextClue.maintenance) {
        return (.construction, .maintenanceWork)
      }
      if readsClosures, !words.isDisjoint(with: TextClue.closure) {
        return words.isDisjoint(with: TextClue.lane) ? (.roadClosure, nil) : (.laneRestriction, nil)
      }
      if !words.isDisjoint(with: TextClue.restriction) { return (.laneRestriction, nil) }
      if !words.isDisjoint(with: TextClue.plannedEvent) { return (.plannedEvent, .majorEvent) }
    }
    return (.unknown, nil)
  }

  /// The words of a text, lower case without accents, a final plural `s` or `x` removed
  /// (`"Réfection d'aqueducs"` → `refection`, `d`, `aqueduc`).
  static func words(_ text: String) -> [String] {
    text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
      .split { !$0.isLetter }
      .map { word in
        word.count > 3 && (word.hasSuffix("s") || word.hasSuffix("x"))
          ? String(word.dropLast()) : String(word)
      }
  }

  /// Words (as `words(_:)` gives them) that say what an untyped event is.
  enum TextClue {
    /// Collisions.
    static let accident: Set<String> = ["accident", "collision", "carambolage"]
    /// Building and repairing roads and what lies under them.
    static let works: Set<String> = [
      "travau", "chantier", "excavation", "refection", "reconstruction", "construction",
      "rehabilitation",
      "reparation", "pavage", "asphaltage", "resurfacage", "roadwork", "repair", "resurfacing",
    ]
    /// Keeping roads in service.
    static let maintenance: Set<String> = [
      "entretien", "maintenance", "deneigement", "nettoyage", "balayage",
    ]
    /// A closure (of the road, or with `lane`, of lanes).
    static let closure: Set<String> = ["fermeture", "fermee", "closed", "closure"]
    /// What makes a closure one of lanes.
    static let lane: Set<String> = ["voie", "lane"]
    /// Restrictions of the roadway (Quebec's "entrave").
    static let restriction: Set<String> = ["entrave"]
    /// Planned events.
    static let plannedEvent: Set<String> = ["festival", "defile", "parade", "marathon"]
  }

  /// The impact for an Open511 severity.
  static func impact(severity: String?) -> TrafficIncidentImpact {
    switch severity {
    case "MINOR": return .low
    case "MODERATE": return .minor
    case "MAJOR": return .major
    default: return .unknown
    }
  }
}
