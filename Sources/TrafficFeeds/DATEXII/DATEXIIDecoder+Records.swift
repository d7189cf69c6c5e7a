import Foundation
import Traffic

extension DATEXIIDecoder {
  /// What a record inherits from its document.
  struct RecordContext {
    var options: FeedOptions
    var language: LanguageCode?
    var countryCode: String?
    var publicationTime: Date?
    /// The UTC offset of the publication time as written, for times written without one.
    var localOffsetInSeconds: Int?
  }

  /// The incidents of one `situation`, one result per `situationRecord`.
  static func incidents(
    fromSituation situation: XMLNode, number: Int, _ context: RecordContext
  ) -> [Result<TrafficIncident, FeedError>] {
    let situationId = situation.attributes["id"] ?? "?"
    let records = situation.children("situationRecord")
    guard !records.isEmpty else {
      return [
        .failure(
          FeedError(
            format: format,
            location: "situation[\(number)] id=\(situationId) (line \(situation.line))",
            reason: "the situation has no situationRecord"))
      ]
    }
    let overallSeverity = situation.childValue("overallSeverity")
    return records.map { record in
      do throws(RecordProblem) {
        return .success(try incident(from: record, overallSeverity: overallSeverity, context))
      } catch {
        let recordId = record.attributes["id"]?.trimmingWhitespace
        return .failure(
          FeedError(
            format: format,
            location:
              "situation[\(number)] id=\(situationId)/situationRecord id=\(recordId ?? "?") "
              + "(line \(record.line))",
            reason: error.reason, recordId: recordId.flatMap { $0.isEmpty ? nil : $0 }))
      }
    }
  }

  /// The id of a record's version: `<id>_<version>`; the record's id when the version is
  /// empty or the id itself; the version when it is already a version id of the record
  /// (`<id>~<stamp>`, the engine's own, as `DATEXIIPublisher` writes it), so that an id
  /// reads back as it was published.
  static func versionId(recordId: String, version: String) -> String {
    if version.isEmpty || version == recordId { return recordId }
    if version.hasPrefix(recordId + "~") { return version }
    return "\(recordId)_\(version)"
  }

  /// One incident from one `situationRecord`.
  static func incident(
    from record: XMLNode, overallSeverity: String?, _ context: RecordContext
  ) throws(RecordProblem) -> TrafficIncident {
    guard let recordId = record.attributes["id"]?.trimmingWhitespace,
      !recordId.isEmpty
    else { throw RecordProblem("the situationRecord has no id") }
    // DATEX II v1.0 gives the version as an element.
    let version =
      (record.attributes["version"] ?? record.childValue("situationRecordVersion"))?
      .trimmingWhitespace ?? ""
    let id = versionId(recordId: recordId, version: version)

    let validity = record.child("validity")
    let specification = validity?.child("validityTimeSpecification")
    let offset = context.localOffsetInSeconds
    var startTime = try time(specification, "overallStartTime", localOffset: offset)
    var endTime = try time(specification, "overallEndTime", localOffset: offset)
    let creationTime = try time(record, "situationRecordCreationTime", localOffset: offset)
    let versionTime = try time(record, "situationRecordVersionTime", localOffset: offset)
    if let startTime, let endTime, endTime < startTime {
      throw RecordProblem(
        "overallEndTime \(endTime) lies before overallStartTime \(startTime)")
    }
    let lifeCycle = record.child(path: ["management", "lifeCycleManagement"])
    // `end` and `cancel` are `xs:boolean`s: `true` or `1`.
    func isSet(_ name: String) -> Bool {
      ["true", "1"].contains(lifeCycle?.childValue(name)?.trimmingWhitespace)
    }
    let hasEnded =
      validity?.childValue("validityStatus") == "suspended" || isSet("end") || isSet("cancel")
    if hasEnded {
      let endedAt = versionTime ?? context.publicationTime ?? context.options.now
      if let end = endTime, end <= endedAt {
      } else {
        endTime = endedAt
      }
      if let start = startTime, start > endedAt { startTime = endedAt }
    }

    let classification = classify(record)
    let impact = Self.impact(
      severity: record.childValue("severity") ?? overallSeverity,
      impactOnTraffic: record.child("impact")?.childValue("impactOnTraffic"),
      probability: record.childValue("probabilityOfOccurrence"))
    let recordCountry = record.first("sourceCountry")?.value.flatMap {
      isCountryCode($0) ? $0 : nil
    }
    let location = try DATEXIILocationReader(
      axisOrder: context.options.axisOrder,
      nationalGrid: DATEXIILocationReader.nationalGrid(
        ofCountry: recordCountry ?? context.countryCode)
    ).location(of: record)

    let recordImpact = record.child("impact")
    let lanesClosed = recordImpact?.childValue("numberOfLanesRestricted").flatMap { Int($0) }
      .flatMap { $0 > 0 ? $0 : nil }
    // v2 gives the lanes in the impact, v3 in the location's carriageway.
    var totalLanes =
      (recordImpact?.childValue("originalNumberOfLanes")
      ?? record.first("originalNumberOfLanes")?.value).flatMap { Int($0) }
    if let total = totalLanes, total < 1 || total < (lanesClosed ?? 0) { totalLanes = nil }
    let delay = recordImpact?.child("delays")?.childValue("delayTimeValue")
      .flatMap(nonNegative)
    let queueLength = record.first("queueLength")?.value.flatMap(nonNegative)
    let sourceCountry = recordCountry
    let language = context.language ?? .enUS

    let details: TrafficIncidentDetails
    do {
      details = try TrafficIncidentDetails(
        countryCode: sourceCountry ?? context.countryCode,
        roadName: record.first("roadName").flatMap(text),
        roadNumber: record.first("roadNumber").flatMap(text),
        towards: record.first("roadDestination").flatMap(text)
          ?? record.first("alertCDirectionNamed").flatMap(text),
        lanesClosed: lanesClosed, totalLanes: totalLanes,
        queueLengthInMeters: queueLength, delayInSeconds: delay,
        eventKind: classification.kind)
    } catch {
      throw RecordProblem(error.description)
    }
    var sourceTexts: [LocalizedText] = []
    for comment in record.all("generalPublicComment") {
      sourceTexts += localizedTexts(in: comment, defaultLanguage: language)
    }
    do {
      return try TrafficIncident(
        id: id, originalId: recordId, type: classification.type, impact: impact,
        startTime: startTime, endTime: endTime, entryTime: creationTime ?? versionTime,
        isRoadClosed: classification.isRoadClosed, location: location,
        vehicleRestrictions: vehicleRestrictions(of: record), details: details,
        sourceTexts: sourceTexts)
    } catch {
      throw RecordProblem(error.description)
    }
  }

