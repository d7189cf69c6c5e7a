import Codec
import Foundation
import Geo
import Traffic

/// The `in` parameter of v7 queries: a circle, a box or a corridor, in text form or in the
/// JSON form of `POST` bodies.
///
/// Text forms (HERE Traffic API v7):
/// - `circle:{lat},{lng};r={meters}`
/// - `bbox:{west},{south},{east},{north}` (west > east crosses the antimeridian)
/// - `corridor:{flexible polyline};r={half width in meters}`
enum AreaParameter {
  /// Parses and checks the `in` parameter.
  ///
  /// - Parameters:
  ///   - text: The parameter value.
  ///   - limits: The largest areas allowed.
  /// - Returns: A `GeoCircle`, `GeoBox` or `GeoCorridor` within `limits`.
  /// - Throws: `TrafficQueryError.invalidIn` for an unknown type or unparseable text,
  ///   `.invalidGeometry` for values out of range or beyond `limits`; details begin with
  ///   `in`.
  /// - Complexity: O(n) in the length of the text.
  static func parse(
    _ text: String, limits: TrafficQueryLimits
  ) throws(TrafficQueryError)
    -> any GeoArea
  {
    // Byte-wise scanning: the separators are ASCII, and Character-wise scanning (grapheme
    // breaking) was a visible part of a query.
    guard let colon = text.utf8.firstIndex(of: UInt8(ascii: ":")) else {
      throw .invalidIn(
        "in \"\(excerpt(text))\" has no type; use circle:LAT,LNG;r=M, bbox:W,S,E,N or "
          + "corridor:POLYLINE;r=M")
    }
    let kind = text[..<colon].lowercased()
    let rest = text[text.index(after: colon)...]
    let area: any GeoArea
    switch kind {
    case "circle":
      let (head, radius) = try splitRadius(rest, kind: "circle")
      let values = try numbers(head, count: 2, what: "circle center LAT,LNG")
      let center = try coordinates(latitude: values[0], longitude: values[1])
      do {
        area = try GeoCircle(center: center, radiusInMeters: radius)
      } catch {
        throw .invalidGeometry("in: \(error)")
      }
    case "bbox":
      let values = try numbers(rest, count: 4, what: "bbox WEST,SOUTH,EAST,NORTH")
      do {
        area = try GeoBox(west: values[0], south: values[1], east: values[2], north: values[3])
      } catch {
        throw .invalidGeometry("in: bbox: \(error)")
      }
    case "corridor":
      let (head, radius) = try splitRadius(rest, kind: "corridor")
      let polyline: FlexiblePolyline
      do {
        polyline = try FlexiblePolyline.decode(String(head))
      } catch {
        throw .invalidIn("in: corridor polyline: \(error)")
      }
      guard polyline.coordinates.count <= limits.maxCorridorPoints else {
        throw .invalidGeometry(
          "in: corridor has \(polyline.coordinates.count) points, more than the limit of "
            + "\(limits.maxCorridorPoints)")
      }
      do {
        area = try GeoCorridor(polyline: polyline.coordinates, halfWidthInMeters: radius)
      } catch {
        throw .invalidGeometry("in: corridor: \(error)")
      }
    default:
      throw .invalidIn(
        "in type \"\(excerpt(String(kind)))\" is unknown; use circle, bbox or corridor")
    }
    do {
      try limits.check(area)
    } catch {
      switch error {
      case .invalidGeometry(let detail): throw .invalidGeometry("in: \(detail)")
      case .invalidIn(let detail): throw .invalidIn("in: \(detail)")
      default: throw error
      }
    }
    return area
  }

