import Foundation
import Geo

extension OSRMQuery {
  /// The request's path: `/{service}/v1/{profile}/{lng,lat;...}`.
  package var path: String {
    "/\(service.rawValue)/v1/\(profile)/"
      + coordinates.map { "\(Self.decimal($0.longitude)),\(Self.decimal($0.latitude))" }
      .joined(separator: ";")
  }

  /// The request's options, those that differ from their defaults, in a fixed order.
  package var parameters: [(String, String)] {
    var result: [(String, String)] = []
    func list<T>(_ name: String, _ values: [T?]?, _ write: (T) -> String) {
      guard let values else { return }
      result.append((name, values.map { $0.map(write) ?? "" }.joined(separator: ";")))
    }
    list("bearings", bearings) { "\($0.degrees),\($0.range)" }
    if let radiuses {
      result.append(
        ("radiuses", radiuses.map { $0.map(Self.decimal) ?? "unlimited" }.joined(separator: ";")))
    }
    if let hints { result.append(("hints", hints.joined(separator: ";"))) }
    if !generateHints { result.append(("generate_hints", "false")) }
    list("approaches", approaches) { $0 }
    if let snapping { result.append(("snapping", snapping)) }
    if !exclude.isEmpty {
      result.append(("exclude", exclude.sorted().map(\.rawValue).joined(separator: ",")))
    }
    if skipWaypoints { result.append(("skip_waypoints", "true")) }
    switch service {
    case .route:
      if alternatives != 0 { result.append(("alternatives", String(alternatives))) }
      if steps { result.append(("steps", "true")) }
      if !annotations.isEmpty {
        result.append(("annotations", annotations.joined(separator: ",")))
      }
      if geometries != .polyline { result.append(("geometries", geometries.rawValue)) }
      if overview != .simplified { result.append(("overview", overview.rawValue)) }
      if let continueStraight {
        result.append(("continue_straight", continueStraight ? "true" : "false"))
      }
      if let waypoints {
        result.append(("waypoints", waypoints.map(String.init).joined(separator: ";")))
      }
    case .table:
      if let sources { result.append(("sources", sources.map(String.init).joined(separator: ";"))) }
      if let destinations {
        result.append(("destinations", destinations.map(String.init).joined(separator: ";")))
      }
      if annotations != ["duration"] {
        result.append(("annotations", annotations.joined(separator: ",")))
      }
      if let fallbackSpeed { result.append(("fallback_speed", Self.decimal(fallbackSpeed))) }
      if fallbackCoordinateSnapped { result.append(("fallback_coordinate", "snapped")) }
      if scaleFactor != 1 { result.append(("scale_factor", Self.decimal(scaleFactor))) }
    case .nearest:
      if number != 1 { result.append(("number", String(number))) }
    }
    return result
  }

  /// The request's target: the path and the query, percent-encoded.
  package var target: String {
    let query = parameters.map { name, value in
      name + "=" + (value.addingPercentEncoding(withAllowedCharacters: Self.queryValue) ?? value)
    }
    return path + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
  }

  private static let queryValue: CharacterSet = {
    var set = CharacterSet.alphanumerics
    set.insert(charactersIn: "-._~,;")
    return set
  }()

  /// A number as the shortest decimal that reads back the same.
  static func decimal(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
  }
}