  /// The date-time in the child `name` of `node`, or `nil` when absent.
  /// The date-time in the child `name` of `node`; one written without a UTC offset is read
  /// at `localOffset` (the publication time's), else as UTC.
  static func time(
    _ node: XMLNode?, _ name: String, localOffset: Int? = nil
  ) throws(RecordProblem) -> Date? {
    guard let text = node?.childValue(name) else { return nil }
    guard let date = FeedDates.parseISO8601(text) else {
      throw RecordProblem("\(name) \"\(text)\" is not an ISO 8601 date-time")
    }
    if let localOffset, FeedDates.utcOffsetInSeconds(text) == nil {
      return date.addingTimeInterval(-Double(localOffset))
    }
    return date
  }

  static func nonNegative(_ text: String) -> Double? {
    guard let value = Double(text), value.isFinite, value >= 0 else { return nil }
    return value
  }

  /// The text of a multilingual string (`values/value`, first value) or a plain element.
  static func text(_ node: XMLNode) -> String? {
    node.first("value")?.value ?? node.value
  }

  /// The texts of a `generalPublicComment` (or any element holding `values/value`), one per
  /// language in order of first appearance, the values of one language joined by line breaks.
  static func localizedTexts(in node: XMLNode, defaultLanguage: LanguageCode) -> [LocalizedText] {
    var order: [LanguageCode] = []
    var lines: [LanguageCode: [String]] = [:]
    for value in node.all("value") {
      guard let text = value.value else { continue }
      let language = value.attributes["lang"].flatMap { try? LanguageCode($0) } ?? defaultLanguage
      if lines[language] == nil { order.append(language) }
      lines[language, default: []].append(text)
    }
    return order.map { language in
      LocalizedText(text: (lines[language] ?? []).joined(separator: "\n"), language: language)
    }
  }

  /// The impact for a DATEX II severity, lowered one step for a mere risk.
  static func impact(
    severity: String?, impactOnTraffic: String? = nil, probability: String?
  ) -> TrafficIncidentImpact {
    var impact: TrafficIncidentImpact
    switch severity {
    case "highest": impact = .critical
    case "high": impact = .major
    case "medium": impact = .minor
    case "low", "lowest", "none": impact = .low
    default: impact = .unknown
    }
    if impact == .unknown {
      // DATEX II v1.0 has no severity; its impact says how traffic flows.
      switch impactOnTraffic {
      case "impossible": impact = .critical
      case "congested": impact = .major
      case "heavy": impact = .minor
      case "freeFlow": impact = .low
      default: break
      }
    }
    guard probability == "riskOf" else { return impact }
    switch impact {
    case .critical: return .major
    case .major: return .minor
    case .minor: return .low
    case .low, .unknown: return impact
    }
  }

