import Toolbox

/// The OpenLR binary physical data format, version 3: line locations, geo-coordinate
/// locations, points along a line and POIs with an access point.
///
/// Specification: TomTom International B.V., "OpenLR White Paper", version 1.5 revision 2,
/// section 7 ("Binary physical data format"). A location reference is a header byte
/// (bit 7 reserved, bit 6 area flag 1, bit 5 point flag, bit 4 area flag 0, bit 3 attribute
/// flag, bits 2-0 the version) followed by location reference points (LRPs):
/// - the first coordinate pair is absolute: longitude, then latitude, each a 24-bit two's
///   complement integer `n` meaning `(n - 0.5 * sign(n)) * 360 / 2^24` degrees;
/// - every later pair is relative to the previous LRP: two 16-bit integers in units of
///   10^-5 degrees (longitude first);
/// - attribute 1 (bits 7-6 orientation or side of road, bits 5-3 functional road class,
///   bits 2-0 form of way), attribute 2 (bits 7-5 lowest functional road class to the next
///   point, bits 4-0 the bearing sector of 11.25 degrees), attribute 3 (the distance to the
///   next point in units of 58.6 m), and on the last LRP attribute 4 (bit 6 positive offset
///   present, bit 5 negative offset present, bits 4-0 the bearing sector);
/// - offsets are one byte each, `b` meaning `(b + 0.5) / 256` of the distance between the
///   first two LRPs (positive) or the last two (negative).
///
/// Decoded bucket values (bearing, distance, offsets) are the midpoints of their buckets, so
/// that encoding a decoded reference gives back the same bytes. Area locations (circle,
/// rectangle, grid, polygon, closed line) and version 2 are refused with an error naming them.
public enum OpenLR {
  /// The format name used in errors.
  static let format = "OpenLR"

  /// The binary format version this codec reads and writes.
  public static let version = 3

  /// Degrees per unit of a 24-bit absolute coordinate.
  static let absoluteResolution = 360.0 / Double(1 << 24)
  /// Units of a relative coordinate per degree.
  static let relativeScale = 100_000.0
  /// Meters per unit of the distance to the next point.
  public static let distanceResolutionInMeters = 58.6
  /// Degrees per bearing sector.
  public static let bearingSectorInDegrees = 11.25

  /// What kind of road a line is (white paper, "form of way").
  public enum FormOfWay: UInt8, Hashable, Sendable, CaseIterable {
    /// Not known or not one of the others.
    case undefined = 0
    /// A motorway.
    case motorway = 1
    /// A road with separated carriageways.
    case multipleCarriageway = 2
    /// A road with one carriageway.
    case singleCarriageway = 3
    /// A roundabout.
    case roundabout = 4
    /// An open area where traffic moves freely (a square).
    case trafficSquare = 5
    /// A slip road (ramp).
    case slipRoad = 6
    /// Any other kind of way.
    case other = 7
  }

  /// How a point location relates to the direction of its line.
  public enum Orientation: UInt8, Hashable, Sendable, CaseIterable {
    /// No orientation, or unknown.
    case unknown = 0
    /// In the direction from the first to the last LRP.
    case withLineDirection = 1
    /// Against that direction.
    case againstLineDirection = 2
    /// Both directions.
    case both = 3
  }

  /// On which side of the road a point location lies.
  public enum SideOfRoad: UInt8, Hashable, Sendable, CaseIterable {
    /// On the road, or unknown.
    case onRoadOrUnknown = 0
    /// On the right of the line's direction.
    case right = 1
    /// On the left.
    case left = 2
    /// On both sides.
    case both = 3
  }

  /// One location reference point: a position and the properties of the line leaving it (for
  /// the last point, the line arriving at it).
  public struct ReferencePoint: Hashable, Sendable {
    /// Where the point lies.
    public var coordinates: GeoCoordinates
    /// The functional road class of the line, 0 (most important) ... 7.
    public var functionalRoadClass: Int
    /// The form of way of the line.
    public var formOfWay: FormOfWay
    /// The bearing of the line, degrees clockwise from true north, 0..<360 (decoded: the
    /// middle of its 11.25-degree sector).
    public var bearingInDegrees: Double
    /// The lowest functional road class on the path to the next point, 0...7; 7 on the last
    /// point, which has no next point.
    public var lowestFunctionalRoadClassToNext: Int
    /// The distance along the path to the next point, meters (decoded: the middle of its
    /// 58.6 m bucket); 0 on the last point.
    public var distanceToNextInMeters: Double

