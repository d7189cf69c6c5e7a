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

  /// Language tags already validated, by their text: a store holds a handful of languages
  /// in a million texts, and validating a tag (Unicode letter tests) cost more than the
  /// rest of a text. Used from one thread at a time, as the coder holding it.
  final class Languages {
    fileprivate var known: [String: LanguageCode] = [:]
    init() {}
  }

  let bytes: UnsafeRawBufferPointer
  var offset = 0
  private let languages: Languages

  /// The incident in `body`, or `nil` when `JSONDecoder` must read it.
  static func incident(in body: Data, languages: Languages = Languages()) -> TrafficIncident? {
    body.withUnsafeBytes { bytes -> TrafficIncident? in
      var reader = StoredIncidentReader(bytes: bytes, languages: languages)
      do {
        let incident = try reader.readIncident()
        reader.skipWhitespace()
        return reader.offset == bytes.count ? incident : nil
      } catch {
        return nil
      }
    }
  }

  private init(bytes: UnsafeRawBufferPointer, languages: Languages) {
    self.bytes = bytes
    self.languages = languages
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
        sourceTexts =
          try reader.readOptional { r throws(GiveUp) in
            try r.readArray { r throws(GiveUp) in try r.readText() }
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

  private mutating func readText() throws(GiveUp) -> LocalizedText {
    var text: String?
    var language: LanguageCode?
    try readObject { reader, key throws(GiveUp) in
      if key.is("text") {
        text = try reader.readString()
      } else if key.is("language") {
        let tag = try reader.readString()
        if let known = reader.languages.known[tag] {
          language = known
        } else {
          do { language = try LanguageCode(tag) } catch { throw GiveUp() }
          if reader.languages.known.count < 1_000 { reader.languages.known[tag] = language }
        }
      } else {
        throw GiveUp()
      }
    }
    guard let text, let language else { throw GiveUp() }
    return LocalizedText(text: text, language: language)
  }

  private mutating func readSource() throws(GiveUp) -> TrafficIncidentSource {
    var feed: String?
    var id: String?
    var digest: String?
    var entryTime: Date?
    try readObject { reader, key throws(GiveUp) in
      if key.is("feed") {
        feed = try reader.readString()
      } else if key.is("id") {
        id = try reader.readString()
      } else if key.is("reportDigest") {
        digest = try reader.readOptional { r throws(GiveUp) in try r.readString() }
      } else if key.is("reportEntryTime") {
        entryTime = try reader.readOptional { r throws(GiveUp) in try r.readDate() }
      } else {
        throw GiveUp()
      }
    }
    guard let feed, let id else { throw GiveUp() }
    return TrafficIncidentSource(
      feed: feed, id: id, reportDigest: digest, reportEntryTime: entryTime)
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
    var strings: [String: String] = [:]
    var lanesClosed: Int?
    var totalLanes: Int?
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
      } else if let name = Self.detailStrings.first(where: { key.is($0) }) {
        if let value = try reader.readOptional({ r throws(GiveUp) in try r.readString() }) {
          strings[name.description] = value
        }
      } else {
        throw GiveUp()
      }
    }
    do {
      return try TrafficIncidentDetails(
        countryCode: strings["countryCode"], area: strings["area"],
        roadName: strings["roadName"], roadNumber: strings["roadNumber"],
        towards: strings["towards"], fromJunction: strings["fromJunction"],
        toJunction: strings["toJunction"], atJunction: strings["atJunction"],
        lanesClosed: lanesClosed, totalLanes: totalLanes, queueRisk: queueRisk,
        queueLengthInMeters: queueLength, delayInSeconds: delay, eventKind: eventKind,
        cause: cause, timeZone: timeZone)
    } catch {
      throw GiveUp()
    }
  }

  /// The string members of `TrafficIncidentDetails`.
  private static let detailStrings: [StaticString] = [
    "countryCode", "area", "roadName", "roadNumber", "towards", "fromJunction", "toJunction",
    "atJunction",
  ]
}
