import Foundation
import Geo

extension V8RouteWire {
  /// A place as v8 writes it, `LAT,LNG`.
  ///
  /// - Parameter name: what the place is (`origin`, `via`, `--to`), for the error.
  /// - Throws: ``RoutingError/invalidOption(_:)`` naming the place and what is wrong.
  public static func place(_ text: String, name: String) throws(RoutingError) -> GeoCoordinates {
    let parts = text.split(separator: ",", omittingEmptySubsequences: false)
    guard parts.count == 2, let latitude = Double(parts[0]), let longitude = Double(parts[1]),
      latitude.isFinite, longitude.isFinite
    else { throw .invalidOption("\(name) \(text) is not LAT,LNG") }
    do {
      return try GeoCoordinates(latitude: latitude, longitude: longitude)
    } catch {
      throw .invalidOption("\(name) \(text): \(error)")
    }
  }

  /// A via point as v8 writes it: `LAT,LNG` then its options, `!stopDuration=SECONDS`
  /// (0...86400) and `!passThrough=true|false`, checked as ``Waypoint`` checks them.
  ///
  /// - Parameter index: the via point's number, for the error.
  /// - Throws: ``RoutingError/invalidOption(_:)`` naming the via point and the option.
  public static func waypoint(_ text: String, index: Int) throws(RoutingError) -> Waypoint {
    let parts = text.split(separator: "!", omittingEmptySubsequences: false)
    var point = Waypoint(try place(String(parts[0]), name: "via"))
    for option in parts.dropFirst() {
      let pair = option.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      let name = String(pair[0]), value = pair.count == 2 ? String(pair[1]) : ""
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