  /// The text form of the JSON `in` object of a `POST` body, so that both forms share one
  /// parser: `{"type": "circle", "center": {"lat", "lng"}, "radius"}`, `{"type": "bbox",
  /// "west", "south", "east", "north"}`, `{"type": "corridor", "corridor", "radius"}`.
  ///
  /// - Throws: `TrafficQueryError.invalidIn` naming the missing or mistyped member.
  static func text(fromJSON object: [String: JSONValue]) throws(TrafficQueryError) -> String {
    func number(_ value: JSONValue?, _ path: String) throws(TrafficQueryError) -> String {
      guard case .number(let number)? = value else {
        throw .invalidIn("\(path) must be a number")
      }
      return number
    }
    guard case .string(let type)? = object["type"] else {
      throw .invalidIn("in.type must be \"circle\", \"bbox\" or \"corridor\"")
    }
    switch type {
    case "circle":
      guard case .object(let center)? = object["center"] else {
        throw .invalidIn("in.center must be an object {\"lat\", \"lng\"}")
      }
      let lat = try number(center["lat"], "in.center.lat")
      let lng = try number(center["lng"], "in.center.lng")
      return "circle:\(lat),\(lng);r=\(try number(object["radius"], "in.radius"))"
    case "bbox":
      let west = try number(object["west"], "in.west")
      let south = try number(object["south"], "in.south")
      let east = try number(object["east"], "in.east")
      let north = try number(object["north"], "in.north")
      return "bbox:\(west),\(south),\(east),\(north)"
    case "corridor":
      guard case .string(let polyline)? = object["corridor"] else {
        throw .invalidIn("in.corridor must be a flexible polyline string")
      }
      return "corridor:\(polyline);r=\(try number(object["radius"], "in.radius"))"
    default:
      throw .invalidIn("in.type \"\(excerpt(type))\" is unknown; use circle, bbox or corridor")
    }
  }

  /// Splits `HEAD;r=METERS` and parses the radius.
  private static func splitRadius(
    _ text: Substring, kind: String
  ) throws(TrafficQueryError)
    -> (Substring, Double)
  {
    let parts = text.utf8.split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: false)
      .map(Substring.init)
    guard parts.count == 2, parts[1].utf8.starts(with: "r=".utf8) else {
      throw .invalidIn("in: \(kind) needs exactly one radius, as \(kind):...;r=METERS")
    }
    let radiusText = parts[1].dropFirst(2)
    guard let radius = decimal(radiusText) else {
      throw .invalidIn("in: \(kind) radius \"\(excerpt(String(radiusText)))\" is not a number")
    }
    guard radius >= 0 else {
      throw .invalidGeometry("in: \(kind) radius \(radius) must be >= 0")
    }
    return (parts[0], radius)
  }

  private static func numbers(
    _ text: Substring, count: Int, what: String
  ) throws(TrafficQueryError) -> [Double] {
    let parts = text.utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
      .map(Substring.init)
    guard parts.count == count else {
      throw .invalidIn("in: \(what) needs \(count) numbers, got \(parts.count)")
    }
    var values: [Double] = []
    values.reserveCapacity(count)
    for part in parts {
      guard let value = decimal(part) else {
        throw .invalidIn("in: \(what): \"\(excerpt(String(part)))\" is not a number")
      }
      values.append(value)
    }
    return values
  }

  private static func coordinates(
    latitude: Double, longitude: Double
  ) throws(TrafficQueryError) -> GeoCoordinates {
    do {
      return try GeoCoordinates(latitude: latitude, longitude: longitude)
    } catch {
      throw .invalidGeometry("in: \(error)")
    }
  }

  /// A finite decimal number (`-12.5`, `1e3`); not `nan`, `inf` or hexadecimal, which
  /// `Double(_:)` would accept.
  static func decimal(_ text: Substring) -> Double? {
    guard !text.isEmpty, text.utf8.count <= 64,
      text.utf8.allSatisfy({
        ($0 >= 48 && $0 <= 57) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-")
          || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E")
      }), let value = Double(text), value.isFinite
    else { return nil }
    return value
  }

  /// At most 40 characters of untrusted text, for error details.
  static func excerpt(_ text: String) -> String {
    text.count <= 40 ? text : text.prefix(40) + "..."
  }
}
