import Codec

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
