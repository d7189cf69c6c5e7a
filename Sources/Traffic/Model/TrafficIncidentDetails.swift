import Foundation

/// The structured facts about an incident from which localised descriptions are worded.
///
/// Everything is optional: a feed fills what it knows, and the description says only that.
/// Names of places and roads are kept as the source gives them (they are not translated).
public struct TrafficIncidentDetails: Hashable, Sendable, Codable {
  /// The country the incident lies in, ISO 3166-1 alpha-2, uppercase (`"DE"`). Decides the
  /// language of descriptions when none is requested.
  public let countryCode: String?
  /// The road's name (`"Sachsendamm"`).
  public let roadName: String?
  /// The road's number (`"A100"`, `"B96"`).
  public let roadNumber: String?
  /// What happened, finer than the incident type.
  public let eventKind: TrafficEventKind?
  /// Whether queues are likely to form ("Staugefahr").
  public let queueRisk: Bool
  /// The facts most incidents lack, in one object (`nil` when none is known): the details
  /// of an incident without them take 64 bytes inside it instead of 232.
  private let rare: Rare?

  private final class Rare: Sendable {
    let area: String?
    let towards: String?
    let fromJunction: String?
    let toJunction: String?
    let atJunction: String?
    let lanesClosed: Int?
    let totalLanes: Int?
    let closedLanes: [Int]?
    let queueLengthInMeters: Double?
    let delayInSeconds: Double?
    let cause: LocalizedText?
    let timeZone: TimeZone?

    init(
      area: String?, towards: String?, fromJunction: String?, toJunction: String?,
      atJunction: String?, lanesClosed: Int?, totalLanes: Int?, closedLanes: [Int]?,
      queueLengthInMeters: Double?, delayInSeconds: Double?, cause: LocalizedText?,
      timeZone: TimeZone?
    ) {
      self.area = area
      self.towards = towards
      self.fromJunction = fromJunction
      self.toJunction = toJunction
      self.atJunction = atJunction
      self.lanesClosed = lanesClosed
      self.totalLanes = totalLanes
      self.closedLanes = closedLanes
      self.queueLengthInMeters = queueLengthInMeters
      self.delayInSeconds = delayInSeconds
      self.cause = cause
      self.timeZone = timeZone
    }
  }

  /// The city or area (`"Berlin"`), written before the road.
  public var area: String? { rare?.area }
  /// The place the affected direction leads to (`"Hamburg"`), when one direction is affected.
  public var towards: String? { rare?.towards }
  /// The junction or cross street where the affected stretch begins.
  public var fromJunction: String? { rare?.fromJunction }
  /// The junction or cross street where the affected stretch ends.
  public var toJunction: String? { rare?.toJunction }
  /// The junction or cross street at which a point incident lies.
  public var atJunction: String? { rare?.atJunction }
  /// How many lanes are closed.
  public var lanesClosed: Int? { rare?.lanesClosed }
  /// How many lanes the carriageway has in the affected direction.
  public var totalLanes: Int? { rare?.totalLanes }
  /// Which driving lanes are closed, numbered from the left as a driver faces the direction
  /// of travel, from 1 (WZDx's lane `order` over driving lanes), ascending; `nil` when the
  /// source says only how many. Routing closes a turn that leaves only from closed lanes
  /// (on networks that know their lanes' turns).
  public var closedLanes: [Int]? { rare?.closedLanes }
  /// The length of the queue, meters.
  public var queueLengthInMeters: Double? { rare?.queueLengthInMeters }
  /// The expected delay, seconds.
  public var delayInSeconds: Double? { rare?.delayInSeconds }
  /// A free-text cause in the source's language; used only in descriptions in that
  /// language.
  public var cause: LocalizedText? { rare?.cause }
  /// The time zone of the incident's place; dates in descriptions use it (UTC when `nil`).
  public var timeZone: TimeZone? { rare?.timeZone }

