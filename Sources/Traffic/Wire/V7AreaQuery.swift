import Codec
import Foundation

/// The `in` parameter of HERE Traffic API v7 queries, written and read: a circle, a box or a
/// corridor, in text form or in the JSON form of `POST` bodies.
///
/// Text forms (HERE Traffic API v7):
/// - `circle:{lat},{lng};r={meters}`
/// - `bbox:{west},{south},{east},{north}` (west > east crosses the antimeridian)
/// - `corridor:{flexible polyline};r={half width in meters}`
///
/// JSON forms, which the reader turns into the text form so that both share one parser:
/// `{"type": "circle", "center": {"lat", "lng"}, "radius"}`, `{"type": "bbox", "west",
/// "south", "east", "north"}`, `{"type": "corridor", "corridor", "radius"}`.
///
/// Numbers are written in their shortest form that reads back to the same `Double`, so a
/// circle or a box reads back equal; a corridor's polyline is written at precision 6
/// (about 0.1 m), so its vertices read back rounded to 10⁻⁶ degrees. The remote engine
/// writes the text form; the server reads both.
package enum V7AreaQuery {
  // MARK: Text form

  /// The text form of an area.
  ///
  /// - Throws: `TrafficQueryError.invalidGeometry` for a corridor whose polyline cannot be
  ///   encoded, `.invalidIn` for an area of another kind than the three.
  package static func encode(_ area: any GeoArea) throws(TrafficQueryError) -> String {
    switch area {
    case let circle as GeoCircle:
      return
        "circle:\(circle.center.latitude),\(circle.center.longitude);r=\(circle.radiusInMeters)"
    case let box as GeoBox:
      return "bbox:\(box.west),\(box.south),\(box.east),\(box.north)"
    case let corridor as GeoCorridor:
      do {
        let encoded = try FlexiblePolyline.encode(corridor.polyline, precision: 6)
        return "corridor:\(encoded);r=\(corridor.halfWidthInMeters)"
      } catch {
        throw .invalidGeometry("the corridor cannot be encoded: \(error)")
      }
    default:
      throw .invalidIn("unsupported area \(type(of: area)); use a circle, a box or a corridor")
    }
  }

  /// Reads and checks the text form of an area.
  ///
  /// - Parameters:
  ///   - text: The parameter value.
  ///   - limits: The largest areas allowed.
  /// - Returns: A `GeoCircle`, `GeoBox` or `GeoCorridor` within `limits`.
  /// - Throws: `TrafficQueryError.invalidIn` for an unknown type or unparseable text,
  ///   `.invalidGeometry` for values out of range or beyond `limits`; details begin with
  ///   `in`.
  /// - Complexity: O(n) in the length of the text.
  package static func decode(
    _ text: String, limits: TrafficQueryLimits
  ) throws(TrafficQueryError) -> any GeoArea {
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

  // MARK: JSON form

  /// Writes the JSON form of an area (the `in` member of a `POST` body).
  ///
  /// - Throws: As ``encode(_:)``.
  package static func encodeJSON(
    _ area: any GeoArea, to w: inout JSONWriter
  ) throws(TrafficQueryError) {
    w.beginObject()
    switch area {
    case let circle as GeoCircle:
      w.member("type", "circle")
      w.key("center")
      w.beginObject()
      w.member("lat", circle.center.latitude)
      w.member("lng", circle.center.longitude)
      w.endObject()
      w.member("radius", circle.radiusInMeters)
    case let box as GeoBox:
      w.member("type", "bbox")
      w.member("west", box.west)
      w.member("south", box.south)
      w.member("east", box.east)
      w.member("north", box.north)
    case let corridor as GeoCorridor:
      w.member("type", "corridor")
      do {
        w.member("corridor", try FlexiblePolyline.encode(corridor.polyline, precision: 6))
      } catch {
        throw .invalidGeometry("the corridor cannot be encoded: \(error)")
      }
      w.member("radius", corridor.halfWidthInMeters)
    default:
      throw .invalidIn("unsupported area \(type(of: area)); use a circle, a box or a corridor")
    }
    w.endObject()
  }

  /// The text form of the JSON `in` object of a `POST` body, for ``decode(_:limits:)``.
  ///
  /// - Throws: `TrafficQueryError.invalidIn` naming the missing or mistyped member.
  package static func text(
    fromJSON object: [String: JSONValue]
  ) throws(TrafficQueryError)
    -> String
  {
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

  // MARK: Reading

  /// Splits `HEAD;r=METERS` and parses the radius.
  private static func splitRadius(
    _ text: Substring, kind: String
  ) throws(TrafficQueryError) -> (Substring, Double) {
    let parts = text.utf8.split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: false)
      .map(Substring.init)
    guard parts.count == 2, parts[1].utf8.starts(with: "r=".utf8) else {
      throw .invalidIn("in: \(kind) needs exactly one radius, as \(kind):...;r=METERS")
    }
    let radiusText = parts[1].dropFirst(2)
    guard let radius = QueryParameters.decimal(radiusText) else {
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
      guard let value = QueryParameters.decimal(part) else {
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

  /// Whether two areas are equal: of the same kind, with equal values.
  package static func same(_ a: any GeoArea, _ b: any GeoArea) -> Bool {
    guard let a = a as? AnyHashable, let b = b as? AnyHashable else { return false }
    return a == b
  }

  private static func excerpt(_ text: String) -> String {
    QueryParameters.excerpt(text)
  }
}
