import Codec

/// A decoded HERE Flexible Polyline: coordinates, their precision and an optional third
/// dimension.
///
/// The format (HERE Europe B.V., "Flexible Polyline encoding", specification version 1,
/// github.com/heremaps/flexible-polyline) is a variant of Google's Encoded Polyline Algorithm
/// Format: a header (version 1, then the precisions and the third-dimension type packed into one
/// unsigned varint) followed by signed varints holding the first tuple and then the differences
/// between consecutive tuples, each scaled to an integer with the given number of decimal digits.
/// Varints use 5-bit chunks, least significant first, written with the URL-safe alphabet
/// `A-Z a-z 0-9 - _`; bit `0x20` of a chunk says another chunk follows.
///
/// Values are scaled by rounding half away from zero, as HERE's reference implementations do.
public struct FlexiblePolyline: Hashable, Sendable {
  /// What the optional third value of each tuple means.
  public enum ThirdDimension: Int, Hashable, Sendable, CaseIterable {
    /// No third value; tuples are (latitude, longitude).
    case absent = 0
    /// A floor or road level.
    case level = 1
    /// Meters above the ellipsoid; decoded into `GeoCoordinates.altitude`.
    case altitude = 2
    /// Meters above sea level; decoded into `GeoCoordinates.altitude`.
    case elevation = 3
    /// Reserved by the specification (value 4).
    case reserved1 = 4
    /// Reserved by the specification (value 5).
    case reserved2 = 5
    /// An application-defined value (value 6).
    case custom1 = 6
    /// An application-defined value (value 7).
    case custom2 = 7
  }

  /// The header: how many decimal digits each value keeps and what the third value means.
  public struct Header: Hashable, Sendable {
    /// Decimal digits kept of latitude and longitude, 0...15.
    public let precision: Int
    /// The meaning of the third value of each tuple.
    public let thirdDimension: ThirdDimension
    /// Decimal digits kept of the third value, 0...15 (0 when there is no third value).
    public let thirdDimensionPrecision: Int

    /// Creates a header.
    ///
    /// - Parameters:
    ///   - precision: Decimal digits of latitude and longitude, 0...15.
    ///   - thirdDimension: The meaning of the third value, `.absent` for 2D polylines.
    ///   - thirdDimensionPrecision: Decimal digits of the third value, 0...15.
    /// - Throws: `GeoError.malformed` when a precision is outside 0...15.
    public init(
      precision: Int = 5, thirdDimension: ThirdDimension = .absent,
      thirdDimensionPrecision: Int = 0
    ) throws(GeoError) {
      guard (0...15).contains(precision) else {
        throw FlexiblePolyline.failure(nil, "precision \(precision) is outside 0...15")
      }
      guard (0...15).contains(thirdDimensionPrecision) else {
        throw FlexiblePolyline.failure(
          nil, "third-dimension precision \(thirdDimensionPrecision) is outside 0...15")
      }
      self.precision = precision
      self.thirdDimension = thirdDimension
      self.thirdDimensionPrecision = thirdDimensionPrecision
    }

    /// Values per tuple: 2, or 3 with a third dimension.
    package var valuesPerTuple: Int { thirdDimension == .absent ? 2 : 3 }

    /// The header content varint: bits 0-3 precision, 4-6 type, 7-10 third precision.
    var packed: UInt64 {
      UInt64(thirdDimensionPrecision << 7 | thirdDimension.rawValue << 4 | precision)
    }
  }

  /// The positions, in order. Altitudes are set when the third dimension is `.altitude` or
  /// `.elevation`.
  public let coordinates: [GeoCoordinates]
  /// Decimal digits kept of latitude and longitude, 0...15.
  public let precision: Int
  /// The meaning of `thirdDimensionValues`.
  public let thirdDimension: ThirdDimension
  /// Decimal digits kept of the third values, 0...15.
  public let thirdDimensionPrecision: Int
  /// One third value per coordinate, whatever its meaning; empty when the third dimension is
  /// absent.
  public let thirdDimensionValues: [Double]

