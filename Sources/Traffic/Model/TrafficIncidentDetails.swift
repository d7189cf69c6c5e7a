import Foundation

/// The structured facts about an incident from which localised descriptions are worded.
///
/// Everything is optional: a feed fills what it knows, and the description says only that.
/// Names of places and roads are kept as the source gives them (they are not translated).
public struct TrafficIncidentDetails: Hashable, Sendable, Codable {
  /// The country the incident lies in, ISO 3166-1 alpha-2, uppercase (`"DE"`). Decides the
  /// language of descriptions when none is requested.
  public let countryCode: String?
  /// The city or area (`"Berlin"`), written before the road.
  public let area: String?
  /// The road's name (`"Sachsendamm"`).
  public let roadName: String?
  /// The road's number (`"A100"`, `"B96"`).
  public let roadNumber: String?
  /// The place the affected direction leads to (`"Hamburg"`), when one direction is affected.
  public let towards: String?
  /// The junction or cross street where the affected stretch begins.
  public let fromJunction: String?
  /// The junction or cross street where the affected stretch ends.
  public let toJunction: String?
  /// The junction or cross street at which a point incident lies.
  public let atJunction: String?
  /// How many lanes are closed.
  public let lanesClosed: Int?
  /// How many lanes the carriageway has in the affected direction.
  public let totalLanes: Int?
  /// Whether queues are likely to form ("Staugefahr").
  public let queueRisk: Bool
  /// The length of the queue, meters.
  public let queueLengthInMeters: Double?
  /// The expected delay, seconds.
  public let delayInSeconds: Double?
  /// What happened, finer than the incident type.
  public let eventKind: TrafficEventKind?
  /// A free-text cause in the source's language; used only in descriptions in that
  /// language.
  public let cause: LocalizedText?
  /// The time zone of the incident's place; dates in descriptions use it (UTC when `nil`).
  public let timeZone: TimeZone?

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
    totalLanes: Int? = nil, queueRisk: Bool = false, queueLengthInMeters: Double? = nil,
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
    for (field, value) in [
      ("queueLengthInMeters", queueLengthInMeters), ("delayInSeconds", delayInSeconds),
    ] {
      if let value, !(value.isFinite && value >= 0) {
        throw .invalidValue(field: field, value: value, reason: "must be a finite number >= 0")
      }
    }
    self.countryCode = countryCode?.uppercased()
    self.area = area
    self.roadName = roadName
    self.roadNumber = roadNumber
    self.towards = towards
    self.fromJunction = fromJunction
    self.toJunction = toJunction
    self.atJunction = atJunction
    self.lanesClosed = lanesClosed
    self.totalLanes = totalLanes
    self.queueRisk = queueRisk
    self.queueLengthInMeters = queueLengthInMeters
    self.delayInSeconds = delayInSeconds
    self.eventKind = eventKind
    self.cause = cause
    self.timeZone = timeZone
  }

  /// No facts beyond the incident's own fields.
  public static let none = TrafficIncidentDetails(unchecked: ())

  private init(unchecked: Void) {
    countryCode = nil
    area = nil
    roadName = nil
    roadNumber = nil
    towards = nil
    fromJunction = nil
    toJunction = nil
    atJunction = nil
    lanesClosed = nil
    totalLanes = nil
    queueRisk = false
    queueLengthInMeters = nil
    delayInSeconds = nil
    eventKind = nil
    cause = nil
    timeZone = nil
  }

  private enum CodingKeys: String, CodingKey {
    case countryCode, area, roadName, roadNumber, towards, fromJunction, toJunction
    case atJunction, lanesClosed, totalLanes, queueRisk, queueLengthInMeters, delayInSeconds
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
    if queueRisk { try c.encode(queueRisk, forKey: .queueRisk) }
    try c.encodeIfPresent(queueLengthInMeters, forKey: .queueLengthInMeters)
    try c.encodeIfPresent(delayInSeconds, forKey: .delayInSeconds)
    try c.encodeIfPresent(eventKind, forKey: .eventKind)
    try c.encodeIfPresent(cause, forKey: .cause)
    try c.encodeIfPresent(timeZone?.identifier, forKey: .timeZone)
  }
}
