import Foundation
import Toolbox

/// The document formats of vehicle probes (API.md, "Probe formats").
public enum ProbeFormat: String, CaseIterable, Hashable, Sendable {
  /// Comma-separated values with a header naming at least `id,time,lat,lng`; optional
  /// `speed` (m/s), `heading` (degrees from north), `accuracy` (m).
  case csv
  /// One JSON object per line with the keys of the CSV format.
  case ndjson
  /// SUMO floating-car data written with `--fcd-output.geo true`:
  /// `<timestep time=..><vehicle id x=lng y=lat speed angle .../>`.
  case sumoFCD = "fcd"

  /// Guesses the format from the first non-blank byte: `<` is FCD XML, `{` NDJSON, anything
  /// else CSV.
  ///
  /// - Complexity: O(n) in the leading blanks.
  public static func detect(_ data: Data) -> ProbeFormat? {
    guard let first = data.first(where: { !ProbeDecoder.isBlank($0) }) else { return nil }
    switch first {
    case UInt8(ascii: "<"): return .sumoFCD
    case UInt8(ascii: "{"): return .ndjson
    default: return .csv
    }
  }
}

/// Reads probe documents into ``ProbeBatch``es: CSV, NDJSON and SUMO FCD XML.
///
/// Rows are checked one by one — an unreadable value, a coordinate out of range, a time in
/// the future or a repeated (vehicle, time) pair rejects that row with a reason and the rest
/// of the document is still read.
///
/// Times are RFC 3339 (`2025-03-01T08:00:00Z`, fractional seconds and offsets allowed) or
/// Unix seconds (values above 10^11 are read as milliseconds). FCD times are simulation
/// seconds, added to ``simulationStart``.
public struct ProbeDecoder: Sendable {
  /// The current time, for the future check.
  public var now: Date
  /// How far in the future a probe time may be (receiver clocks drift), seconds.
  public var maxClockSkewInSeconds: TimeInterval = 300
  /// The date of simulation second 0 of SUMO FCD; `nil` aligns the last time step with
  /// ``now`` (a simulation replayed as if it had just happened).
  public var simulationStart: Date?
  /// At most this many rejected rows are kept with their details.
  public var maxRejectionDetails = 100

  /// Creates a decoder.
  ///
  /// - Parameters:
  ///   - now: the current time; the system clock by default.
  ///   - simulationStart: the date of FCD simulation second 0; see ``simulationStart``.
  public init(now: Date = Date(), simulationStart: Date? = nil) {
    self.now = now
    self.simulationStart = simulationStart
  }

  /// Reads a document.
  ///
  /// - Parameters:
  ///   - data: the document.
  ///   - format: its format; detected from the content when `nil`.
  /// - Returns: the accepted probes and the rejected rows by reason.
  /// - Throws: ``ProbeDecodingError/unknownFormat`` for an empty document,
  ///   ``ProbeDecodingError/missingColumns(_:)`` for a CSV header without `id`, `time`, `lat`
  ///   or `lng`, ``ProbeDecodingError/malformed(line:reason:)`` for FCD XML that breaks off
  ///   inside a tag.
  /// - Complexity: O(n) in the document's length.
  public func decode(
    _ data: Data, format: ProbeFormat? = nil
  ) throws(ProbeDecodingError)
    -> ProbeBatch
  {
    guard let format = format ?? ProbeFormat.detect(data) else { throw .unknownFormat }
    var sink = Sink(decoder: self)
    switch format {
    case .csv: try decodeCSV(data, into: &sink)
    case .ndjson: decodeNDJSON(data, into: &sink)
    case .sumoFCD: try decodeFCD(data, into: &sink)
    }
    return sink.batch
  }

  static func isBlank(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0xEF || byte == 0xBB
      || byte == 0xBF
  }

  /// Collects accepted probes and rejections, checking ranges and duplicates.
  struct Sink {
    let decoder: ProbeDecoder
    var batch = ProbeBatch()
    var seen: Set<Key> = []

    struct Key: Hashable {
      let vehicleID: String
      let time: Date
    }

    init(decoder: ProbeDecoder) { self.decoder = decoder }

