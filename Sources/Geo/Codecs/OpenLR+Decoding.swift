import Codec

extension OpenLR {
  /// Decodes a base64 location reference (standard or URL-safe alphabet, padding optional,
  /// white space ignored), as DATEX II and HERE's `olr` carry it.
  ///
  /// - Parameter text: The base64 text.
  /// - Returns: The location reference.
  /// - Throws: `GeoError.malformed(format: "OpenLR", ...)` naming the character position for
  ///   bad base64, else as ``decode(_:)``.
  /// - Complexity: O(n) in the length of `text`.
  public static func decode(base64 text: String) throws(GeoError) -> Location {
    let bytes: [UInt8]
    do { bytes = try Base64.decode(text) } catch { throw failure(error.position, error.reason) }
    return try decode(bytes)
  }

  /// Decodes a binary location reference.
  ///
  /// - Parameter bytes: The reference, header byte first.
  /// - Returns: The location reference.
  /// - Throws: `GeoError.malformed(format: "OpenLR", position:, reason:)` with the byte
  ///   offset: empty or truncated data, a version other than 3, an area location or a
  ///   reserved header bit, a length that fits no location type, offset flags that disagree
  ///   with the length, coordinates outside the globe.
  /// - Complexity: O(n) in the number of bytes.
  public static func decode(_ bytes: [UInt8]) throws(GeoError) -> Location {
    guard let header = bytes.first else { throw failure(0, "no data: the reference is empty") }
    let version = Int(header & 0x07)
    guard version == OpenLR.version else {
      throw failure(0, "version \(version) is not supported; only version 3 is")
    }
    guard header & 0x80 == 0 else { throw failure(0, "reserved header bit 7 is set") }
    let areaFlags = (header >> 5 & 0x02) | (header >> 4 & 0x01)
    let isPoint = header & 0x20 != 0
    let hasAttributes = header & 0x08 != 0
    switch (areaFlags, isPoint, hasAttributes) {
    case (0, false, true): return .line(try decodeLine(bytes))
    case (0, true, false): return .geoCoordinate(try decodeGeoCoordinate(bytes))
    case (0, true, true): return try decodePoint(bytes)
    case (0, false, false): throw failure(0, "circle locations are not supported")
    case (1, false, false): throw failure(0, "polygon locations are not supported")
    case (2, false, false): throw failure(0, "rectangle and grid locations are not supported")
    case (3, false, true): throw failure(0, "closed line locations are not supported")
    default:
      throw failure(0, "header 0x\(hex(header)) names no location type")
    }
  }

  private static func decodeLine(_ bytes: [UInt8]) throws(GeoError) -> Line {
    // 1 header + 9 first LRP + 7 per intermediate + 6 last LRP + 0...2 offset bytes.
    guard bytes.count >= 16 else {
      throw failure(bytes.count, "a line location needs at least 16 bytes, found \(bytes.count)")
    }
    let rest = bytes.count - 16
    let intermediates = rest / 7
    let offsetBytes = rest % 7
    guard offsetBytes <= 2 else {
      throw failure(
        bytes.count,
        "\(bytes.count) bytes fit no line location (16 + 7 per intermediate point "
          + "+ up to 2 offsets)")
    }
    var reader = ByteReader(bytes: bytes, position: 1)
    var points: [ReferencePoint] = []
    var previous = try reader.absoluteCoordinates()
    points.append(try reader.pointAttributes(at: previous).point)
    for _ in 0..<intermediates {
      previous = try reader.relativeCoordinates(from: previous)
      points.append(try reader.pointAttributes(at: previous).point)
    }
    let last = try reader.lastPoint(from: previous)
    points.append(last.point)
    let flagged = (last.hasPositiveOffset ? 1 : 0) + (last.hasNegativeOffset ? 1 : 0)
    guard flagged == offsetBytes else {
      throw failure(
        reader.position,
        "the offset flags announce \(flagged) offset byte(s), the data has "
          + "\(offsetBytes)")
    }
    let positive = last.hasPositiveOffset ? offsetFraction(try reader.byte()) : 0
    let negative = last.hasNegativeOffset ? offsetFraction(try reader.byte()) : 0
    return Line(points: points, positiveOffset: positive, negativeOffset: negative)
  }

  private static func decodeGeoCoordinate(_ bytes: [UInt8]) throws(GeoError) -> GeoCoordinates {
    guard bytes.count == 7 else {
      throw failure(
        min(bytes.count, 7), "a geo-coordinate location has 7 bytes, found \(bytes.count)")
    }
    var reader = ByteReader(bytes: bytes, position: 1)
    return try reader.absoluteCoordinates()
  }

