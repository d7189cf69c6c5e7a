import Codec

/// Reads and writes Well-Known Text geometries (OGC 06-103r4, "Simple Feature Access - Part 1:
/// Common Architecture", section 7), with PostGIS's `SRID=4326;` prefix (EWKT).
///
/// Axis order is `x y` = longitude latitude, as in the standard and in GeoJSON. Supported
/// types: POINT, MULTIPOINT, LINESTRING, MULTILINESTRING, POLYGON and MULTIPOLYGON, each with
/// an optional `Z`, `M` or `ZM` tag (written apart or attached, `POINTZ`); keywords are
/// case-insensitive and whitespace is free. `Z` values become altitudes and `M` values are
/// dropped. Without a tag positions have 2, 3 (x y z) or 4 (x y z m) numbers, the same
/// count throughout the geometry.
/// EMPTY geometries are rejected, since `GeoGeometry` has no empty value.
public enum WKT {
  /// The format name used in errors.
  static let format = "WKT"

  // MARK: - Parsing

  /// Parses Well-Known Text.
  ///
  /// - Parameter text: E.g. `"SRID=4326;LINESTRING Z (8.69821 50.10228 110, 8.69567 50.10201 112)"`.
  /// - Returns: The geometry.
  /// - Throws: `GeoError.malformed(format: "WKT", position:, reason:)` with the character offset
  ///   of the problem: an unknown keyword, an SRID other than 4326, EMPTY, a missing or extra
  ///   parenthesis or comma, a position with the wrong number of values, a number that does not
  ///   parse, a latitude/longitude out of range, a line string of fewer than 2 positions, an open
  ///   ring or one of fewer than 4 positions, or text after the geometry.
  /// - Complexity: O(n) in the length of `text`.
  public static func parse(_ text: String) throws(GeoError) -> GeoGeometry {
    var parser = Parser(bytes: Array(text.utf8))
    let geometry = try parser.parseDocument()
    return geometry
  }

  private static func failure(_ position: Int?, _ reason: String) -> GeoError {
    .malformed(format: format, position: position, reason: reason)
  }

  private enum Kind: String, CaseIterable {
    case point = "POINT"
    case multiPoint = "MULTIPOINT"
    case lineString = "LINESTRING"
    case multiLineString = "MULTILINESTRING"
    case polygon = "POLYGON"
    case multiPolygon = "MULTIPOLYGON"
  }

  /// How many numbers a position holds, from the dimension tag.
  private enum Dimensions {
    /// No tag: 2, 3 (z) or 4 (z, m).
    case untagged
    /// `Z`: x y z.
    case z
    /// `M`: x y m.
    case m
    /// `ZM`: x y z m.
    case zm

    var allowedCounts: ClosedRange<Int> {
      switch self {
      case .untagged: return 2...4
      case .z, .m: return 3...3
      case .zm: return 4...4
      }
    }

    var hasAltitude: Bool { self != .m }

    init?(tag: String) {
      switch tag {
      case "Z": self = .z
      case "M": self = .m
      case "ZM": self = .zm
      default: return nil
      }
    }
  }

  // Byte-level recursive-descent parser. Any non-ASCII byte is rejected where it appears, so
  // every offset reported before it counts ASCII characters: byte offset = character offset.
  private struct Parser {
    let bytes: [UInt8]
    var position = 0
    var dimensions = Dimensions.untagged
    /// Without a tag, the first position fixes the count for the rest: a geometry has one
    /// coordinate dimension.
    var untaggedCount: Int?

    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func parseDocument() throws(GeoError) -> GeoGeometry {
      skipWhitespace()
      let wordStart = position
      var word = readWord()
      if word == "SRID" {
        try parseSRID()
        skipWhitespace()
        word = readWord()
      }
      let kind = try parseKind(word, at: wordStart)
      let geometry: GeoGeometry
      switch kind {
      case .point:
        geometry = .point(
          try parseParenthesized { (p: inout Parser) throws(GeoError) in
            try p.parsePosition()
          })
      case .multiPoint:
        geometry = .multiPoint(try parseMultiPoint())
      case .lineString:
        geometry = .lineString(try parseLine())
      case .multiLineString:
        geometry = .multiLineString(
          try parseList { (p: inout Parser) throws(GeoError) in
            try p.parseLine()
          })
      case .polygon:
        geometry = .polygon(try parsePolygon())
      case .multiPolygon:
        geometry = .multiPolygon(
          try parseList { (p: inout Parser) throws(GeoError) in
            try p.parsePolygon()
          })
      }
      skipWhitespace()
      guard position == bytes.count else {
        throw failure(position, "unexpected \(describeHere()) after the geometry")
      }
      return geometry
    }

