/// Why a geometric value or an encoded geometry was rejected.
///
/// Every case names the offending value or the position in the input, so that a message
/// shown to a user (or an HTTP 400 body) says what to fix.
public enum GeoError: Error, Equatable, Sendable, CustomStringConvertible {
  /// A latitude outside -90...90 degrees, or not a finite number.
  case invalidLatitude(Double)
  /// A longitude outside -180...180 degrees, or not a finite number.
  case invalidLongitude(Double)
  /// An altitude that is not a finite number.
  case invalidAltitude(Double)
  /// A polyline needs at least two vertices; this many were given.
  case tooFewVertices(Int)
  /// A radius, half width, distance or tolerance that is negative or not finite.
  case invalidDistance(name: String, value: Double)
  /// A box whose southern edge lies north of its northern edge.
  case invalidBox(south: Double, north: Double)
  /// A zoom level or tile address outside the Web Mercator tile pyramid.
  case invalidTile(String)
  /// Encoded input (flexible polyline, GeoJSON, WKT, ...) that cannot be decoded.
  ///
  /// - `format`: the encoding's name, `position`: the character or byte offset where
  ///   decoding failed when known, `reason`: what was wrong there.
  case malformed(format: String, position: Int?, reason: String)

  /// A sentence saying what was wrong, for messages and HTTP error bodies.
  public var description: String {
    switch self {
    case .invalidLatitude(let value):
      return "latitude \(value) is outside -90...90 degrees"
    case .invalidLongitude(let value):
      return "longitude \(value) is outside -180...180 degrees"
    case .invalidAltitude(let value):
      return "altitude \(value) is not a finite number"
    case .tooFewVertices(let count):
      return "a polyline needs at least 2 vertices, got \(count)"
    case .invalidDistance(let name, let value):
      return "\(name) \(value) must be a finite number >= 0"
    case .invalidBox(let south, let north):
      return "box south edge \(south) lies north of its north edge \(north)"
    case .invalidTile(let reason):
      return "invalid tile: \(reason)"
    case .malformed(let format, let position, let reason):
      if let position {
        return "malformed \(format) at position \(position): \(reason)"
      }
      return "malformed \(format): \(reason)"
    }
  }
}

extension GeoError {
  /// Validates a length-like argument (a radius, a half width, a tolerance).
  @inlinable
  static func checkDistance(_ value: Double, name: String) throws(GeoError) {
    guard value.isFinite, value >= 0 else { throw .invalidDistance(name: name, value: value) }
  }
}