  /// The format name used in errors.
  static let format = "flexible polyline"

  static func failure(_ position: Int?, _ reason: String) -> GeoError {
    .malformed(format: format, position: position, reason: reason)
  }

  // MARK: - Decoding

  /// Decodes a flexible polyline string.
  ///
  /// An empty data section (just a header) decodes to no coordinates.
  ///
  /// - Parameter encoded: The encoded text, e.g. `"BFoz5xJ67i1B1B7PzIhaxL7Y"`.
  /// - Returns: The coordinates, precisions, third-dimension type and third values.
  /// - Throws: `GeoError.malformed(format: "flexible polyline", position:, reason:)` with the
  ///   character offset of the offending value: an unknown header version, unknown header bits,
  ///   a character outside the alphabet, a value cut off at the end, a value that does not fit in
  ///   64 bits, a last tuple missing values, or a latitude/longitude outside the valid range.
  /// - Complexity: O(n) in the length of `encoded`.
  public static func decode(_ encoded: String) throws(GeoError) -> FlexiblePolyline {
    let (header, values, offsets) = try decodeTuples(Array(encoded.utf8))
    let scale = powersOfTen[header.precision]
    let thirdScale = powersOfTen[header.thirdDimensionPrecision]
    let stride = header.valuesPerTuple
    let count = values.count / stride
    var coordinates: [GeoCoordinates] = []
    coordinates.reserveCapacity(count)
    var thirdValues: [Double] = []
    let carriesAltitude = header.thirdDimension == .altitude || header.thirdDimension == .elevation
    for tuple in 0..<count {
      let base = tuple * stride
      let latitude = Double(values[base]) / scale
      let longitude = Double(values[base + 1]) / scale
      var third: Double?
      if stride == 3 {
        let value = Double(values[base + 2]) / thirdScale
        thirdValues.append(value)
        if carriesAltitude { third = value }
      }
      do {
        coordinates.append(
          try GeoCoordinates(latitude: latitude, longitude: longitude, altitude: third))
      } catch {
        let field: Int
        switch error {
        case .invalidLatitude: field = 0
        case .invalidLongitude: field = 1
        default: field = 2
        }
        throw failure(offsets[base + field], error.description)
      }
    }
    return FlexiblePolyline(
      coordinates: coordinates, precision: header.precision,
      thirdDimension: header.thirdDimension,
      thirdDimensionPrecision: header.thirdDimensionPrecision,
      thirdDimensionValues: thirdValues)
  }

  /// Decodes the header and the scaled integer values without interpreting them as places, so
  /// that out-of-range values (as in HERE's conformance data) can be read.
  ///
  /// - Parameter encoded: The encoded text.
  /// - Returns: The header and the accumulated scaled values, `header.valuesPerTuple` per tuple.
  /// - Throws: `GeoError.malformed`, as `decode(_:)` except for the coordinate range checks.
  /// - Complexity: O(n) in the length of `encoded`.
  package static func decodeScaled(
    _ encoded: String
  ) throws(GeoError) -> (
    header: Header, values: [Int64]
  ) {
    let (header, values, _) = try decodeTuples(Array(encoded.utf8))
    return (header, values)
  }

