import Foundation
import Toolbox

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

  private let bytes: UnsafeRawBufferPointer
  private var offset = 0
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

  // MARK: JSON values

  /// A member name in the body, compared without making a string of it.
  struct Key {
    let bytes: UnsafeRawBufferPointer

    func `is`(_ name: StaticString) -> Bool {
      guard name.utf8CodeUnitCount == bytes.count, let base = bytes.baseAddress else {
        return false
      }
      return memcmp(name.utf8Start, base, bytes.count) == 0
    }
  }

  private mutating func skipWhitespace() {
    while offset < bytes.count {
      switch bytes[offset] {
      case 0x20, 0x0A, 0x0D, 0x09: offset += 1
      default: return
      }
    }
  }

  private mutating func expect(_ byte: UInt8) throws(GiveUp) {
    skipWhitespace()
    guard offset < bytes.count, bytes[offset] == byte else { throw GiveUp() }
    offset += 1
  }

  /// Consumes `byte` (after whitespace) if it comes next.
  private mutating func take(_ byte: UInt8) -> Bool {
    skipWhitespace()
    guard offset < bytes.count, bytes[offset] == byte else { return false }
    offset += 1
    return true
  }

  /// `null` as `nil`, else the value `read` reads.
  private mutating func readOptional<Value>(
    _ read: (inout StoredIncidentReader) throws(GiveUp) -> Value
  ) throws(GiveUp) -> Value? {
    skipWhitespace()
    if offset + 4 <= bytes.count, bytes[offset] == UInt8(ascii: "n") {
      guard bytes[offset + 1] == UInt8(ascii: "u"), bytes[offset + 2] == UInt8(ascii: "l"),
        bytes[offset + 3] == UInt8(ascii: "l")
      else { throw GiveUp() }
      offset += 4
      return nil
    }
    return try read(&self)
  }

  private mutating func readObject(
    _ member: (inout StoredIncidentReader, Key) throws(GiveUp) -> Void
  ) throws(GiveUp) {
    try expect(UInt8(ascii: "{"))
    if take(UInt8(ascii: "}")) { return }
    repeat {
      let key = try readKey()
      try expect(UInt8(ascii: ":"))
      try member(&self, key)
    } while take(UInt8(ascii: ","))
    try expect(UInt8(ascii: "}"))
  }

  private mutating func readArray<Element>(
    _ element: (inout StoredIncidentReader) throws(GiveUp) -> Element
  ) throws(GiveUp) -> [Element] {
    try expect(UInt8(ascii: "["))
    var elements: [Element] = []
    if take(UInt8(ascii: "]")) { return elements }
    repeat {
      elements.append(try element(&self))
    } while take(UInt8(ascii: ","))
    try expect(UInt8(ascii: "]"))
    return elements
  }

  private mutating func readEmptyObjectOrNull() throws(GiveUp) {
    _ = try readOptional { r throws(GiveUp) in
      try r.expect(UInt8(ascii: "{"))
      try r.expect(UInt8(ascii: "}"))
    }
  }

  private mutating func readEmptyArrayOrNull() throws(GiveUp) {
    _ = try readOptional { r throws(GiveUp) in
      try r.expect(UInt8(ascii: "["))
      try r.expect(UInt8(ascii: "]"))
    }
  }

  /// A member name without escapes (every name the coder writes).
  private mutating func readKey() throws(GiveUp) -> Key {
    try expect(UInt8(ascii: "\""))
    let start = offset
    while offset < bytes.count, bytes[offset] != UInt8(ascii: "\"") {
      guard bytes[offset] != UInt8(ascii: "\\") else { throw GiveUp() }
      offset += 1
    }
    guard offset < bytes.count else { throw GiveUp() }
    let key = Key(bytes: UnsafeRawBufferPointer(rebasing: bytes[start..<offset]))
    offset += 1
    return key
  }

  private mutating func readString() throws(GiveUp) -> String {
    try expect(UInt8(ascii: "\""))
    let start = offset
    var isASCII = true
    while offset < bytes.count {
      let byte = bytes[offset]
      if byte == UInt8(ascii: "\"") {
        let run = bytes[start..<offset]
        offset += 1
        if isASCII { return String(decoding: run, as: UTF8.self) }
        // Bytes that are not UTF-8 are an error, as for `JSONDecoder`, not repaired.
        guard let text = String(validating: run, as: UTF8.self) else { throw GiveUp() }
        return text
      }
      if byte >= 0x80 { isASCII = false }
      if byte == UInt8(ascii: "\\") {
        offset = start
        return try readEscapedString()
      }
      guard byte >= 0x20 else { throw GiveUp() }
      offset += 1
    }
    throw GiveUp()
  }

  /// The rest of a string with escapes, from its first character: delimited here, decoded
  /// by the project's JSON parser (escapes, surrogate pairs, UTF-8 validation).
  private mutating func readEscapedString() throws(GiveUp) -> String {
    let opening = offset - 1
    var index = offset
    while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
      index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
    }
    guard index < bytes.count else { throw GiveUp() }
    offset = index + 1
    guard case .string(let text)? = try? JSONParser.parse(Data(bytes[opening...index])) else {
      throw GiveUp()
    }
    return text
  }

  private mutating func readEnum<Value: RawRepresentable<String>>() throws(GiveUp) -> Value {
    guard let value = Value(rawValue: try readString()) else { throw GiveUp() }
    return value
  }

  private mutating func readBool() throws(GiveUp) -> Bool {
    skipWhitespace()
    if bytes[offset...].starts(with: "true".utf8) {
      offset += 4
      return true
    }
    if bytes[offset...].starts(with: "false".utf8) {
      offset += 5
      return false
    }
    throw GiveUp()
  }

  /// The text of a JSON number: `-? digits (. digits)? ([eE] [+-]? digits)?`.
  private mutating func numberText() throws(GiveUp) -> (start: Int, isInteger: Bool) {
    skipWhitespace()
    let start = offset
    var isInteger = true
    if offset < bytes.count, bytes[offset] == UInt8(ascii: "-") { offset += 1 }
    // No leading zeros (`01`), as JSON says.
    if offset + 1 < bytes.count, bytes[offset] == UInt8(ascii: "0"),
      (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[offset + 1])
    {
      throw GiveUp()
    }
    func digits(_ reader: inout StoredIncidentReader) throws(GiveUp) {
      let first = reader.offset
      while reader.offset < reader.bytes.count,
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(reader.bytes[reader.offset])
      {
        reader.offset += 1
      }
      guard reader.offset > first else { throw GiveUp() }
    }
    try digits(&self)
    if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
      isInteger = false
      offset += 1
      try digits(&self)
    }
    if offset < bytes.count, bytes[offset] | 0x20 == UInt8(ascii: "e") {
      isInteger = false
      offset += 1
      if offset < bytes.count,
        bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-")
      {
        offset += 1
      }
      try digits(&self)
    }
    guard offset - start <= 64 else { throw GiveUp() }
    return (start, isInteger)
  }

  private mutating func readDouble() throws(GiveUp) -> Double {
    let (start, _) = try numberText()
    let count = offset - start
    // glibc's correctly rounded `strtod` on a NUL-terminated copy of the number (at most 64
    // bytes, checked) on the stack. Under a locale whose decimal point is not "." it stops
    // early; the end check then gives up, and `JSONDecoder` reads the body.
    let number = withUnsafeTemporaryAllocation(of: CChar.self, capacity: 65) { buffer in
      guard let base = buffer.baseAddress else { return Double.nan }
      for index in 0..<count { buffer[index] = CChar(bitPattern: bytes[start + index]) }
      buffer[count] = 0
      var end: UnsafeMutablePointer<CChar>?
      errno = 0
      let value = strtod(base, &end)
      // Out of range (overflow, underflow to zero or a subnormal): `JSONDecoder` decides.
      guard errno == 0 else { return Double.nan }
      return end == base + count ? value : .nan
    }
    guard number.isFinite else { throw GiveUp() }
    return number
  }

  private mutating func readInt() throws(GiveUp) -> Int {
    let (start, isInteger) = try numberText()
    guard isInteger, offset - start <= 18 else { throw GiveUp() }
    var value = 0
    var index = start
    let negative = bytes[index] == UInt8(ascii: "-")
    if negative { index += 1 }
    while index < offset {
      value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
      index += 1
    }
    return negative ? -value : value
  }

  private mutating func readInts() throws(GiveUp) -> [Int] {
    try readArray { reader throws(GiveUp) in try reader.readInt() }
  }

  private mutating func readDate() throws(GiveUp) -> Date {
    Date(timeIntervalSinceReferenceDate: try readDouble())
  }
}