  private static func decodePoint(_ bytes: [UInt8]) throws(GeoError) -> Location {
    // Point along line: 1 + 9 + 6 (+ 1 offset) = 16 or 17; POI with access point adds a
    // relative coordinate pair: 20 or 21.
    guard [16, 17, 20, 21].contains(bytes.count) else {
      throw failure(
        min(bytes.count, 21),
        "a point along a line has 16 or 17 bytes and a POI with access "
          + "point 20 or 21, found \(bytes.count)")
    }
    var reader = ByteReader(bytes: bytes, position: 1)
    let firstCoordinates = try reader.absoluteCoordinates()
    let first = try reader.pointAttributes(at: firstCoordinates)
    let last = try reader.lastPoint(from: firstCoordinates)
    guard !last.hasNegativeOffset else {
      throw failure(reader.position - 1, "a point location has no negative offset")
    }
    let hasOffsetByte = bytes.count % 2 == 1
    guard last.hasPositiveOffset == hasOffsetByte else {
      throw failure(
        reader.position - 1,
        "the positive offset flag is \(last.hasPositiveOffset ? 1 : 0) "
          + "but the data \(hasOffsetByte ? "has" : "has no") offset byte")
    }
    let point = PointAlongLine(
      first: first.point, last: last.point,
      positiveOffset: hasOffsetByte ? offsetFraction(try reader.byte()) : 0,
      orientation: Orientation(rawValue: first.topBits) ?? .unknown,
      sideOfRoad: SideOfRoad(rawValue: last.topBits) ?? .onRoadOrUnknown)
    guard bytes.count >= 20 else { return .pointAlongLine(point) }
    let poi = try reader.relativeCoordinates(from: firstCoordinates)
    return .poiWithAccessPoint(point, poi: poi)
  }

  static func offsetFraction(_ byte: UInt8) -> Double { (Double(byte) + 0.5) / 256 }

  static func hex(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
  }

  /// Reads the fields of a reference, tracking the byte offset for errors.
  private struct ByteReader {
    let bytes: [UInt8]
    var position: Int

    mutating func byte() throws(GeoError) -> UInt8 {
      guard position < bytes.count else {
        throw OpenLR.failure(position, "truncated: the data ends at byte \(bytes.count)")
      }
      defer { position += 1 }
      return bytes[position]
    }

    mutating func signed(_ byteCount: Int) throws(GeoError) -> Int {
      var value = 0
      for _ in 0..<byteCount { value = value << 8 | Int(try byte()) }
      let bits = byteCount * 8
      return value >= 1 << (bits - 1) ? value - (1 << bits) : value
    }

    mutating func absoluteCoordinates() throws(GeoError) -> GeoCoordinates {
      let start = position
      let longitude = OpenLR.absoluteDegrees(try signed(3))
      let latitude = OpenLR.absoluteDegrees(try signed(3))
      return try OpenLR.coordinates(latitude: latitude, longitude: longitude, at: start)
    }

    mutating func relativeCoordinates(
      from previous: GeoCoordinates
    ) throws(GeoError) -> GeoCoordinates {
      let start = position
      let longitude = previous.longitude + Double(try signed(2)) / OpenLR.relativeScale
      let latitude = previous.latitude + Double(try signed(2)) / OpenLR.relativeScale
      return try OpenLR.coordinates(latitude: latitude, longitude: longitude, at: start)
    }

    /// Attributes 1, 2 and 3 of a first or intermediate point.
    mutating func pointAttributes(
      at coordinates: GeoCoordinates
    ) throws(GeoError) -> (point: ReferencePoint, topBits: UInt8) {
      let attribute1 = try byte()
      let attribute2 = try byte()
      let distance = try byte()
      let point = ReferencePoint(
        coordinates: coordinates, functionalRoadClass: Int(attribute1 >> 3 & 0x07),
        formOfWay: FormOfWay(rawValue: attribute1 & 0x07) ?? .undefined,
        bearingInDegrees: OpenLR.bearing(attribute2 & 0x1F),
        lowestFunctionalRoadClassToNext: Int(attribute2 >> 5),
        distanceToNextInMeters: (Double(distance) + 0.5) * OpenLR.distanceResolutionInMeters)
      return (point, attribute1 >> 6)
    }

    /// The last point: relative coordinates, attributes 1 and 4.
    mutating func lastPoint(
      from previous: GeoCoordinates
    ) throws(GeoError) -> (
      point: ReferencePoint, topBits: UInt8, hasPositiveOffset: Bool, hasNegativeOffset: Bool
    ) {
      let coordinates = try relativeCoordinates(from: previous)
      let attribute1 = try byte()
      let attribute4 = try byte()
      let point = ReferencePoint(
        coordinates: coordinates, functionalRoadClass: Int(attribute1 >> 3 & 0x07),
        formOfWay: FormOfWay(rawValue: attribute1 & 0x07) ?? .undefined,
        bearingInDegrees: OpenLR.bearing(attribute4 & 0x1F))
      return (point, attribute1 >> 6, attribute4 & 0x40 != 0, attribute4 & 0x20 != 0)
    }
  }

  static func absoluteDegrees(_ value: Int) -> Double {
    let sign = value > 0 ? 0.5 : value < 0 ? -0.5 : 0
    return (Double(value) - sign) * absoluteResolution
  }

  static func bearing(_ sector: UInt8) -> Double {
    (Double(sector) + 0.5) * bearingSectorInDegrees
  }

  static func coordinates(
    latitude: Double, longitude: Double, at position: Int
  ) throws(GeoError) -> GeoCoordinates {
    do {
      return try GeoCoordinates(latitude: latitude, longitude: longitude)
    } catch {
      throw failure(position, error.description)
    }
  }
}