  /// Reads header and values; `offsets[i]` is the character offset where value `i` starts.
  private static func decodeTuples(
    _ bytes: [UInt8]
  ) throws(GeoError) -> (
    Header, [Int64], [Int]
  ) {
    var reader = FiveBitVarintReader(bytes: bytes, chunkValues: chunkValues, format: format)
    guard !reader.isAtEnd else { throw failure(0, "empty input: missing header version") }
    let version = try reader.readUnsigned()
    guard version == 1 else {
      throw failure(0, "unsupported version \(version); only version 1 is defined")
    }
    guard !reader.isAtEnd else { throw failure(reader.position, "missing header") }
    let headerStart = reader.position
    let content = try reader.readUnsigned()
    guard content <= 0x7FF else {
      throw failure(headerStart, "header \(content) sets bits beyond bit 10")
    }
    // Cannot fail: every 3-bit value is a case and the precisions are 4-bit values.
    let header = try Header(
      precision: Int(content & 0xF),
      thirdDimension: ThirdDimension(rawValue: Int(content >> 4 & 0x7)) ?? .absent,
      thirdDimensionPrecision: Int(content >> 7 & 0xF))
    let stride = header.valuesPerTuple
    var values: [Int64] = []
    var offsets: [Int] = []
    values.reserveCapacity(bytes.count / 2)
    offsets.reserveCapacity(bytes.count / 2)
    var last: (Int64, Int64, Int64) = (0, 0, 0)
    while !reader.isAtEnd {
      let start = reader.position
      let field = values.count % stride
      let value = try reader.accumulate(field == 0 ? last.0 : field == 1 ? last.1 : last.2)
      switch field {
      case 0: last.0 = value
      case 1: last.1 = value
      default: last.2 = value
      }
      values.append(value)
      offsets.append(start)
    }
    let missing = values.count % stride
    if missing != 0 {
      let tupleStart = offsets[values.count - missing]
      throw failure(
        tupleStart,
        "the last tuple has \(missing) of \(stride) values"
          + (stride == 3 ? " (latitude, longitude, third dimension)" : " (latitude, longitude)"))
    }
    return (header, values, offsets)
  }

  // MARK: - Encoding

  /// Encodes coordinates as a flexible polyline.
  ///
  /// - Parameters:
  ///   - coordinates: The positions, in order (may be empty).
  ///   - precision: Decimal digits of latitude and longitude, 0...15 (5 keeps about 1 m).
  ///   - thirdDimension: The meaning of the third values; `.absent` for a 2D polyline.
  ///   - thirdDimensionPrecision: Decimal digits of the third values, 0...15.
  ///   - thirdDimensionValues: One value per coordinate. When `nil` and a third dimension is
  ///     requested, each coordinate's altitude is used.
  /// - Returns: The encoded text.
  /// - Throws: `GeoError.malformed(format: "flexible polyline", ...)` when a precision is out of
  ///   range, third values are given without a third dimension or in the wrong number, a needed
  ///   altitude is missing, or a third value is not finite or too large for its precision.
  /// - Complexity: O(n) in the number of coordinates.
  public static func encode(
    _ coordinates: [GeoCoordinates], precision: Int = 5,
    thirdDimension: ThirdDimension = .absent, thirdDimensionPrecision: Int = 0,
    thirdDimensionValues: [Double]? = nil
  ) throws(GeoError) -> String {
    let header = try Header(
      precision: precision, thirdDimension: thirdDimension,
      thirdDimensionPrecision: thirdDimension == .absent ? 0 : thirdDimensionPrecision)
    var thirdValues: [Double] = []
    if thirdDimension == .absent {
      guard thirdDimensionValues == nil else {
        throw failure(nil, "third-dimension values given for a 2D polyline")
      }
    } else if let thirdDimensionValues {
      guard thirdDimensionValues.count == coordinates.count else {
        throw failure(
          nil,
          "\(thirdDimensionValues.count) third-dimension values for \(coordinates.count) "
            + "coordinates")
      }
      thirdValues = thirdDimensionValues
    } else {
      thirdValues.reserveCapacity(coordinates.count)
      for (index, coordinate) in coordinates.enumerated() {
        guard let altitude = coordinate.altitude else {
          throw failure(nil, "coordinate \(index) has no altitude for the third dimension")
        }
        thirdValues.append(altitude)
      }
    }
    var values: [Int64] = []
    values.reserveCapacity(coordinates.count * header.valuesPerTuple)
    for (index, coordinate) in coordinates.enumerated() {
      // Valid coordinates always scale: |180 * 10^15| is far below the limit.
      values.append(try scaled(coordinate.latitude, precision: precision))
      values.append(try scaled(coordinate.longitude, precision: precision))
      if header.valuesPerTuple == 3 {
        do {
          values.append(try scaled(thirdValues[index], precision: thirdDimensionPrecision))
        } catch {
          throw failure(nil, "third-dimension value \(index): \(error.reason)")
        }
      }
    }
    return try encode(scaled: values, header: header)
  }

