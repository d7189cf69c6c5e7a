import Codec
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A fast reader of the stored incident body (`StoredIncidentCoder`'s JSON, as
/// `JSONEncoder` writes `TrafficIncident`'s `Codable` form): it walks the bytes once and
/// builds the incident through the same validating initialisers, without the generic
/// containers of `JSONDecoder` (which took four fifths of a million-incident start-up).
///
/// It reads what the stores write. Anything else — a member it does not know, a TMC
/// reference or a vehicle restriction (rare, read by `JSONDecoder`), a syntax error, a value
/// an initialiser rejects — makes it give up with `nil`, and the caller decodes the body
/// with `JSONDecoder`, which gives the same incident or the precise error. So a body
/// decodes the same either way; tests compare the two on every kind of incident.
struct StoredIncidentReader {
  /// The reader gives up: `JSONDecoder` decides.
  struct GiveUp: Error {}

  /// Values that repeat across a store's bodies, read once and then shared by the incidents
  /// that hold them. Used from one thread at a time, as the coder holding it.
  ///
  /// - Language tags, validated once per tag: a store holds a handful of languages in a
  ///   million texts, and validating a tag (Unicode letter tests) cost more than the rest of
  ///   a text.
  /// - Feed names: a store holds a few feeds in a million sources; one string per feed
  ///   instead of a copy per incident (80 bytes each at a million incidents: 80 MB).
  final class SharedValues {
    fileprivate var languages: [String: LanguageCode] = [:]
    fileprivate var feeds: [String] = []
    /// The most language tags kept.
    fileprivate static let languageLimit = 1_000
    /// The most feed names kept (each read is compared with them; a store of more feeds
    /// shares the first ones).
    fileprivate static let feedLimit = 64
    init() {}
  }

  let bytes: UnsafeRawBufferPointer
  var offset = 0
  private let shared: SharedValues

  /// The incident in `body`, or `nil` when `JSONDecoder` must read it.
  static func incident(
    in body: Data, sharing shared: SharedValues = SharedValues()
  ) -> TrafficIncident? {
    body.withUnsafeBytes { bytes -> TrafficIncident? in
      var reader = StoredIncidentReader(bytes: bytes, shared: shared)
      do {
        let incident = try reader.readIncident()
        reader.skipWhitespace()
        return reader.offset == bytes.count ? incident : nil
      } catch {
        return nil
      }
    }
  }

  private init(bytes: UnsafeRawBufferPointer, shared: SharedValues) {
    self.bytes = bytes
    self.shared = shared
  }

  // MARK: The model

  private mutating func readIncident() throws(GiveUp) -> TrafficIncident {
    var id: String?
    var originalId: String?
    var parentId: String?
    var type = TrafficIncidentType.unknown
    var impact = TrafficIncidentImpact.unknown
    var description: LocalizedText?
    var summary: LocalizedText?
    var startTime: Date?
    var endTime: Date?
    var entryTime: Date?
    var isRoadClosed = false
    var junctions = JunctionsTraversability.allOpen
    var codes: [Int] = []
    var location: TrafficLocation?
    var details = TrafficIncidentDetails.none
    var sourceTexts: [LocalizedText] = []
    var sources: [TrafficIncidentSource] = []
    try readObject { reader, key throws(GiveUp) in
      if key.is("id") {
        id = try reader.readString()
      } else if key.is("originalId") {
        originalId = try reader.readOptional { r throws(GiveUp) in try r.readString() }
      } else if key.is("parentId") {
        parentId = try reader.readOptional { r throws(GiveUp) in try r.readString() }
      } else if key.is("type") {
        type = try reader.readOptional { r throws(GiveUp) in try r.readEnum() } ?? .unknown
      } else if key.is("impact") {
        impact = try reader.readOptional { r throws(GiveUp) in try r.readEnum() } ?? .unknown
      } else if key.is("description") {
        description = try reader.readOptional { r throws(GiveUp) in try r.readText() }
      } else if key.is("summary") {
        summary = try reader.readOptional { r throws(GiveUp) in try r.readText() }
      } else if key.is("startTime") {
        startTime = try reader.readOptional { r throws(GiveUp) in try r.readDate() }
      } else if key.is("endTime") {
        endTime = try reader.readOptional { r throws(GiveUp) in try r.readDate() }
      } else if key.is("entryTime") {
        entryTime = try reader.readOptional { r throws(GiveUp) in try r.readDate() }
      } else if key.is("isRoadClosed") {
        isRoadClosed = try reader.readOptional { r throws(GiveUp) in try r.readBool() } ?? false
      } else if key.is("junctionsTraversability") {
        junctions =
          try reader.readOptional { r throws(GiveUp) in try r.readEnum() } ?? .allOpen
      } else if key.is("codes") {
        codes = try reader.readOptional { r throws(GiveUp) in try r.readInts() } ?? []
      } else if key.is("location") {
        location = try reader.readLocation()
      } else if key.is("vehicleRestrictions") {
        // Only none is read here; restrictions go to `JSONDecoder`.
        try reader.readEmptyObjectOrNull()
      } else if key.is("details") {
        details =
          try reader.readOptional { r throws(GiveUp) in try r.readDetails() } ?? .none
      } else if key.is("sourceTexts") {
        // A source text is mostly the description itself: then both share one string.
        let known = description?.text
        sourceTexts =
          try reader.readOptional { r throws(GiveUp) in
            try r.readArray { r throws(GiveUp) in try r.readText(reusing: known) }
          } ?? []
      } else if key.is("sources") {
        sources =
          try reader.readOptional { r throws(GiveUp) in
            try r.readArray { r throws(GiveUp) in try r.readSource() }
          } ?? []
      } else {
        throw GiveUp()
      }
    }
    guard let id, let location else { throw GiveUp() }
    do {
      var incident = try TrafficIncident(
        id: id, originalId: originalId, parentId: parentId, type: type, impact: impact,
        description: description, summary: summary, startTime: startTime, endTime: endTime,
        entryTime: entryTime, isRoadClosed: isRoadClosed, junctionsTraversability: junctions,
        codes: codes, location: location, details: details, sourceTexts: sourceTexts)
      incident.sources = sources
      return incident
    } catch {
      throw GiveUp()
    }
  }

  /// A text; `known`, when its characters are the same, is returned instead of a copy.
  private mutating func readText(reusing known: String? = nil) throws(GiveUp) -> LocalizedText {
    var text: String?
    var language: LanguageCode?
    try readObject { reader, key throws(GiveUp) in
      if key.is("text") {
        text = try reader.readString { run in
          known.flatMap { Self.same($0, run) ? $0 : nil }
        }
      } else if key.is("language") {
        let tag = try reader.readString()
        if let known = reader.shared.languages[tag] {
          language = known
        } else {
          do { language = try LanguageCode(tag) } catch { throw GiveUp() }
          if reader.shared.languages.count < SharedValues.languageLimit {
            reader.shared.languages[tag] = language
          }
        }
      } else {
        throw GiveUp()
      }
    }
    guard let text, let language else { throw GiveUp() }
    return LocalizedText(text: text, language: language)
  }

  /// A feed name: the string of the sources read before that name the same feed.
  private mutating func readFeedName() throws(GiveUp) -> String {
    let feeds = shared.feeds
    var isHeld = false
    let name = try readString { run in
      let held = feeds.first { Self.same($0, run) }
      isHeld = held != nil
      return held
    }
    if !isHeld, feeds.count < SharedValues.feedLimit { shared.feeds.append(name) }
    return name
  }

  private mutating func readSource() throws(GiveUp) -> TrafficIncidentSource {
    var feed: String?
    var id: String?
    var digest: String?
    var entryTime: Date?
    var version: Int?
    try readObject { reader, key throws(GiveUp) in
      if key.is("feed") {
        feed = try reader.readFeedName()
      } else if key.is("id") {
        id = try reader.readString()
      } else if key.is("reportDigest") {
        digest = try reader.readOptional { r throws(GiveUp) in try r.readString() }
      } else if key.is("reportEntryTime") {
        entryTime = try reader.readOptional { r throws(GiveUp) in try r.readDate() }
      } else if key.is("reportVersion") {
        version = try reader.readOptional { r throws(GiveUp) in try r.readInt() }
      } else {
        throw GiveUp()
      }
    }
    guard let feed, let id else { throw GiveUp() }
    return TrafficIncidentSource(
      feed: feed, id: id, reportDigest: digest, reportEntryTime: entryTime,
      reportVersion: version)
  }

  private mutating func readLocation() throws(GiveUp) -> TrafficLocation {
    var polyline: GeoPolyline?
    var additional: [GeoPolyline] = []
    var length: Double?
    var description: String?
    var openLR: String?
    try readObject { reader, key throws(GiveUp) in
      if key.is("polyline") {
        polyline = try reader.readPolyline()
      } else if key.is("additionalPolylines") {
        additional =
          try reader.readOptional { r throws(GiveUp) in
            try r.readArray { r throws(GiveUp) in try r.readPolyline() }
          } ?? []
      } else if key.is("lengthInMeters") {
        length = try reader.readOptional { r throws(GiveUp) in try r.readDouble() }
      } else if key.is("description") {
        description = try reader.readOptional { r throws(GiveUp) in try r.readString() }
      } else if key.is("openLR") {
        openLR = try reader.readOptional { r throws(GiveUp) in try r.readString() }
      } else if key.is("tmc") {
        // Only none is read here; TMC references go to `JSONDecoder`.
        try reader.readEmptyArrayOrNull()
      } else {
        throw GiveUp()
      }
    }
    guard let polyline else { throw GiveUp() }
    do {
      return try TrafficLocation(
        polyline: polyline, additionalPolylines: additional, lengthInMeters: length,
        description: description, openLR: openLR)
    } catch {
      throw GiveUp()
    }
  }

  private mutating func readPolyline() throws(GiveUp) -> GeoPolyline {
    let vertices = try readArray { reader throws(GiveUp) in try reader.readCoordinates() }
    do { return try GeoPolyline(vertices: vertices) } catch { throw GiveUp() }
  }

  private mutating func readCoordinates() throws(GiveUp) -> GeoCoordinates {
    var latitude: Double?
    var longitude: Double?
    var altitude: Double?
    try readObject { reader, key throws(GiveUp) in
      if key.is("lat") {
        latitude = try reader.readDouble()
      } else if key.is("lng") {
        longitude = try reader.readDouble()
      } else if key.is("alt") {
        altitude = try reader.readOptional { r throws(GiveUp) in try r.readDouble() }
      } else {
        throw GiveUp()
      }
    }
    guard let latitude, let longitude else { throw GiveUp() }
    do {
      return try GeoCoordinates(latitude: latitude, longitude: longitude, altitude: altitude)
    } catch {
      throw GiveUp()
    }
  }

  private mutating func readDetails() throws(GiveUp) -> TrafficIncidentDetails {
    // By position in `detailStrings`.
    var strings = [String?](repeating: nil, count: Self.detailStrings.count)
    var lanesClosed: Int?
    var totalLanes: Int?
    var closedLanes: [Int]?
    var queueRisk = false
    var queueLength: Double?
    var delay: Double?
    var eventKind: TrafficEventKind?
    var cause: LocalizedText?
    var timeZone: TimeZone?
    try readObject { reader, key throws(GiveUp) in
      if key.is("lanesClosed") {
        lanesClosed = try reader.readOptional { r throws(GiveUp) in try r.readInt() }
      } else if key.is("totalLanes") {
        totalLanes = try reader.readOptional { r throws(GiveUp) in try r.readInt() }
      } else if key.is("closedLanes") {
        closedLanes = try reader.readOptional { r throws(GiveUp) in try r.readInts() }
      } else if key.is("queueRisk") {
        queueRisk = try reader.readOptional { r throws(GiveUp) in try r.readBool() } ?? false
      } else if key.is("queueLengthInMeters") {
        queueLength = try reader.readOptional { r throws(GiveUp) in try r.readDouble() }
      } else if key.is("delayInSeconds") {
        delay = try reader.readOptional { r throws(GiveUp) in try r.readDouble() }
      } else if key.is("eventKind") {
        eventKind = try reader.readOptional { r throws(GiveUp) in try r.readEnum() }
      } else if key.is("cause") {
        cause = try reader.readOptional { r throws(GiveUp) in try r.readText() }
      } else if key.is("timeZone") {
        if let identifier = try reader.readOptional({ r throws(GiveUp) in try r.readString() }) {
          guard let zone = TimeZone(identifier: identifier) else { throw GiveUp() }
          timeZone = zone
        }
      } else if let slot = Self.detailStrings.firstIndex(where: { key.is($0) }) {
        strings[slot] = try reader.readOptional { r throws(GiveUp) in try r.readString() }
      } else {
        throw GiveUp()
      }
    }
    do {
      return try TrafficIncidentDetails(
        countryCode: strings[0], area: strings[1], roadName: strings[2],
        roadNumber: strings[3], towards: strings[4], fromJunction: strings[5],
        toJunction: strings[6], atJunction: strings[7],
        lanesClosed: lanesClosed, totalLanes: totalLanes, closedLanes: closedLanes,
        queueRisk: queueRisk,
        queueLengthInMeters: queueLength, delayInSeconds: delay, eventKind: eventKind,
        cause: cause, timeZone: timeZone)
    } catch {
      throw GiveUp()
    }
  }

  /// The string members of `TrafficIncidentDetails`, in the order its initialiser takes them.
  private static let detailStrings: [StaticString] = [
    "countryCode", "area", "roadName", "roadNumber", "towards", "fromJunction", "toJunction",
    "atJunction",
  ]
}