  /// The type, event kind and closure of a record, from its `xsi:type` and detail values
  /// (see the table on `DATEXIIDecoder`).
  static func classify(
    _ record: XMLNode
  ) -> (
    type: TrafficIncidentType, kind: TrafficEventKind?, isRoadClosed: Bool
  ) {
    var byType = classify(typeName: record.typeName ?? "", details: record)
    // A traffic element (accident, obstruction, ...) that blocks the road closes it.
    let blocking: Set<String> = ["roadBlocked", "carriagewayBlocked"]
    if record.children("trafficConstrictionType").contains(where: {
      $0.value.map(blocking.contains) ?? false
    }) {
      byType.isRoadClosed = true
    }
    // A record whose type says nothing more (a generic record, speed or network management,
    // an operator action) takes the type its cause names.
    guard byType.type == .other, byType.kind == nil,
      let cause = record.child("cause"),
      let causeType = cause.childValue("causeType"),
      let equivalent = recordTypeOfCause[causeType]
    else { return byType }
    let byCause = classify(
      typeName: equivalent, details: cause.child("detailedCauseType") ?? cause)
    return (byCause.type, byCause.kind, byType.isRoadClosed)
  }

  /// The record type whose mapping a `causeType` takes for a record whose own type maps to
  /// `other` (v3 `GenericSituationRecord`, management records); the cause's
  /// `detailedCauseType` gives the detail values.
  static let recordTypeOfCause: [String: String] = [
    "accident": "Accident",
    "abnormalTraffic": "AbnormalTraffic",
    "roadMaintenance": "MaintenanceWorks",
    "roadworks": "MaintenanceWorks",
    "constructionWork": "ConstructionWorks",
    "vehicleObstruction": "VehicleObstruction",
    "obstruction": "GeneralObstruction",
    "animalPresence": "AnimalPresenceObstruction",
    "environmentalObstruction": "EnvironmentalObstruction",
    "infrastructureDamageObstruction": "InfrastructureDamageObstruction",
    "poorRoadInfrastructure": "InfrastructureDamageObstruction",
    "roadConditions": "NonWeatherRelatedRoadConditions",
    "nonWeatherRelatedRoadConditions": "NonWeatherRelatedRoadConditions",
    "weatherRelatedRoadConditions": "WeatherRelatedRoadConditions",
    "poorEnvironment": "PoorEnvironmentConditions",
    "publicEvent": "PublicEvent",
    "disturbanceActivity": "DisturbanceActivity",
    "transitServiceDisruption": "TransitInformation",
  ]