    /// `SRID=4326;` after the word SRID has been read.
    mutating func parseSRID() throws(GeoError) {
      skipWhitespace()
      try expect(UInt8(ascii: "="))
      skipWhitespace()
      let start = position
      while position < bytes.count,
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position])
      {
        position += 1
      }
      let digits = String(decoding: bytes[start..<position], as: UTF8.self)
      guard !digits.isEmpty else { throw failure(start, "expected an SRID number") }
      guard digits == "4326" else {
        throw failure(
          start, "SRID \(digits) is not supported; only 4326 (WGS84 longitude/latitude)")
      }
      skipWhitespace()
      try expect(UInt8(ascii: ";"))
    }

    /// The geometry keyword and its optional dimension tag (apart or attached).
    mutating func parseKind(_ word: String, at start: Int) throws(GeoError) -> Kind {
      var name = word
      var tag: Dimensions?
      if Kind(rawValue: name) == nil {
        for suffix in ["ZM", "Z", "M"] where name.hasSuffix(suffix) {
          let base = String(name.dropLast(suffix.count))
          if Kind(rawValue: base) != nil {
            name = base
            tag = Dimensions(tag: suffix)
            break
          }
        }
      }
      guard let kind = Kind(rawValue: name) else {
        if word.isEmpty {
          throw failure(start, "expected a geometry type, found \(describeHere())")
        }
        throw failure(start, "unknown geometry type \"\(word)\"")
      }
      skipWhitespace()
      if tag == nil {
        let tagStart = position
        let next = readWord()
        if let parsed = Dimensions(tag: next) {
          tag = parsed
        } else {
          position = tagStart  // Not a tag: EMPTY or garbage, reported below.
        }
      }
      dimensions = tag ?? .untagged
      return kind
    }

    /// `( item )` after optional whitespace; EMPTY is reported here.
    mutating func parseParenthesized<T>(
      _ item: (inout Parser) throws(GeoError) -> T
    ) throws(GeoError) -> T {
      try openParenthesis()
      let value = try item(&self)
      skipWhitespace()
      try expect(UInt8(ascii: ")"))
      return value
    }

    /// `( item, item, ... )`, where each item parses its own parentheses.
    mutating func parseList<T>(
      _ item: (inout Parser) throws(GeoError) -> T
    ) throws(GeoError) -> [T] {
      try openParenthesis()
      var items: [T] = []
      while true {
        items.append(try item(&self))
        skipWhitespace()
        if try !consumeCommaOrClose() { return items }
      }
    }

    /// `(x y, x y, ...)` with at least two positions.
    mutating func parseLine() throws(GeoError) -> [GeoCoordinates] {
      skipWhitespace()
      let start = position
      let line = try parsePositions()
      if let reason = GeoGeometry.lineProblem(line) { throw failure(start, reason) }
      return line
    }

    /// `((ring), (ring), ...)`, each ring closed with at least four positions.
    mutating func parsePolygon() throws(GeoError) -> [[GeoCoordinates]] {
      try parseList { (p: inout Parser) throws(GeoError) in
        p.skipWhitespace()
        let start = p.position
        let ring = try p.parsePositions()
        if let reason = GeoGeometry.ringProblem(ring) { throw failure(start, reason) }
        return ring
      }
    }

    /// `((x y), (x y))` or the common short form `(x y, x y)`.
    mutating func parseMultiPoint() throws(GeoError) -> [GeoCoordinates] {
      try openParenthesis()
      skipWhitespace()
      let wrapped = position < bytes.count && bytes[position] == UInt8(ascii: "(")
      var points: [GeoCoordinates] = []
      while true {
        if wrapped {
          points.append(
            try parseParenthesized { (p: inout Parser) throws(GeoError) in
              try p.parsePosition()
            })
        } else {
          points.append(try parsePosition())
        }
        skipWhitespace()
        if try !consumeCommaOrClose() { return points }
      }
    }

    /// `(x y, x y, ...)`.
    mutating func parsePositions() throws(GeoError) -> [GeoCoordinates] {
      try openParenthesis()
      var positions: [GeoCoordinates] = []
      while true {
        positions.append(try parsePosition())
        skipWhitespace()
        if try !consumeCommaOrClose() { return positions }
      }
    }

    /// `x y [z] [m]`: longitude, latitude, then altitude and measure per the tag.
    mutating func parsePosition() throws(GeoError) -> GeoCoordinates {
      var values: [(value: Double, offset: Int)] = []
      skipWhitespace()
      let start = position
      while let number = try readNumber() {
        values.append(number)
        guard values.count <= 4 else {
          throw failure(number.offset, "a position has at most 4 numbers")
        }
        skipWhitespace()
      }
      let allowed = untaggedCount.map { $0...$0 } ?? dimensions.allowedCounts
      guard allowed.contains(values.count) else {
        if values.isEmpty { throw failure(position, "expected a number, found \(describeHere())") }
        throw failure(
          start,
          "a position here needs \(describe(allowed)) numbers, got \(values.count)"
        )
      }
      if dimensions == .untagged { untaggedCount = values.count }
      let altitude = values.count > 2 && dimensions.hasAltitude ? values[2] : nil
      do {
        return try GeoCoordinates(
          latitude: values[1].value, longitude: values[0].value, altitude: altitude?.value)
      } catch {
        let offset: Int
        switch error {
        case .invalidLatitude: offset = values[1].offset
        case .invalidLongitude: offset = values[0].offset
        default: offset = altitude?.offset ?? start
        }
        throw failure(offset, error.description)
      }
    }

    // MARK: Tokens

    mutating func skipWhitespace() {
      while position < bytes.count {
        switch bytes[position] {
        case 0x20, 0x09, 0x0A, 0x0D: position += 1
        default: return
        }
      }
    }

    /// Letters at the current position, upper-cased; empty when there are none.
    mutating func readWord() -> String {
      let start = position
      while position < bytes.count, isLetter(bytes[position]) { position += 1 }
      return String(decoding: bytes[start..<position], as: UTF8.self).uppercased()
    }

    private func isLetter(_ byte: UInt8) -> Bool {
      (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
        || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
    }

    /// A number at the current position, or `nil` when the next byte cannot start one.
    mutating func readNumber() throws(GeoError) -> (value: Double, offset: Int)? {
      let start = position
      while position < bytes.count, isNumberByte(bytes[position]) { position += 1 }
      guard position > start else { return nil }
      let token = String(decoding: bytes[start..<position], as: UTF8.self)
      guard let value = Double(token), value.isFinite else {
        throw failure(start, "invalid number \"\(token)\"")
      }
      return (value, start)
    }

    private func isNumberByte(_ byte: UInt8) -> Bool {
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "-"),
        UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"):
        return true
      default:
        return false
      }
    }

    /// `(` after optional whitespace; EMPTY gets its own message.
    mutating func openParenthesis() throws(GeoError) {
      skipWhitespace()
      let start = position
      if readWord() == "EMPTY" {
        throw failure(start, "EMPTY geometries are not supported")
      }
      position = start
      try expect(UInt8(ascii: "("))
    }

    /// Consumes `,` (returns true: another item follows) or `)` (returns false).
    mutating func consumeCommaOrClose() throws(GeoError) -> Bool {
      guard position < bytes.count else {
        throw failure(position, "expected ',' or ')', found the end of the text")
      }
      switch bytes[position] {
      case UInt8(ascii: ","):
        position += 1
        return true
      case UInt8(ascii: ")"):
        position += 1
        return false
      default:
        throw failure(position, "expected ',' or ')', found \(describeHere())")
      }
    }

    mutating func expect(_ byte: UInt8) throws(GeoError) {
      guard position < bytes.count, bytes[position] == byte else {
        throw failure(
          position, "expected '\(Character(Unicode.Scalar(byte)))', found \(describeHere())")
      }
      position += 1
    }

    /// The byte at the current position for a message.
    func describeHere() -> String {
      position < bytes.count
        ? describeByte(bytes[position]) : "the end of the text"
    }

    private func describe(_ counts: ClosedRange<Int>) -> String {
      counts.count == 1 ? "\(counts.lowerBound)" : "\(counts.lowerBound) to \(counts.upperBound)"
    }
  }

  // MARK: - Writing

  /// Writes a geometry as Well-Known Text.
  ///
  /// The `Z` tag is written, with altitudes, when every position has an altitude; otherwise
  /// positions are written as `x y` and altitudes are dropped. Numbers use their shortest form
  /// that reads back to the same `Double` (integral values without a fraction), so parsing the
  /// result gives back an equal geometry. No SRID prefix is written.
  ///
  /// - Parameter geometry: A valid geometry.
  /// - Returns: E.g. `"LINESTRING (8.69821 50.10228, 8.69567 50.10201)"`.
  /// - Throws: `GeoError.malformed(format: "WKT", position: nil, ...)` when the geometry breaks
  ///   a rule listed in `GeoGeometry`.
  /// - Complexity: O(n) in the number of positions.
  public static func write(_ geometry: GeoGeometry) throws(GeoError) -> String {
    if let (path, reason) = geometry.structuralProblem() {
      throw failure(nil, path.isEmpty ? reason : "part \(path): \(reason)")
    }
    let points: [GeoCoordinates]
    let kind: Kind
    switch geometry {
    case .point(let point): (kind, points) = (.point, [point])
    case .multiPoint(let line): (kind, points) = (.multiPoint, line)
    case .lineString(let line): (kind, points) = (.lineString, line)
    case .multiLineString(let lines): (kind, points) = (.multiLineString, lines.flatMap { $0 })
    case .polygon(let rings): (kind, points) = (.polygon, rings.flatMap { $0 })
    case .multiPolygon(let polygons):
      (kind, points) = (.multiPolygon, polygons.flatMap { $0.flatMap { $0 } })
    }
    let withAltitude = points.allSatisfy { $0.altitude != nil }
    var text = kind.rawValue + (withAltitude ? " Z " : " ")
    func append(_ point: GeoCoordinates) {
      text.append(number(point.longitude) + " " + number(point.latitude))
      if withAltitude, let altitude = point.altitude { text.append(" " + number(altitude)) }
    }
    func append(_ line: [GeoCoordinates], wrapEach: Bool = false) {
      text.append("(")
      for (index, point) in line.enumerated() {
        if index > 0 { text.append(", ") }
        if wrapEach { text.append("(") }
        append(point)
        if wrapEach { text.append(")") }
      }
      text.append(")")
    }
    func append(_ lines: [[GeoCoordinates]]) {
      text.append("(")
      for (index, line) in lines.enumerated() {
        if index > 0 { text.append(", ") }
        append(line)
      }
      text.append(")")
    }
    switch geometry {
    case .point(let point):
      text.append("(")
      append(point)
      text.append(")")
    case .multiPoint(let line): append(line, wrapEach: true)
    case .lineString(let line): append(line)
    case .multiLineString(let lines), .polygon(let lines): append(lines)
    case .multiPolygon(let polygons):
      text.append("(")
      for (index, polygon) in polygons.enumerated() {
        if index > 0 { text.append(", ") }
        append(polygon)
      }
      text.append(")")
    }
    return text
  }

  /// The shortest text that reads back to `value`; integral values without `.0`.
  private static func number(_ value: Double) -> String {
    if value == value.rounded(), value.magnitude < 1e15 {
      return value == 0 ? "0" : String(Int64(value))
    }
    return value.description
  }
}
