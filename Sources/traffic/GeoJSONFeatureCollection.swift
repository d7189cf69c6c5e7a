import Foundation
import Geo

/// A GeoJSON FeatureCollection as the `within` command reads and writes it: each feature's
/// geometry decoded by `Geo`, its properties kept as parsed JSON.
struct GeoJSONFeatureCollection {
  struct Feature {
    let geometry: GeoGeometry
    let properties: [String: Any]
  }

  let features: [Feature]

  init(features: [Feature]) { self.features = features }

  /// Parses a FeatureCollection (or a single Feature).
  ///
  /// - Throws: `GeoError.malformed` naming the feature and what is wrong with it.
  init(data: Data) throws {
    let root: Any
    do { root = try JSONSerialization.jsonObject(with: data) } catch {
      throw GeoError.malformed(format: "GeoJSON", position: nil, reason: "not valid JSON")
    }
    guard let object = root as? [String: Any], let type = object["type"] as? String else {
      throw GeoError.malformed(
        format: "GeoJSON", position: nil, reason: "expected an object with a \"type\"")
    }
    let rawFeatures: [Any]
    switch type {
    case "FeatureCollection":
      guard let list = object["features"] as? [Any] else {
        throw GeoError.malformed(
          format: "GeoJSON", position: nil, reason: "\"features\" must be an array")
      }
      rawFeatures = list
    case "Feature":
      rawFeatures = [object]
    default:
      throw GeoError.malformed(
        format: "GeoJSON", position: nil,
        reason: "expected a FeatureCollection or a Feature, got \(type)")
    }
    features = try rawFeatures.enumerated().map { index, raw in
      guard let feature = raw as? [String: Any], let geometry = feature["geometry"] else {
        throw GeoError.malformed(
          format: "GeoJSON", position: nil, reason: "features[\(index)] has no geometry")
      }
      do {
        return Feature(
          geometry: try GeoJSON.decodeGeometry(fromJSONObject: geometry),
          properties: feature["properties"] as? [String: Any] ?? [:])
      } catch {
        throw GeoError.malformed(
          format: "GeoJSON", position: nil, reason: "features[\(index)]: \(error)")
      }
    }
  }

  /// The collection as GeoJSON text (UTF-8), keys sorted so the output is stable.
  func encoded() throws -> Data {
    let list: [[String: Any]] = try features.map { feature in
      [
        "type": "Feature", "geometry": try GeoJSON.jsonObject(for: feature.geometry),
        "properties": feature.properties,
      ]
    }
    return try JSONSerialization.data(
      withJSONObject: ["type": "FeatureCollection", "features": list], options: [.sortedKeys])
  }
}