  /// Creates details, validating what must hold.
  ///
  /// - Parameters:
  ///   - countryCode: ISO 3166-1 alpha-2, any case; stored uppercase.
  ///   - area: The city or area.
  ///   - roadName: The road's name.
  ///   - roadNumber: The road's number.
  ///   - towards: The destination of the affected direction.
  ///   - fromJunction: Where the stretch begins.
  ///   - toJunction: Where the stretch ends.
  ///   - atJunction: Where a point incident is.
  ///   - lanesClosed: Closed lanes, >= 0.
  ///   - totalLanes: Lanes in the affected direction, >= 1 and >= `lanesClosed`.
  ///   - closedLanes: Which lanes are closed, from the left from 1, each within `totalLanes`
  ///     when it is known; stored ascending without repeats. `lanesClosed`, when absent, is
  ///     their number; when given, it must be at least that.
  ///   - queueRisk: Whether queues are likely.
  ///   - queueLengthInMeters: Queue length, >= 0.
  ///   - delayInSeconds: Expected delay, >= 0.
  ///   - eventKind: What happened.
  ///   - cause: A free-text cause in its language.
  ///   - timeZone: The place's time zone.
  /// - Throws: `TrafficModelError.invalidCountryCode` or `.invalidValue` naming the field.
  public init(
    countryCode: String? = nil, area: String? = nil, roadName: String? = nil,
    roadNumber: String? = nil, towards: String? = nil, fromJunction: String? = nil,
    toJunction: String? = nil, atJunction: String? = nil, lanesClosed: Int? = nil,
    totalLanes: Int? = nil, closedLanes: [Int]? = nil, queueRisk: Bool = false,
    queueLengthInMeters: Double? = nil,
    delayInSeconds: Double? = nil, eventKind: TrafficEventKind? = nil,
    cause: LocalizedText? = nil, timeZone: TimeZone? = nil
  ) throws(TrafficModelError) {
    if let countryCode {
      guard countryCode.count == 2, countryCode.allSatisfy({ $0.isASCII && $0.isLetter }) else {
        throw .invalidCountryCode(countryCode)
      }
    }
    if let lanesClosed, lanesClosed < 0 {
      throw .invalidValue(field: "lanesClosed", value: Double(lanesClosed), reason: "must be >= 0")
    }
    if let totalLanes {
      guard totalLanes >= 1 else {
        throw .invalidValue(field: "totalLanes", value: Double(totalLanes), reason: "must be >= 1")
      }
      if let lanesClosed, lanesClosed > totalLanes {
        throw .invalidValue(
          field: "lanesClosed", value: Double(lanesClosed),
          reason: "more than the \(totalLanes) lanes of the road")
      }
    }
    var lanesClosed = lanesClosed
    var closedLanes = closedLanes.map { Array(Set($0)).sorted() }
    if let lanes = closedLanes {
      if let lane = lanes.first(where: { $0 < 1 || $0 > (totalLanes ?? Int.max) }) {
        throw .invalidValue(
          field: "closedLanes", value: Double(lane),
          reason: totalLanes.map { "not a lane of the \($0) lanes of the road" } ?? "must be >= 1")
      }
      if let count = lanesClosed, count < lanes.count {
        throw .invalidValue(
          field: "lanesClosed", value: Double(count),
          reason: "fewer than the \(lanes.count) lanes closedLanes names")
      }
      if lanes.isEmpty {
        closedLanes = nil
      } else if lanesClosed == nil {
        lanesClosed = lanes.count
      }
    }
    for (field, value) in [
      ("queueLengthInMeters", queueLengthInMeters), ("delayInSeconds", delayInSeconds),
    ] {
      if let value, !(value.isFinite && value >= 0) {
        throw .invalidValue(field: field, value: value, reason: "must be a finite number >= 0")
      }
    }
    self.countryCode = countryCode?.uppercased()
    self.roadName = roadName
    self.roadNumber = roadNumber
    self.queueRisk = queueRisk
    self.eventKind = eventKind
    let isRare =
      area != nil || towards != nil || fromJunction != nil || toJunction != nil
      || atJunction != nil || lanesClosed != nil || totalLanes != nil || closedLanes != nil
      || queueLengthInMeters != nil || delayInSeconds != nil || cause != nil || timeZone != nil
    rare =
      isRare
      ? Rare(
        area: area, towards: towards, fromJunction: fromJunction, toJunction: toJunction,
        atJunction: atJunction, lanesClosed: lanesClosed, totalLanes: totalLanes,
        closedLanes: closedLanes, queueLengthInMeters: queueLengthInMeters,
        delayInSeconds: delayInSeconds, cause: cause,
        timeZone: timeZone) : nil
  }

  /// Whether every fact is the same.
  public static func == (a: TrafficIncidentDetails, b: TrafficIncidentDetails) -> Bool {
    guard a.countryCode == b.countryCode, a.roadName == b.roadName,
      a.roadNumber == b.roadNumber, a.eventKind == b.eventKind, a.queueRisk == b.queueRisk
    else { return false }
    if a.rare === b.rare { return true }
    return a.area == b.area && a.towards == b.towards && a.fromJunction == b.fromJunction
      && a.toJunction == b.toJunction && a.atJunction == b.atJunction
      && a.lanesClosed == b.lanesClosed && a.totalLanes == b.totalLanes
      && a.closedLanes == b.closedLanes
      && a.queueLengthInMeters == b.queueLengthInMeters && a.delayInSeconds == b.delayInSeconds
      && a.cause == b.cause && a.timeZone == b.timeZone
  }

