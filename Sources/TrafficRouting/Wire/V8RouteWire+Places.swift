import Foundation
import Geo
import Traffic

extension V8RouteWire {
  /// A place as v8 writes it, `LAT,LNG`.
  ///
  /// - Parameter name: what the place is (`origin`, `via`, `--to`), for the error.
  /// - Throws: ``RoutingError/invalidOption(_:)`` naming the place and what is wrong.
  public static func place(_ text: String, name: String) throws(RoutingError) -> GeoCoordinates {
    let parts = text.split(separator: ",", omittingEmptySubsequences: false)
    // Decimal numbers only: Double(_:) also reads hexadecimal (`0x2F` as 47) and `nan`.
    guard parts.count == 2, let latitude = QueryParameters.decimal(parts[0]),
      let longitude = QueryParameters.decimal(parts[1])
    else { throw .invalidOption("\(name) \(text) is not LAT,LNG (decimal degrees)") }
    do {
      return try GeoCoordinates(latitude: latitude, longitude: longitude)
    } catch {
      throw .invalidOption("\(name) \(text): \(error)")
    }
  }

  /// A place with v8's place options: `LAT,LNG` then `;course=DEGREES` (0...359, the
  /// direction of travel there), the only place option this service takes.
  ///
  /// - Parameter name: what the place is (`origin`, `destination`, `via 2`), for the error.
  /// - Throws: ``RoutingError/invalidOption(_:)`` naming the place and the option.
  public static func placeWithOptions(
    _ text: String, name: String
  ) throws(RoutingError) -> Waypoint {
    let parts = text.split(separator: ";", omittingEmptySubsequences: false)
    var point = Waypoint(try place(String(parts[0]), name: name))
    for option in parts.dropFirst() {
      let pair = option.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      let value = pair.count == 2 ? String(pair[1]) : ""
      guard pair[0] == "course" else {
        throw .invalidOption("\(name) place option \(pair[0]) is not supported; give course")
      }
      guard point.headingInDegrees == nil else {
        throw .invalidOption("\(name) course is given more than once")
      }
      guard let degrees = Int(value), (0..<360).contains(degrees) else {
        throw .invalidOption("\(name) course \(value) is not whole degrees 0...359")
      }
      point.headingInDegrees = Double(degrees)
    }
    return point
  }

  /// A place as v8 writes it, with its course when it has one (`LAT,LNG;course=DEGREES`).
  public static func placeText(_ point: Waypoint) -> String {
    let place = "\(point.coordinates.latitude),\(point.coordinates.longitude)"
    guard let heading = point.headingInDegrees else { return place }
    return place + ";course=\(Int(heading.rounded()) % 360)"
  }

  /// A via point as v8 writes it: `LAT,LNG` with its place options (`;course=DEGREES`),
  /// then its options, `!stopDuration=SECONDS` (0...86400) and `!passThrough=true|false`,
  /// checked as ``Waypoint`` checks them.
  ///
  /// - Parameter index: the via point's number, for the error.
  /// - Throws: ``RoutingError/invalidOption(_:)`` naming the via point and the option.
  public static func waypoint(_ text: String, index: Int) throws(RoutingError) -> Waypoint {
    let parts = text.split(separator: "!", omittingEmptySubsequences: false)
    var point = try placeWithOptions(String(parts[0]), name: "via \(index)")
    var given: Set<String> = []
    for option in parts.dropFirst() {
      let pair = option.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      let name = String(pair[0]), value = pair.count == 2 ? String(pair[1]) : ""
      guard given.insert(name).inserted else {
        throw .invalidOption("via \(index) \(name) is given more than once")
      }
      switch name {
      case "stopDuration":
        guard let seconds = Int(value) else {
          throw .invalidOption("via \(index) stopDuration \(value) is not whole seconds")
        }
        point.stopDurationInSeconds = Double(seconds)
      case "passThrough":
        guard value == "true" || value == "false" else {
          throw .invalidOption("via \(index) passThrough \(value) is not true or false")
        }
        point.isPassThrough = value == "true"
      default:
        throw .invalidOption(
          "via \(index) option \(name) is not supported; give stopDuration or passThrough")
      }
    }
    try point.validate(index: index)
    return point
  }
}