    /// Creates a reference point.
    ///
    /// - Parameters:
    ///   - coordinates: The position.
    ///   - functionalRoadClass: 0...7.
    ///   - formOfWay: The kind of road.
    ///   - bearingInDegrees: Degrees clockwise from north.
    ///   - lowestFunctionalRoadClassToNext: 0...7; 7 for the last point.
    ///   - distanceToNextInMeters: Meters to the next point; 0 for the last point.
    public init(
      coordinates: GeoCoordinates, functionalRoadClass: Int, formOfWay: FormOfWay,
      bearingInDegrees: Double, lowestFunctionalRoadClassToNext: Int = 7,
      distanceToNextInMeters: Double = 0
    ) {
      self.coordinates = coordinates
      self.functionalRoadClass = functionalRoadClass
      self.formOfWay = formOfWay
      self.bearingInDegrees = bearingInDegrees
      self.lowestFunctionalRoadClassToNext = lowestFunctionalRoadClassToNext
      self.distanceToNextInMeters = distanceToNextInMeters
    }
  }

  /// A path along roads through two or more reference points.
  public struct Line: Hashable, Sendable {
    /// The reference points in order, at least two.
    public var points: [ReferencePoint]
    /// Where the location begins after the first point, as a fraction 0..<1 of the distance
    /// from the first to the second point; 0 when the reference has no positive offset.
    public var positiveOffset: Double
    /// Where the location ends before the last point, as a fraction 0..<1 of the distance
    /// between the last two points; 0 when the reference has no negative offset.
    public var negativeOffset: Double

    /// Creates a line location.
    public init(points: [ReferencePoint], positiveOffset: Double = 0, negativeOffset: Double = 0) {
      self.points = points
      self.positiveOffset = positiveOffset
      self.negativeOffset = negativeOffset
    }
  }

  /// A point on the line between two reference points.
  public struct PointAlongLine: Hashable, Sendable {
    /// The reference point before the point.
    public var first: ReferencePoint
    /// The reference point after it.
    public var last: ReferencePoint
    /// Where the point lies after `first`, as a fraction 0..<1 of the distance from `first`
    /// to `last`; 0 when the reference has no offset.
    public var positiveOffset: Double
    /// Which direction of the line the point concerns.
    public var orientation: Orientation
    /// Which side of the road the point is on.
    public var sideOfRoad: SideOfRoad

    /// Creates a point along a line.
    public init(
      first: ReferencePoint, last: ReferencePoint, positiveOffset: Double = 0,
      orientation: Orientation = .unknown, sideOfRoad: SideOfRoad = .onRoadOrUnknown
    ) {
      self.first = first
      self.last = last
      self.positiveOffset = positiveOffset
      self.orientation = orientation
      self.sideOfRoad = sideOfRoad
    }

    /// The point at `positiveOffset` on the straight segment from `first` to `last` (the
    /// road between them is not known without a map).
    public var approximatePosition: GeoCoordinates {
      let a = first.coordinates
      let b = last.coordinates
      let t = min(max(positiveOffset, 0), 1)
      return GeoCoordinates(
        uncheckedLatitude: a.latitude + t * (b.latitude - a.latitude),
        longitude: a.longitude + t * (b.longitude - a.longitude))
    }
  }

  /// A decoded location reference.
  public enum Location: Hashable, Sendable {
    /// A line location (header `0x0B`).
    case line(Line)
    /// A single position (header `0x23`).
    case geoCoordinate(GeoCoordinates)
    /// A point along a line (header `0x2B`, 16 or 17 bytes).
    case pointAlongLine(PointAlongLine)
    /// A point of interest reached from a point along a line (header `0x2B`, 20 or 21 bytes).
    case poiWithAccessPoint(PointAlongLine, poi: GeoCoordinates)

    /// The coordinates the reference gives, in order: the LRPs of a line, the position of a
    /// geo-coordinate, the two LRPs of a point along a line, the two LRPs then the POI.
    public var referenceCoordinates: [GeoCoordinates] {
      switch self {
      case .line(let line): return line.points.map(\.coordinates)
      case .geoCoordinate(let point): return [point]
      case .pointAlongLine(let point): return [point.first.coordinates, point.last.coordinates]
      case .poiWithAccessPoint(let point, let poi):
        return [point.first.coordinates, point.last.coordinates, poi]
      }
    }

