import Foundation

/// A traffic incident — an accident, roadworks, a closure — as in the HERE SDK.
///
/// An incident is a value: each new version from a feed is a new value with a new `id` and
/// the same `originalId`, which is the key to look it up by. Times are absolute (`Date`,
/// UTC); an open start or end is `nil`.
///
/// Besides the HERE SDK's fields, an incident carries `details` (structured facts: road,
/// junctions, lanes, queue...) and `sourceTexts` (descriptions the source wrote in its own
/// language), from which `localized(to:)` words `description` and `summary` in the language
/// asked for.
public struct TrafficIncident: Hashable, Sendable {
  /// The stored fields of an incident.
  struct Fields: Hashable, Sendable {
    var id: String
    var originalId: String
    var parentId: String?
    var type: TrafficIncidentType
    var impact: TrafficIncidentImpact
    var description: LocalizedText
    var summary: LocalizedText
    var startTime: Date?
    var endTime: Date?
    var entryTime: Date?
    var isRoadClosed: Bool
    var junctionsTraversability: JunctionsTraversability
    var codes: [Int]
    var location: TrafficLocation
    var vehicleRestrictions: [RestrictedVehicleCategory: VehicleRestriction]
    var details: TrafficIncidentDetails
    var sourceTexts: [LocalizedText]
    var sources: [TrafficIncidentSource] = []
  }

  /// The fields, shared by copies until one of them changes (copy on write): an incident
  /// holds dozens of strings and arrays, and snapshots, queries and ingest copy incidents by
  /// the thousand, each copy of a plain struct retaining every one of them.
  private final class Storage: @unchecked Sendable {
    // Unchecked: `fields` is only written through `TrafficIncident.fields`, which copies the
    // storage first unless this value is its only holder, so a shared storage is never
    // written.
    var fields: Fields

    init(_ fields: Fields) {
      self.fields = fields
    }
  }

  private var storage: Storage

  /// The shared storage of this value, as an object: two values with the same one are the
  /// same version, field for field. Whoever holds the object keeps that storage from being
  /// mutated (a write to a value whose storage is shared copies it first) or reused, so a
  /// cache keyed by its identity and holding it can never answer for other contents.
  package var storageObject: any AnyObject & Sendable { storage }

  /// The identity of `storageObject`, read without retaining it.
  package var storageIdentity: ObjectIdentifier { ObjectIdentifier(storage) }

  /// The fields for writing: copied first when another value shares them.
  private var fields: Fields {
    get { storage.fields }
    _modify {
      if !isKnownUniquelyReferenced(&storage) { storage = Storage(storage.fields) }
      yield &storage.fields
    }
  }

  /// The identifier of this version; it changes with every update of the incident.
  public private(set) var id: String {
    get { storage.fields.id }
    set { fields.id = newValue }
  }
  /// The identifier of the first version; stable across updates, the lookup key.
  public private(set) var originalId: String {
    get { storage.fields.originalId }
    set { fields.originalId = newValue }
  }
  /// The identifier of an incident this one belongs to (e.g. the accident a queue is caused
  /// by), when any.
  public var parentId: String? {
    get { storage.fields.parentId }
    set { fields.parentId = newValue }
  }
  /// The category.
  public var type: TrafficIncidentType {
    get { storage.fields.type }
    set { fields.type = newValue }
  }
  /// How strongly traffic is affected.
  public var impact: TrafficIncidentImpact {
    get { storage.fields.impact }
    set { fields.impact = newValue }
  }
  /// A full description including the location, in `description.language`.
  public var description: LocalizedText {
    get { storage.fields.description }
    set { fields.description = newValue }
  }
  /// A short description without the location, in `summary.language`.
  public var summary: LocalizedText {
    get { storage.fields.summary }
    set { fields.summary = newValue }
  }
  /// When the incident began or will begin; `nil` when not known (treated as always begun).
  public private(set) var startTime: Date? {
    get { storage.fields.startTime }
    set { fields.startTime = newValue }
  }
  /// When the incident is expected to end; `nil` when not known (treated as open-ended).
  public private(set) var endTime: Date? {
    get { storage.fields.endTime }
    set { fields.endTime = newValue }
  }
  /// When the incident was entered into the source system, when known.
  public var entryTime: Date? {
    get { storage.fields.entryTime }
    set { fields.entryTime = newValue }
  }
  /// Whether the road is closed.
  public var isRoadClosed: Bool {
    get { storage.fields.isRoadClosed }
    set { fields.isRoadClosed = newValue }
  }
  /// Whether the junctions along the affected stretch can be used.
  public var junctionsTraversability: JunctionsTraversability {
    get { storage.fields.junctionsTraversability }
    set { fields.junctionsTraversability = newValue }
  }
  /// Alert-C event codes (ISO 14819-2), most important first.
  public var codes: [Int] {
    get { storage.fields.codes }
    set { fields.codes = newValue }
  }
  /// Where the incident is.
  public var location: TrafficLocation {
    get { storage.fields.location }
    set { fields.location = newValue }
  }
  /// The vehicles the incident restricts, per category; empty when it restricts none in
  /// particular.
  public var vehicleRestrictions: [RestrictedVehicleCategory: VehicleRestriction] {
    get { storage.fields.vehicleRestrictions }
    set { fields.vehicleRestrictions = newValue }
  }
  /// Structured facts used to word localised descriptions.
  public var details: TrafficIncidentDetails {
    get { storage.fields.details }
    set { fields.details = newValue }
  }
  /// Descriptions as the source wrote them, each in its language; returned unchanged when
  /// their language is asked for.
  public var sourceTexts: [LocalizedText] {
    get { storage.fields.sourceTexts }
    set { fields.sourceTexts = newValue }
  }
  /// The feeds that reported the incident, with each feed's own id for it (several when
  /// reports of the same event from different feeds were merged into this incident).
  public var sources: [TrafficIncidentSource] {
    get { storage.fields.sources }
    set { fields.sources = newValue }
  }

