import Codec

/// Google's Encoded Polyline Algorithm Format, at precision 5 (the original) or 6 (as used by
/// OSRM and Valhalla).
///
/// Specification: Google Maps Platform, "Encoded Polyline Algorithm Format"
/// (developers.google.com/maps/documentation/utilities/polylinealgorithm). Each latitude and
/// longitude is scaled by 10^precision and rounded, the first pair is written as is and every
/// later pair as the difference from the previous one. A signed value is zig-zag encoded (shifted
/// left, inverted when negative), split into 5-bit chunks, least significant first, with `0x20`
/// set on every chunk but the last, and each chunk is written as the character `chunk + 63`.
///
/// Rounding is half away from zero.
public enum GooglePolyline {
  /// The format name used in errors.
  static let format = "Google polyline"

  /// The precisions accepted: decimal digits kept of each degree value.
  public static let supportedPrecisions: ClosedRange<Int> = 0...10

  private static func failure(_ position: Int?, _ reason: String) -> GeoError {
    .malformed(format: format, position: position, reason: reason)
  }

  private static func checkPrecision(_ precision: Int) throws(GeoError) {
    guard supportedPrecisions.contains(precision) else {
      throw failure(nil, "precision \(precision) is outside \(supportedPrecisions)")
    }
  }

  /// Encodes coordinates; altitudes are dropped.
  ///
  /// - Parameters:
  ///   - coordinates: The positions, in order (may be empty).
  ///   - precision: Decimal digits kept, 0...10; 5 for Google, 6 for OSRM and Valhalla.
  /// - Returns: The encoded text, characters `?` through `~`.
  /// - Throws: `GeoError.malformed(format: "Google polyline", ...)` when `precision` is outside
  ///   0...10.
  /// - Complexity: O(n) in the number of coordinates.
  public static func encode(
    _ coordinates: [GeoCoordinates], precision: Int = 5
  )
    throws(GeoError) -> String
  {
    try checkPrecision(precision)
    let factor = FlexiblePolyline.powersOfTen[precision]
    var output: [UInt8] = []
    output.reserveCapacity(coordinates.count * 8)
    var lastLatitude: Int64 = 0
    var lastLongitude: Int64 = 0
    for coordinate in coordinates {
      // |180 × 10^10| fits easily in Int64, so the conversions cannot trap.
      let latitude = Int64((coordinate.latitude * factor).rounded(.toNearestOrAwayFromZero))
      let longitude = Int64((coordinate.longitude * factor).rounded(.toNearestOrAwayFromZero))
      appendSigned(latitude - lastLatitude, to: &output)
      appendSigned(longitude - lastLongitude, to: &output)
      lastLatitude = latitude
      lastLongitude = longitude
    }
    return String(decoding: output, as: UTF8.self)
  }

  /// Decodes an encoded polyline.
  ///
  /// - Parameters:
  ///   - encoded: The encoded text, e.g. `"_p~iF~ps|U_ulLnnqC_mqNvxq`@"`.
  ///   - precision: The decimal digits it was encoded with, 0...10.
  /// - Returns: The positions, without altitude; empty for an empty string.
  /// - Throws: `GeoError.malformed(format: "Google polyline", position:, reason:)` with the
  ///   character offset: a character outside `?`...`~`, a value cut off at the end, a value that
  ///   does not fit in 64 bits, a latitude without its longitude, or a position outside the valid
  ///   latitude/longitude range.
  /// - Complexity: O(n) in the length of `encoded`.
  public static func decode(
    _ encoded: String, precision: Int = 5
  ) throws(GeoError)
    -> [GeoCoordinates]
  {
    try checkPrecision(precision)
    let factor = FlexiblePolyline.powersOfTen[precision]
    var reader = FiveBitVarintReader(
      bytes: Array(encoded.utf8), chunkValues: chunkValues, format: format)
    var latitude: Int64 = 0
    var longitude: Int64 = 0
    var coordinates: [GeoCoordinates] = []
    coordinates.reserveCapacity(reader.bytes.count / 4)
    while !reader.isAtEnd {
      let latitudeStart = reader.position
      latitude = try reader.accumulate(latitude)
      guard !reader.isAtEnd else {
        throw failure(latitudeStart, "a latitude without its longitude")
      }
      let longitudeStart = reader.position
      longitude = try reader.accumulate(longitude)
      do {
        coordinates.append(
          try GeoCoordinates(
            latitude: Double(latitude) / factor, longitude: Double(longitude) / factor))
      } catch {
        let start = if case .invalidLongitude = error { longitudeStart } else { latitudeStart }
        throw failure(start, error.description)
      }
    }
    return coordinates
  }

  /// Character → chunk value: `?`...`~` are 0...63.
  private static let chunkValues: [Int8] = (0...255).map {
    (63...126).contains($0) ? Int8($0 - 63) : -1
  }

  private static func appendSigned(_ value: Int64, to output: inout [UInt8]) {
    let shifted = UInt64(bitPattern: value) << 1
    var remaining = value < 0 ? ~shifted : shifted
    while remaining >= 0x20 {
      output.append(UInt8(remaining & 0x1F | 0x20) + 63)
      remaining >>= 5
    }
    output.append(UInt8(remaining) + 63)
  }
}