    mutating func reject(_ line: Int, _ reason: ProbeRejectionReason, _ detail: String) {
      batch.rejectedCounts[reason, default: 0] += 1
      if batch.rejections.count < decoder.maxRejectionDetails {
        batch.rejections.append(ProbeRejection(line: line, reason: reason, detail: detail))
      }
    }

    /// Checks and adds one row; `time` may be `nil` for FCD rows aligned later.
    mutating func add(
      line: Int, id: String?, time: Date?, latitude: Double?, longitude: Double?,
      speed: Double?, heading: Double?, accuracy: Double?, checkFuture: Bool = true
    ) {
      guard let id, !id.isEmpty else { return reject(line, .unparseable, "missing id") }
      guard let time else { return reject(line, .unparseable, "missing or unreadable time") }
      guard let latitude, let longitude else {
        return reject(line, .unparseable, "missing or unreadable lat/lng")
      }
      guard let coordinates = try? GeoCoordinates(latitude: latitude, longitude: longitude)
      else {
        return reject(line, .outOfRange, "lat \(latitude), lng \(longitude) out of range")
      }
      if let speed, !(speed.isFinite && speed >= 0 && speed <= 150) {
        return reject(line, .outOfRange, "speed \(speed) m/s out of 0...150")
      }
      if let heading, !(heading.isFinite && heading >= -360 && heading <= 360) {
        return reject(line, .outOfRange, "heading \(heading) out of 0...360")
      }
      if let accuracy, !(accuracy.isFinite && accuracy >= 0 && accuracy <= 100_000) {
        return reject(line, .outOfRange, "accuracy \(accuracy) m out of range")
      }
      if checkFuture, time.timeIntervalSince(decoder.now) > decoder.maxClockSkewInSeconds {
        return reject(
          line, .timeInFuture,
          "time \(RFC3339.format(time)) is after now (\(RFC3339.format(decoder.now)))")
      }
      guard time.timeIntervalSince1970 >= 0 else {
        return reject(line, .outOfRange, "time \(RFC3339.format(time)) is before 1970")
      }
      guard seen.insert(Key(vehicleID: id, time: time)).inserted else {
        return reject(
          line, .duplicate, "vehicle \(id) already reported time \(RFC3339.format(time))")
      }
      var normalized = heading
      if let heading, heading < 0 { normalized = heading + 360 }
      batch.probes.append(
        Probe(
          vehicleID: id, time: time, coordinates: coordinates, speedInMetersPerSecond: speed,
          headingInDegrees: normalized, accuracyInMeters: accuracy))
    }
  }

  // MARK: Times

  /// Parses a time: Unix seconds (or milliseconds above 10^11), or RFC 3339.
  static func parseTime(_ text: Substring) -> Date? {
    let trimmed = text.trimmingWhitespace
    if let seconds = decimal(trimmed), seconds.isFinite {
      return Date(timeIntervalSince1970: abs(seconds) > 1e11 ? seconds / 1000 : seconds)
    }
    return RFC3339.parse(trimmed)
  }

  /// A number in decimal notation (`-12.5`, `1e3`), infinite when it overflows (`1e400`);
  /// `nil` for other text, such as `nan`, `inf` or hexadecimal, which `Double(_:)` would
  /// accept.
  ///
  /// - Complexity: O(n) in the length of the text.
  static func decimal(_ text: some StringProtocol) -> Double? {
    guard !text.isEmpty,
      text.utf8.allSatisfy({
        ($0 >= 48 && $0 <= 57) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-")
          || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E")
      })
    else { return nil }
    return Double(String(text))
  }

  // MARK: CSV