  /// Equal when every field is (two values of one storage are equal without comparing).
  public static func == (lhs: TrafficIncident, rhs: TrafficIncident) -> Bool {
    lhs.storage === rhs.storage || lhs.storage.fields == rhs.storage.fields
  }

  /// Hashes every field.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(storage.fields)
  }

  /// Creates an incident, validating what must hold.
  ///
  /// - Parameters:
  ///   - id: This version's identifier; not empty.
  ///   - originalId: The first version's identifier; not empty. Defaults to `id`.
  ///   - parentId: A linked parent incident, when any.
  ///   - type: The category.
  ///   - impact: The criticality.
  ///   - description: A full description. When `nil`, the first of `sourceTexts`, or else a
  ///     text worded from the details in the language of the incident's country (see
  ///     `localized(to:)`).
  ///   - summary: A short description; `nil` words it as `description` is worded.
  ///   - startTime: Start; `nil` when unknown.
  ///   - endTime: Expected end; `nil` when unknown; not before `startTime`.
  ///   - entryTime: When the source recorded it.
  ///   - isRoadClosed: Whether the road is closed.
  ///   - junctionsTraversability: Whether junctions can be used; all open by default.
  ///   - codes: Alert-C event codes, most important first.
  ///   - location: Where it is.
  ///   - vehicleRestrictions: Restricted vehicle categories and their rules.
  ///   - details: Structured facts for localisation.
  ///   - sourceTexts: Descriptions from the source, each in its language.
  /// - Throws: `TrafficModelError.emptyField` for an empty identifier,
  ///   `.endBeforeStart` when `endTime < startTime`.
  public init(
    id: String, originalId: String? = nil, parentId: String? = nil,
    type: TrafficIncidentType, impact: TrafficIncidentImpact,
    description: LocalizedText? = nil, summary: LocalizedText? = nil,
    startTime: Date? = nil, endTime: Date? = nil, entryTime: Date? = nil,
    isRoadClosed: Bool = false, junctionsTraversability: JunctionsTraversability = .allOpen,
    codes: [Int] = [], location: TrafficLocation,
    vehicleRestrictions: [RestrictedVehicleCategory: VehicleRestriction] = [:],
    details: TrafficIncidentDetails = .none, sourceTexts: [LocalizedText] = []
  ) throws(TrafficModelError) {
    guard !id.isEmpty else { throw .emptyField("id") }
    let originalId = originalId ?? id
    guard !originalId.isEmpty else { throw .emptyField("originalId") }
    if let parentId, parentId.isEmpty { throw .emptyField("parentId") }
    if let startTime, let endTime, endTime < startTime {
      throw .endBeforeStart(start: startTime, end: endTime)
    }
    let placeholder = LocalizedText(text: "", language: .enUS)
    storage = Storage(
      Fields(
        id: id, originalId: originalId, parentId: parentId, type: type, impact: impact,
        description: description ?? placeholder, summary: summary ?? description ?? placeholder,
        startTime: startTime, endTime: endTime, entryTime: entryTime,
        isRoadClosed: isRoadClosed, junctionsTraversability: junctionsTraversability,
        codes: codes, location: location, vehicleRestrictions: vehicleRestrictions,
        details: details, sourceTexts: sourceTexts))
    if description == nil || summary == nil {
      let texts = IncidentTextGenerator.shared.texts(for: self, in: nil)
      if description == nil { self.description = texts.description }
      if summary == nil { self.summary = texts.summary }
    }
  }

  /// Whether the incident is in effect at `time`: `startTime <= time < endTime`, where a
  /// missing start or end leaves that side open.
  ///
  /// - Parameter time: The instant to test.
  /// - Returns: `true` when the incident has begun and not yet ended at `time`.
  public func isActive(at time: Date) -> Bool {
    if let startTime, time < startTime { return false }
    if let endTime, time >= endTime { return false }
    return true
  }

  /// Whether the incident is in effect at some instant of `window` (both ends included):
  /// it began no later than the window's end and ends after the window's start.
  ///
  /// - Parameter window: A closed time interval.
  /// - Returns: `true` when the incident's interval `[startTime, endTime)` meets `window`.
  public func isActive(during window: ClosedRange<Date>) -> Bool {
    if let startTime, startTime > window.upperBound { return false }
    if let endTime, endTime <= window.lowerBound { return false }
    return true
  }

  /// A copy with new version data: a new `id`, and new times (validated as in `init`).
  ///
  /// - Parameters:
  ///   - id: The new version's identifier; not empty.
  ///   - startTime: The new start.
  ///   - endTime: The new expected end.
  /// - Returns: The updated incident; `originalId` is kept.
  /// - Throws: `TrafficModelError.emptyField` or `.endBeforeStart`.
  public func updated(
    id: String, startTime: Date?, endTime: Date?
  ) throws(TrafficModelError)
    -> TrafficIncident
  {
    guard !id.isEmpty else { throw .emptyField("id") }
    if let startTime, let endTime, endTime < startTime {
      throw .endBeforeStart(start: startTime, end: endTime)
    }
    var copy = self
    copy.id = id
    copy.startTime = startTime
    copy.endTime = endTime
    return copy
  }

  /// A copy under another identity: what ingest uses when one feed's report becomes the
  /// content of an incident another report created (a merged incident).
  ///
  /// - Parameters:
  ///   - id: The version id; not checked (the engine makes it).
  ///   - originalId: The original id of the incident the content goes into.
  /// - Returns: The same content under `id` and `originalId`.
  package func reidentified(id: String, originalId: String) -> TrafficIncident {
    var copy = self
    copy.id = id
    copy.originalId = originalId
    return copy
  }
}