  /// Encodes already-scaled integer values (absolute, not differences) under a header.
  ///
  /// - Parameters:
  ///   - values: `header.valuesPerTuple` values per tuple, each within ±2^61.
  ///   - header: Version-1 header content.
  /// - Returns: The encoded text.
  /// - Throws: `GeoError.malformed` when the count is not a multiple of the tuple size or a
  ///   value is too large.
  /// - Complexity: O(n) in the number of values.
  package static func encode(scaled values: [Int64], header: Header) throws(GeoError) -> String {
    let stride = header.valuesPerTuple
    guard values.count % stride == 0 else {
      throw failure(nil, "\(values.count) values do not form tuples of \(stride)")
    }
    var output: [UInt8] = []
    output.reserveCapacity(2 + values.count * 4)
    appendUnsigned(1, to: &output)
    appendUnsigned(header.packed, to: &output)
    var last: [Int64] = [0, 0, 0]
    for (index, value) in values.enumerated() {
      guard value.magnitude <= scaledLimit else {
        throw failure(nil, "scaled value \(value) exceeds ±2^61")
      }
      let field = index % stride
      appendSigned(value - last[field], to: &output)
      last[field] = value
    }
    return String(decoding: output, as: UTF8.self)
  }

  /// The largest magnitude of a scaled value; differences then fit in 63 bits and their
  /// zig-zag form in 64.
  static let scaledLimit: UInt64 = 1 << 61

  /// 10^0 ... 10^15, all exactly representable as `Double`.
  static let powersOfTen: [Double] = (0...15).map { exponent in
    (0..<exponent).reduce(1.0) { product, _ in product * 10 }
  }

  /// `value` × 10^precision rounded half away from zero, as HERE's reference implementations
  /// round.
  ///
  /// - Throws: `GeoError.malformed` when `value` is not finite or the result exceeds ±2^61.
  package static func scaled(_ value: Double, precision: Int) throws(GeoError) -> Int64 {
    let product = (value * powersOfTen[precision]).rounded(.toNearestOrAwayFromZero)
    guard product.isFinite, product.magnitude <= Double(scaledLimit) else {
      throw failure(nil, "\(value) cannot be scaled by 10^\(precision) into ±2^61")
    }
    return Int64(product)
  }

  // MARK: - Varints

  /// The alphabet: chunk value `i` is written as `alphabet[i]`.
  static let alphabet: [UInt8] = Array(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

  /// Byte -> chunk value, or -1 for bytes outside the alphabet.
  static let chunkValues: [Int8] = {
    var table = [Int8](repeating: -1, count: 256)
    for (index, byte) in alphabet.enumerated() { table[Int(byte)] = Int8(index) }
    return table
  }()

  private static func appendUnsigned(_ value: UInt64, to output: inout [UInt8]) {
    var remaining = value
    while remaining > 0x1F {
      output.append(alphabet[Int(remaining & 0x1F | 0x20)])
      remaining >>= 5
    }
    output.append(alphabet[Int(remaining)])
  }

  private static func appendSigned(_ value: Int64, to output: inout [UInt8]) {
    // Zig-zag: the sign goes to bit 0 so small magnitudes stay short.
    let shifted = UInt64(bitPattern: value) << 1
    appendUnsigned(value < 0 ? ~shifted : shifted, to: &output)
  }
}

extension GeoError {
  /// The reason of a `.malformed` error, or the description of any other case.
  fileprivate var reason: String {
    if case .malformed(_, _, let reason) = self { return reason }
    return description
  }
}