    /// A geometry for the location without a map: a line's reference points joined in order,
    /// a geo-coordinate as a point, a point along a line at its offset on the straight
    /// segment between its two reference points, a POI at its own position.
    ///
    /// A point is a two-vertex polyline of the same coordinate (`GeoPolyline(point:)`).
    public var approximatePolyline: GeoPolyline {
      switch self {
      case .line(let line):
        let vertices = line.points.map(\.coordinates)
        guard let first = vertices.first, vertices.contains(where: { $0 != first }) else {
          return GeoPolyline(
            point: vertices.first ?? GeoCoordinates(uncheckedLatitude: 0, longitude: 0))
        }
        return GeoPolyline(uncheckedVertices: vertices)
      case .geoCoordinate(let point):
        return GeoPolyline(point: point)
      case .pointAlongLine(let point):
        return GeoPolyline(point: point.approximatePosition)
      case .poiWithAccessPoint(_, let poi):
        return GeoPolyline(point: poi)
      }
    }
  }

  static func failure(_ position: Int?, _ reason: String) -> GeoError {
    .malformed(format: format, position: position, reason: reason)
  }
}

// MARK: - Decoding

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

// MARK: - Encoding

extension OpenLR {
  /// Encodes a location reference as base64 (standard alphabet, padded).
  ///
  /// - Parameter location: The reference.
  /// - Returns: The base64 text.
  /// - Throws: As ``encode(_:)``.
  /// - Complexity: O(n) in the number of reference points.
  public static func encodeBase64(_ location: Location) throws(GeoError) -> String {
    Base64.encode(try encode(location))
  }

  /// Encodes a location reference in the binary format, version 3.
  ///
  /// Values are quantised as the format demands (bearings to 11.25-degree sectors, distances
  /// to 58.6 m, offsets to 1/256); decoding the result gives the midpoints of those buckets.
  ///
  /// - Parameter location: The reference.
  /// - Returns: The bytes, header first.
  /// - Throws: `GeoError.malformed(format: "OpenLR", position: nil, reason:)` for a line with
  ///   fewer than two points, a functional road class outside 0...7, a distance to the next
  ///   point beyond 15 000 m, consecutive points more than 0.32767 degrees apart, an offset
  ///   outside 0..<1, or a bearing that is not finite.
  /// - Complexity: O(n) in the number of reference points.
  public static func encode(_ location: Location) throws(GeoError) -> [UInt8] {
    var writer = ByteWriter()
    switch location {
    case .line(let line):
      guard line.points.count >= 2, let first = line.points.first, let last = line.points.last
      else {
        throw failure(nil, "a line location needs at least 2 reference points")
      }
      writer.bytes.append(0x0B)
      writer.absolute(first.coordinates)
      try writer.attributes(first, topBits: 0)
      var previous = first.coordinates
      for point in line.points.dropFirst().dropLast() {
        try writer.relative(point.coordinates, from: previous)
        try writer.attributes(point, topBits: 0)
        previous = point.coordinates
      }
      try writer.relative(last.coordinates, from: previous)
      let positive = try offsetByte(line.positiveOffset, name: "positive offset")
      let negative = try offsetByte(line.negativeOffset, name: "negative offset")
      try writer.lastAttributes(
        last, topBits: 0, positive: positive != nil, negative: negative != nil)
      if let positive { writer.bytes.append(positive) }
      if let negative { writer.bytes.append(negative) }
    case .geoCoordinate(let point):
      writer.bytes.append(0x23)
      writer.absolute(point)
    case .pointAlongLine(let point):
      try writer.point(point)
    case .poiWithAccessPoint(let point, let poi):
      try writer.point(point)
      try writer.relative(poi, from: point.first.coordinates)
    }
    return writer.bytes
  }

  static func offsetByte(_ fraction: Double, name: String) throws(GeoError) -> UInt8? {
    guard fraction.isFinite, fraction >= 0, fraction < 1 else {
      throw failure(nil, "\(name) \(fraction) is outside 0..<1")
    }
    guard fraction > 0 else { return nil }
    return UInt8(min(255, Int(fraction * 256)))
  }

  private struct ByteWriter {
    var bytes: [UInt8] = []