extension TrafficIncident: Codable {
  private enum CodingKeys: String, CodingKey {
    case id, originalId, parentId, type, impact, description, summary, startTime, endTime
    case entryTime, isRoadClosed, junctionsTraversability, codes, location
    case vehicleRestrictions, details, sourceTexts, sources
  }

  /// Decodes an incident (the Swift field names, not the v7 wire format), validating it as
  /// `init` does.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    try self.init(
      id: c.decode(String.self, forKey: .id),
      originalId: c.decodeIfPresent(String.self, forKey: .originalId),
      parentId: c.decodeIfPresent(String.self, forKey: .parentId),
      type: c.decodeIfPresent(TrafficIncidentType.self, forKey: .type) ?? .unknown,
      impact: c.decodeIfPresent(TrafficIncidentImpact.self, forKey: .impact) ?? .unknown,
      description: c.decodeIfPresent(LocalizedText.self, forKey: .description),
      summary: c.decodeIfPresent(LocalizedText.self, forKey: .summary),
      startTime: c.decodeIfPresent(Date.self, forKey: .startTime),
      endTime: c.decodeIfPresent(Date.self, forKey: .endTime),
      entryTime: c.decodeIfPresent(Date.self, forKey: .entryTime),
      isRoadClosed: c.decodeIfPresent(Bool.self, forKey: .isRoadClosed) ?? false,
      junctionsTraversability: c.decodeIfPresent(
        JunctionsTraversability.self, forKey: .junctionsTraversability) ?? .allOpen,
      codes: c.decodeIfPresent([Int].self, forKey: .codes) ?? [],
      location: c.decode(TrafficLocation.self, forKey: .location),
      vehicleRestrictions: c.decodeIfPresent(
        [RestrictedVehicleCategory: VehicleRestriction].self, forKey: .vehicleRestrictions) ?? [:],
      details: c.decodeIfPresent(TrafficIncidentDetails.self, forKey: .details) ?? .none,
      sourceTexts: c.decodeIfPresent([LocalizedText].self, forKey: .sourceTexts) ?? [])
    sources = try c.decodeIfPresent([TrafficIncidentSource].self, forKey: .sources) ?? []
  }

  /// Encodes every field under its Swift name.
  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(id, forKey: .id)
    try c.encode(originalId, forKey: .originalId)
    try c.encodeIfPresent(parentId, forKey: .parentId)
    try c.encode(type, forKey: .type)
    try c.encode(impact, forKey: .impact)
    try c.encode(description, forKey: .description)
    try c.encode(summary, forKey: .summary)
    try c.encodeIfPresent(startTime, forKey: .startTime)
    try c.encodeIfPresent(endTime, forKey: .endTime)
    try c.encodeIfPresent(entryTime, forKey: .entryTime)
    try c.encode(isRoadClosed, forKey: .isRoadClosed)
    try c.encode(junctionsTraversability, forKey: .junctionsTraversability)
    try c.encode(codes, forKey: .codes)
    try c.encode(location, forKey: .location)
    try c.encode(vehicleRestrictions, forKey: .vehicleRestrictions)
    try c.encode(details, forKey: .details)
    try c.encode(sourceTexts, forKey: .sourceTexts)
    if !sources.isEmpty { try c.encode(sources, forKey: .sources) }
  }
}