  /// Reads CSV byte-wise (lines end in LF or CRLF; separators and quotes are ASCII, so
  /// UTF-8 text in fields passes through); one `String` per field, mostly small enough to
  /// be stored inline.
  func decodeCSV(_ data: Data, into sink: inout Sink) throws(ProbeDecodingError) {
    let bytes = [UInt8](data)
    var lineNumber = 0
    var columns: [String: Int]?
    var fields: [String] = []
    var start = 0
    while start <= bytes.count {
      let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
      var lineEnd = end
      if lineEnd > start, bytes[lineEnd - 1] == UInt8(ascii: "\r") { lineEnd -= 1 }
      let line = bytes[start..<lineEnd]
      start = end + 1
      lineNumber += 1
      if line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) { continue }
      ProbeDecoder.splitCSV(line, into: &fields)
      guard let header = columns else {
        var names: [String: Int] = [:]
        for (i, field) in fields.enumerated() {
          let name = field.trimmingCharacters(in: .whitespaces).lowercased()
            .trimmingCharacters(in: CharacterSet(charactersIn: "\u{FEFF}"))
          if let key = ProbeDecoder.columnAliases[name], names[key] == nil { names[key] = i }
        }
        let missing = ["id", "time", "lat", "lng"].filter { names[$0] == nil }
        guard missing.isEmpty else { throw .missingColumns(missing) }
        columns = names
        continue
      }
      func field(_ name: String) -> Substring? {
        guard let i = header[name], i < fields.count else { return nil }
        let value = fields[i].trimmingWhitespace
        return value.isEmpty ? nil : Substring(value)
      }
      var unreadable: String?
      func number(_ name: String) -> Double? {
        guard let text = field(name) else { return nil }
        guard let value = ProbeDecoder.decimal(text) else {
          unreadable = "\(name) \"\(text)\" is not a number"
          return nil
        }
        return value
      }
      let latitude = number("lat"), longitude = number("lng")
      let speed = number("speed"), heading = number("heading"), accuracy = number("accuracy")
      let time = field("time").flatMap(ProbeDecoder.parseTime)
      if let unreadable {
        sink.reject(lineNumber, .unparseable, unreadable)
        continue
      }
      sink.add(
        line: lineNumber, id: field("id").map(String.init), time: time, latitude: latitude,
        longitude: longitude, speed: speed, heading: heading, accuracy: accuracy)
    }
  }

  /// Header names and the key each stands for.
  static let columnAliases: [String: String] = [
    "id": "id", "vehicle": "id", "vehicleid": "id", "vehicle_id": "id", "device": "id",
    "time": "time", "timestamp": "time",
    "lat": "lat", "latitude": "lat",
    "lng": "lng", "lon": "lng", "long": "lng", "longitude": "lng",
    "speed": "speed", "heading": "heading", "bearing": "heading", "accuracy": "accuracy",
  ]

  /// Splits one CSV line at commas outside double quotes into `fields`; `""` inside quotes
  /// is a quote.
  static func splitCSV(_ line: ArraySlice<UInt8>, into fields: inout [String]) {
    fields.removeAll(keepingCapacity: true)
    var current: [UInt8] = []
    var fieldStart = line.startIndex
    var quoted = false
    var hadQuotes = false
    var index = line.startIndex
    while index < line.endIndex {
      let byte = line[index]
      if quoted {
        if byte == UInt8(ascii: "\"") {
          let next = line.index(after: index)
          if next < line.endIndex, line[next] == UInt8(ascii: "\"") {
            current.append(byte)
            index = next
          } else {
            quoted = false
          }
        } else {
          current.append(byte)
        }
      } else if byte == UInt8(ascii: "\"") {
        // The field so far, then quoted text: copy what came before the quote.
        if !hadQuotes { current.append(contentsOf: line[fieldStart..<index]) }
        quoted = true
        hadQuotes = true
      } else if byte == UInt8(ascii: ",") {
        fields.append(
          hadQuotes
            ? String(decoding: current, as: UTF8.self)
            : String(decoding: line[fieldStart..<index], as: UTF8.self))
        current.removeAll(keepingCapacity: true)
        hadQuotes = false
        fieldStart = line.index(after: index)
      } else if hadQuotes {
        current.append(byte)
      }
      index = line.index(after: index)
    }
    fields.append(
      hadQuotes
        ? String(decoding: current, as: UTF8.self)
        : String(decoding: line[fieldStart..<line.endIndex], as: UTF8.self))
  }

  // MARK: NDJSON

  func decodeNDJSON(_ data: Data, into sink: inout Sink) {
    var lineNumber = 0
    let reader = JSONDecoder()
    for line in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
      lineNumber += 1
      guard line.contains(where: { !ProbeDecoder.isBlank($0) }) else { continue }
      let row: NDJSONRow
      do {
        row = try reader.decode(NDJSONRow.self, from: Data(line))
      } catch let error as NDJSONRow.BadValue {
        sink.reject(lineNumber, .unparseable, "\(error.key) is not a number")
        continue
      } catch {
        sink.reject(lineNumber, .unparseable, "not a JSON object")
        continue
      }
      sink.add(
        line: lineNumber, id: row.id,
        time: row.time.flatMap { ProbeDecoder.parseTime(Substring($0)) },
        latitude: row.lat, longitude: row.lng, speed: row.speed, heading: row.heading,
        accuracy: row.accuracy)
    }
  }

  /// One NDJSON object; numbers may also be given as strings, the id as a number.
  struct NDJSONRow: Decodable {
    var id: String?
    var time: String?
    var lat: Double?
    var lng: Double?
    var speed: Double?
    var heading: Double?
    var accuracy: Double?

    struct BadValue: Error { let key: String }

    struct Key: CodingKey {
      var stringValue: String
      var intValue: Int? { nil }
      init(stringValue: String) { self.stringValue = stringValue }
      init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: Key.self)
      func text(_ keys: [String]) -> String? {
        for name in keys {
          let key = Key(stringValue: name)
          if let value = try? container.decode(String.self, forKey: key) { return value }
          if let value = try? container.decode(Int64.self, forKey: key) { return String(value) }
          if let value = try? container.decode(Double.self, forKey: key) { return String(value) }
        }
        return nil
      }
      func number(_ keys: [String]) throws -> Double? {
        for name in keys {
          let key = Key(stringValue: name)
          guard container.contains(key), (try? container.decodeNil(forKey: key)) != true else {
            continue
          }
          if let value = try? container.decode(Double.self, forKey: key) { return value }
          if let value = try? container.decode(String.self, forKey: key),
            let number = ProbeDecoder.decimal(value.trimmingWhitespace)
          {
            return number
          }
          throw BadValue(key: keys[0])
        }
        return nil
      }
      id = text(["id", "vehicleId", "vehicle"])
      time = text(["time", "timestamp"])
      lat = try number(["lat", "latitude"])
      lng = try number(["lng", "lon", "longitude"])
      speed = try number(["speed"])
      heading = try number(["heading", "bearing"])
      accuracy = try number(["accuracy"])
    }
  }

  // MARK: SUMO FCD

  func decodeFCD(_ data: Data, into sink: inout Sink) throws(ProbeDecodingError) {
    var rows:
      [(
        line: Int, id: String?, seconds: Double, lat: Double?, lng: Double?,
        speed: Double?, heading: Double?
      )] = []
    var simulationTime: Double?
    var lineOfTime = 0
    var failure: ProbeDecodingError?
    data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
      var scanner = XMLTagScanner(bytes: buffer)
      do throws(ProbeDecodingError) {
        while let tag = try scanner.next() {
          switch tag.name {
          case "timestep":
            lineOfTime = tag.line
            simulationTime = tag.attributes["time"].flatMap { ProbeDecoder.decimal($0) }
            if simulationTime == nil {
              sink.reject(tag.line, .unparseable, "timestep without a readable time")
            }
          case "vehicle", "person", "container":
            guard let seconds = simulationTime, lineOfTime > 0 else {
              sink.reject(tag.line, .unparseable, "\(tag.name) outside a readable timestep")
              continue
            }
            let attributes = tag.attributes
            func number(_ key: String) -> Double?? {
              guard let text = attributes[key] else { return .some(nil) }
              guard let value = ProbeDecoder.decimal(text) else { return nil }
              return .some(value)
            }
            guard let lng = number("x") ?? number("lon"), let lat = number("y") ?? number("lat"),
              let speed = number("speed"), let heading = number("angle")
            else {
              sink.reject(tag.line, .unparseable, "a number does not parse")
              continue
            }
            rows.append((tag.line, attributes["id"], seconds, lat, lng, speed, heading))
          default:
            continue
          }
        }
      } catch {
        failure = error
      }
    }
    if let failure { throw failure }
    let start =
      simulationStart ?? decoder(alignedLast: rows.map(\.seconds).max() ?? 0)
    for row in rows {
      sink.add(
        line: row.line, id: row.id, time: start.addingTimeInterval(row.seconds),
        latitude: row.lat, longitude: row.lng, speed: row.speed, heading: row.heading,
        accuracy: nil)
    }
  }

  private func decoder(alignedLast seconds: Double) -> Date {
    now.addingTimeInterval(-seconds)
  }
}