    mutating func signed(_ value: Int, byteCount: Int) {
      for index in stride(from: byteCount - 1, through: 0, by: -1) {
        bytes.append(UInt8(truncatingIfNeeded: value >> (index * 8)))
      }
    }

    mutating func absolute(_ point: GeoCoordinates) {
      signed(OpenLR.absoluteValue(point.longitude), byteCount: 3)
      signed(OpenLR.absoluteValue(point.latitude), byteCount: 3)
    }

    mutating func relative(_ point: GeoCoordinates, from previous: GeoCoordinates) throws(GeoError)
    {
      let scale = OpenLR.relativeScale
      let longitude = ((point.longitude - previous.longitude) * scale).rounded()
      let latitude = ((point.latitude - previous.latitude) * scale).rounded()
      guard abs(longitude) <= 32_767, abs(latitude) <= 32_767 else {
        throw OpenLR.failure(
          nil, "reference point \(point) lies more than 0.32767 degrees from the previous one")
      }
      signed(Int(longitude), byteCount: 2)
      signed(Int(latitude), byteCount: 2)
    }

    mutating func attribute1(_ point: ReferencePoint, topBits: UInt8) throws(GeoError) {
      guard (0...7).contains(point.functionalRoadClass) else {
        throw OpenLR.failure(
          nil, "functional road class \(point.functionalRoadClass) is outside 0...7")
      }
      bytes.append(topBits << 6 | UInt8(point.functionalRoadClass) << 3 | point.formOfWay.rawValue)
    }

    mutating func attributes(_ point: ReferencePoint, topBits: UInt8) throws(GeoError) {
      try attribute1(point, topBits: topBits)
      guard (0...7).contains(point.lowestFunctionalRoadClassToNext) else {
        throw OpenLR.failure(
          nil,
          "lowest functional road class \(point.lowestFunctionalRoadClassToNext) is "
            + "outside 0...7")
      }
      bytes.append(
        UInt8(point.lowestFunctionalRoadClassToNext) << 5 | (try OpenLR.sector(point)))
      let distance = point.distanceToNextInMeters / OpenLR.distanceResolutionInMeters
      guard distance.isFinite, distance >= 0, distance < 256 else {
        throw OpenLR.failure(
          nil,
          "distance to the next point \(point.distanceToNextInMeters) m is outside "
            + "0...15 001 m")
      }
      bytes.append(UInt8(distance))
    }

    mutating func lastAttributes(
      _ point: ReferencePoint, topBits: UInt8, positive: Bool, negative: Bool
    ) throws(GeoError) {
      try attribute1(point, topBits: topBits)
      bytes.append((positive ? 0x40 : 0) | (negative ? 0x20 : 0) | (try OpenLR.sector(point)))
    }

    mutating func point(_ point: PointAlongLine) throws(GeoError) {
      bytes.append(0x2B)
      absolute(point.first.coordinates)
      try attributes(point.first, topBits: point.orientation.rawValue)
      try relative(point.last.coordinates, from: point.first.coordinates)
      let offset = try OpenLR.offsetByte(point.positiveOffset, name: "positive offset")
      try lastAttributes(
        point.last, topBits: point.sideOfRoad.rawValue, positive: offset != nil, negative: false)
      if let offset { bytes.append(offset) }
    }
  }

  /// The 24-bit value of a coordinate: `0.5 * sign(deg) + deg * 2^24 / 360`, truncated
  /// towards zero (white paper 7.2.1), with a tolerance so that a decoded value encodes back
  /// to its own integer.
  static func absoluteValue(_ degrees: Double) -> Int {
    let scaled = degrees / absoluteResolution
    let sign: Double = degrees > 0 ? 1 : degrees < 0 ? -1 : 0
    let value = Int((scaled + sign * (0.5 + 1e-9)).rounded(.towardZero))
    return min(max(value, -(1 << 23)), (1 << 23) - 1)
  }

  static func sector(_ point: ReferencePoint) throws(GeoError) -> UInt8 {
    guard point.bearingInDegrees.isFinite else {
      throw failure(nil, "bearing \(point.bearingInDegrees) is not a finite number")
    }
    var degrees = point.bearingInDegrees.truncatingRemainder(dividingBy: 360)
    if degrees < 0 { degrees += 360 }
    return UInt8(min(31, Int(degrees / bearingSectorInDegrees)))
  }
}