extension TrafficIncident {
  /// The version number its id names when it is `<originalId>_<number>`: a DATEX II
  /// record's `version`, the update time (Unix seconds) of a WZDx or Open511 event; `nil`
  /// for ids of other shapes (the engine's own versions, sources without versions).
  public var sourceVersionNumber: Int? {
    let prefix = originalId + "_"
    guard id.count > prefix.count, id.hasPrefix(prefix) else { return nil }
    return Int(id.dropFirst(prefix.count)).flatMap { $0 >= 0 ? $0 : nil }
  }
}

/// One feed's report of an incident: which feed, and the feed's own id for it.
///
/// When reports from several feeds are merged into one incident, each entry also records
/// what its feed last said (`reportDigest`, `reportEntryTime`), so that a later report can be
/// told apart as unchanged, changed or older without keeping every feed's copy.
public struct TrafficIncidentSource: Hashable, Sendable, Codable {
  /// The feed's name (as configured, e.g. `"uk-ntis"`).
  public var feed: String
  /// The feed's own identifier of the incident.
  public var id: String
  /// A digest of the content of this feed's latest report (ignoring its version id and entry
  /// time), recorded while the incident has or had other sources. `nil` when the incident's
  /// content is simply this feed's report, or, beside other sources, when the incident waits
  /// for this feed's next report to take its content from.
  public var reportDigest: String?
  /// When this feed's latest report was entered into the feed's system, when known and
  /// recorded beside `reportDigest`.
  public var reportEntryTime: Date?
  /// The source's version number of this feed's latest report
  /// (``TrafficIncident/sourceVersionNumber``), when it has one and it is recorded beside
  /// `reportDigest`: what tells an older report from a newer one where entry times do not
  /// (publishers keep a record's creation time across its versions).
  public var reportVersion: Int?

  /// Creates a source reference.
  ///
  /// - Parameters:
  ///   - feed: The feed's name.
  ///   - id: The feed's own identifier of the incident.
  ///   - reportDigest: A digest of the feed's latest report, when recorded.
  ///   - reportEntryTime: The entry time of the feed's latest report, when recorded.
  ///   - reportVersion: The source's version number of the feed's latest report, when
  ///     recorded.
  public init(
    feed: String, id: String, reportDigest: String? = nil, reportEntryTime: Date? = nil,
    reportVersion: Int? = nil
  ) {
    self.feed = feed
    self.id = id
    self.reportDigest = reportDigest
    self.reportEntryTime = reportEntryTime
    self.reportVersion = reportVersion
  }

  /// Whether this entry stands for the same report as `other`: the same feed and feed id,
  /// whatever was recorded of it.
  ///
  /// - Parameter other: Another source reference.
  /// - Returns: `true` when `feed` and `id` are equal.
  public func isSameReport(as other: TrafficIncidentSource) -> Bool {
    feed == other.feed && id == other.id
  }
}