/// A minimal scanner of XML start tags and their attributes — enough for SUMO's flat
/// floating-car data, where everything lives in attributes. Comments, processing
/// instructions, declarations and end tags are skipped; entities in values are decoded.
struct XMLTagScanner {
  struct Tag {
    var name: String
    var attributes: [String: String]
    var line: Int
  }

  let bytes: UnsafeRawBufferPointer
  var index = 0
  var line = 1

  init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

  private mutating func advance() {
    if bytes[index] == 0x0A { line += 1 }
    index += 1
  }

  private func starts(with text: String, at position: Int) -> Bool {
    var i = position
    for byte in text.utf8 {
      guard i < bytes.count, bytes[i] == byte else { return false }
      i += 1
    }
    return true
  }

  /// Skips to just after `terminator`; fails at the end of input.
  private mutating func skip(past terminator: String, opened: Int) throws(ProbeDecodingError) {
    while index < bytes.count {
      if starts(with: terminator, at: index) {
        for _ in 0..<terminator.utf8.count { advance() }
        return
      }
      advance()
    }
    throw .malformed(line: opened, reason: "unterminated markup (expected \"\(terminator)\")")
  }

  /// The next start (or empty-element) tag, or `nil` at the end.
  mutating func next() throws(ProbeDecodingError) -> Tag? {
    while index < bytes.count {
      guard bytes[index] == UInt8(ascii: "<") else {
        advance()
        continue
      }
      let opened = line
      if starts(with: "<!--", at: index) {
        try skip(past: "-->", opened: opened)
        continue
      }
      if starts(with: "<?", at: index) || starts(with: "<!", at: index)
        || starts(with: "</", at: index)
      {
        try skip(past: ">", opened: opened)
        continue
      }
      advance()
      let nameStart = index
      while index < bytes.count, !isNameEnd(bytes[index]) { advance() }
      let name = string(nameStart..<index)
      guard !name.isEmpty else { throw .malformed(line: opened, reason: "a tag without a name") }
      var attributes: [String: String] = [:]
      while true {
        while index < bytes.count, isSpace(bytes[index]) { advance() }
        guard index < bytes.count else {
          throw .malformed(line: opened, reason: "the document ends inside <\(name)>")
        }
        if bytes[index] == UInt8(ascii: ">") {
          advance()
          break
        }
        if starts(with: "/>", at: index) {
          advance()
          advance()
          break
        }
        let keyStart = index
        while index < bytes.count, bytes[index] != UInt8(ascii: "="), !isNameEnd(bytes[index]) {
          advance()
        }
        let key = string(keyStart..<index)
        while index < bytes.count, isSpace(bytes[index]) { advance() }
        guard index < bytes.count, bytes[index] == UInt8(ascii: "="), !key.isEmpty else {
          throw .malformed(line: line, reason: "attribute without a value in <\(name)>")
        }
        advance()
        while index < bytes.count, isSpace(bytes[index]) { advance() }
        guard index < bytes.count,
          bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'")
        else {
          throw .malformed(line: line, reason: "unquoted attribute \(key) in <\(name)>")
        }
        let quote = bytes[index]
        advance()
        let valueStart = index
        while index < bytes.count, bytes[index] != quote { advance() }
        guard index < bytes.count else {
          throw .malformed(line: opened, reason: "the document ends inside an attribute")
        }
        attributes[key] = XMLTagScanner.decodeEntities(string(valueStart..<index))
        advance()
      }
      return Tag(name: name, attributes: attributes, line: opened)
    }
    return nil
  }

  private func isSpace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
  }

  private func isNameEnd(_ byte: UInt8) -> Bool {
    isSpace(byte) || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "/")
  }

  private func string(_ range: Range<Int>) -> String {
    String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
  }

  static func decodeEntities(_ text: String) -> String {
    guard text.contains("&") else { return text }
    return text.replacingOccurrences(of: "&lt;", with: "<")
      .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&quot;", with: "\"")
      .replacingOccurrences(of: "&apos;", with: "'").replacingOccurrences(of: "&amp;", with: "&")
  }
}