  /// Hashes every fact, as `==` compares them.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(countryCode)
    hasher.combine(roadName)
    hasher.combine(roadNumber)
    hasher.combine(eventKind)
    hasher.combine(queueRisk)
    hasher.combine(area)
    hasher.combine(towards)
    hasher.combine(fromJunction)
    hasher.combine(toJunction)
    hasher.combine(atJunction)
    hasher.combine(lanesClosed)
    hasher.combine(totalLanes)
    hasher.combine(closedLanes)
    hasher.combine(queueLengthInMeters)
    hasher.combine(delayInSeconds)
    hasher.combine(cause)
    hasher.combine(timeZone)
  }

  /// No facts beyond the incident's own fields.
  public static let none = TrafficIncidentDetails(unchecked: ())

  private init(unchecked: Void) {
    countryCode = nil
    roadName = nil
    roadNumber = nil
    queueRisk = false
    eventKind = nil
    rare = nil
  }

  private enum CodingKeys: String, CodingKey {
    case countryCode, area, roadName, roadNumber, towards, fromJunction, toJunction
    case atJunction, lanesClosed, totalLanes, closedLanes, queueRisk, queueLengthInMeters,
      delayInSeconds
    case eventKind, cause, timeZone
  }

  /// Decodes details, validating them as `init` does; `timeZone` is an IANA identifier.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    var timeZone: TimeZone?
    if let identifier = try c.decodeIfPresent(String.self, forKey: .timeZone) {
      guard let zone = TimeZone(identifier: identifier) else {
        throw DecodingError.dataCorruptedError(
          forKey: .timeZone, in: c, debugDescription: "unknown time zone \"\(identifier)\"")
      }
      timeZone = zone
    }
    try self.init(
      countryCode: c.decodeIfPresent(String.self, forKey: .countryCode),
      area: c.decodeIfPresent(String.self, forKey: .area),
      roadName: c.decodeIfPresent(String.self, forKey: .roadName),
      roadNumber: c.decodeIfPresent(String.self, forKey: .roadNumber),
      towards: c.decodeIfPresent(String.self, forKey: .towards),
      fromJunction: c.decodeIfPresent(String.self, forKey: .fromJunction),
      toJunction: c.decodeIfPresent(String.self, forKey: .toJunction),
      atJunction: c.decodeIfPresent(String.self, forKey: .atJunction),
      lanesClosed: c.decodeIfPresent(Int.self, forKey: .lanesClosed),
      totalLanes: c.decodeIfPresent(Int.self, forKey: .totalLanes),
      closedLanes: c.decodeIfPresent([Int].self, forKey: .closedLanes),
      queueRisk: c.decodeIfPresent(Bool.self, forKey: .queueRisk) ?? false,
      queueLengthInMeters: c.decodeIfPresent(Double.self, forKey: .queueLengthInMeters),
      delayInSeconds: c.decodeIfPresent(Double.self, forKey: .delayInSeconds),
      eventKind: c.decodeIfPresent(TrafficEventKind.self, forKey: .eventKind),
      cause: c.decodeIfPresent(LocalizedText.self, forKey: .cause),
      timeZone: timeZone)
  }

  /// Encodes the details, omitting absent fields; `timeZone` as its IANA identifier.
  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encodeIfPresent(countryCode, forKey: .countryCode)
    try c.encodeIfPresent(area, forKey: .area)
    try c.encodeIfPresent(roadName, forKey: .roadName)
    try c.encodeIfPresent(roadNumber, forKey: .roadNumber)
    try c.encodeIfPresent(towards, forKey: .towards)
    try c.encodeIfPresent(fromJunction, forKey: .fromJunction)
    try c.encodeIfPresent(toJunction, forKey: .toJunction)
    try c.encodeIfPresent(atJunction, forKey: .atJunction)
    try c.encodeIfPresent(lanesClosed, forKey: .lanesClosed)
    try c.encodeIfPresent(totalLanes, forKey: .totalLanes)
    try c.encodeIfPresent(closedLanes, forKey: .closedLanes)
    if queueRisk { try c.encode(queueRisk, forKey: .queueRisk) }
    try c.encodeIfPresent(queueLengthInMeters, forKey: .queueLengthInMeters)
    try c.encodeIfPresent(delayInSeconds, forKey: .delayInSeconds)
    try c.encodeIfPresent(eventKind, forKey: .eventKind)
    try c.encodeIfPresent(cause, forKey: .cause)
    try c.encodeIfPresent(timeZone?.identifier, forKey: .timeZone)
  }
}