  /// The type, event kind and closure for the record type `type`, with its detail values read
  /// from the children of `details`.
  static func classify(
    typeName type: String, details record: XMLNode
  ) -> (
    type: TrafficIncidentType, kind: TrafficEventKind?, isRoadClosed: Bool
  ) {
    func values(_ name: String) -> [String] { record.children(name).compactMap(\.value) }
    func any(_ name: String, _ test: (String) -> Bool) -> Bool {
      values(name).contains(where: test)
    }
    switch type {
    case "Accident":
      if any("accidentType", { $0 == "vehicleOnFire" }) { return (.accident, .vehicleFire, false) }
      let several = any("accidentType") {
        let lower = $0.lowercased()
        return lower.contains("multi") || lower.contains("series")
          || lower.contains("carambolage") || lower.contains("chain")
      }
      return (.accident, several ? .multiVehicleAccident : .accident, false)
    case "AbnormalTraffic":
      let kind: TrafficEventKind?
      switch values("abnormalTrafficType").first {
      case "stationaryTraffic": kind = .stationaryTraffic
      case "queuingTraffic", "stopAndGo": kind = .queuingTraffic
      case "slowTraffic", "heavyTraffic": kind = .slowTraffic
      default: kind = nil
      }
      return (.congestion, kind, false)
    case "MaintenanceWorks":
      let roadworks = any("roadMaintenanceType") { $0 == "roadworks" }
      return (.construction, roadworks ? .roadworks : .maintenanceWork, false)
    case "Roadworks", "ConstructionWorks":
      return (.construction, .roadworks, false)
    case "RoadOrCarriagewayOrLaneManagement":
      let management = values("roadOrCarriagewayOrLaneManagementType")
      let closures: Set<String> = [
        "roadClosed", "carriagewayClosures", "closedPermanentlyForTheWinter",
        "overnightClosures", "intermittentShortTermClosures",
      ]
      if management.contains(where: closures.contains) { return (.roadClosure, nil, true) }
      let laneUse: Set<String> = [
        "singleAlternateLineTraffic", "contraflow", "hardShoulderRunningInOperation",
        "newRoadworksLayout", "doNotUseSpecifiedLanesOrCarriageways",
        "useSpecifiedLanesOrCarriageways", "useOfSpecifiedLanesOrCarriagewaysAllowed",
      ]
      if management.contains(where: { laneUse.contains($0) || $0.lowercased().contains("lane") }) {
        return (.laneRestriction, nil, false)
      }
      return (.other, nil, false)
    case "VehicleObstruction":
      let kinds = values("vehicleObstructionType")
      if kinds.contains("vehicleOnFire") { return (.disabledVehicle, .vehicleFire, false) }
      if kinds.contains(where: { $0 == "vehicleOnWrongCarriageway" || $0 == "wrongWayDriver" }) {
        return (.roadHazard, .wrongWayDriver, false)
      }
      let disabled: Set<String> = [
        "damagedVehicle", "abandonedVehicle", "vehicleStuck", "vehicleStuckUnderBridge",
      ]
      if kinds.contains(where: { disabled.contains($0) || $0.hasPrefix("brokenDown") }) {
        return (.disabledVehicle, .brokenDownVehicle, false)
      }
      return (.roadHazard, nil, false)
    case "AnimalPresenceObstruction":
      return (.roadHazard, .animalsOnRoad, false)
    case "GeneralObstruction", "InfrastructureDamageObstruction",
      "NonWeatherRelatedRoadConditions":
      let kinds =
        values("obstructionType") + values("nonWeatherRelatedRoadConditionType")
        + values("infrastructureDamageType")
      if kinds.contains(where: { $0.hasSuffix("OnRoadway") }) {
        return (.roadHazard, .peopleOnRoad, false)
      }
      let objects = ["object", "debris", "shedload", "spillage", "obstruction", "oil"]
      if kinds.contains(where: { kind in objects.contains { kind.lowercased().contains($0) } }) {
        return (.roadHazard, .objectOnRoad, false)
      }
      return (.roadHazard, nil, false)
    case "EnvironmentalObstruction":
      let kinds = values("environmentalObstructionType")
      if kinds.contains(where: { ["flooding", "flashFloods", "sewerOverflow"].contains($0) }) {
        return (.weather, .flooding, false)
      }
      let falls: Set<String> = [
        "fallenTrees", "rockfalls", "landslips", "mudSlide", "avalanches", "fallingIce",
      ]
      return (.roadHazard, kinds.contains(where: falls.contains) ? .objectOnRoad : nil, false)
    case "PoorEnvironmentConditions", "WeatherRelatedRoadConditions":
      let kinds = values("poorEnvironmentType") + values("weatherRelatedRoadConditionType")
      return (.weather, weatherKind(kinds), false)
    case "WinterDrivingManagement":
      return (.weather, nil, false)
    case "PublicEvent":
      let marches: Set<String> = ["demonstration", "march", "parade", "procession"]
      let kinds = values("publicEventType")
      return (
        .plannedEvent, kinds.contains(where: marches.contains) ? .demonstration : .majorEvent,
        false
      )
    case "DisturbanceActivity":
      let kinds = values("disturbanceActivityType")
      let march = kinds.contains { $0 == "demonstration" || $0 == "march" }
      return (.other, march ? .demonstration : nil, false)
    case "TransitInformation", "PublicTransport":
      return (.massTransit, .transitDisruption, false)
    default:
      return (.other, nil, false)
    }
  }

  /// The weather event kind named by DATEX II poor-environment and road-condition values.
  static func weatherKind(_ kinds: [String]) -> TrafficEventKind? {
    for kind in kinds {
      let lower = kind.lowercased()
      if lower.contains("fog") { return .fog }
      if lower.contains("wind") || lower.contains("gale") || lower.contains("tornado") {
        return .strongWinds
      }
      if lower.contains("snow") || lower.contains("slush") || lower.contains("blizzard")
        || lower == "whiteout" || lower == "winterstorm"
      {
        return .snow
      }
      if lower.contains("ice") || lower.contains("icy") || lower.contains("freezing")
        || lower.contains("frost") || lower == "sleet"
      {
        return .ice
      }
      if lower.contains("flood") || lower == "surfacewater" { return .flooding }
    }
    return nil
  }

  /// Vehicle restrictions a record imposes: winter equipment for `WinterDrivingManagement`.
  static func vehicleRestrictions(
    of record: XMLNode
  ) -> [RestrictedVehicleCategory: VehicleRestriction] {
    guard record.typeName == "WinterDrivingManagement" else { return [:] }
    var restriction = VehicleRestriction()
    for kind in record.children("winterEquipmentManagementType").compactMap(\.value) {
      switch kind {
      case "snowChainsMandatory", "winterEquipmentOnBoardRequired":
        restriction.isDrivingWithoutSnowChainsRestricted = true
      case "snowTyresMandatory", "winterTyresMandatory", "snowChainsOrTyresMandatory":
        // Chains or tyres: winter tyres are the weaker requirement that suffices.
        restriction.isDrivingWithoutWinterTyresRestricted = true
      default:
        break
      }
    }
    return restriction == VehicleRestriction() ? [:] : [.all: restriction]
  }
}
