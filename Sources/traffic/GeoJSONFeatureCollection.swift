import Codec
import Foundation
import Geo
import Traffic

/// A GeoJSON FeatureCollection as the `within` command reads and writes it: each feature's
/// geometry decoded by `Geo`, its properties kept as parsed JSON.
struct GeoJSONFeatureCollection {
  struct Feature {
    let geometry: GeoGeometry
    let properties: [String: JSONValue]
  }

  let features: [Feature]

  init(features: [Feature]) { self.features = features }

  /// Parses a FeatureCollection (or a single Feature).
  ///
  /// - Throws: `GeoError.malformed` naming the byte of a JSON syntax error, or the feature
  ///   and what is wrong with it.
  init(data: Data) throws {
    let root = try GeoJSON.parse(data)
    guard let type = root["type"]?.string else {
      throw GeoError.malformed(
        format: "GeoJSON", position: nil, reason: "expected an object with a \"type\"")
    }
    let rawFeatures: [JSONValue]
    switch type {
    case "FeatureCollection":
      guard let list = root["features"]?.array else {
        throw GeoError.malformed(
          format: "GeoJSON", position: nil, reason: "\"features\" must be an array")
      }
      rawFeatures = list
    case "Feature":
      rawFeatures = [root]
    default:
      throw GeoError.malformed(
        format: "GeoJSON", position: nil,
        reason: "expected a FeatureCollection or a Feature, got \(type)")
    }
    features = try rawFeatures.enumerated().map { index, raw in
      guard let geometry = raw["geometry"] else {
        throw GeoError.malformed(
          format: "GeoJSON", position: nil, reason: "features[\(index)] has no geometry")
      }
      do {
        return Feature(
          geometry: try GeoJSON.decodeGeometry(fromJSONValue: geometry),
          properties: raw["properties"]?.object ?? [:])
      } catch {
        throw GeoError.malformed(
          format: "GeoJSON", position: nil, reason: "features[\(index)]: \(error)")
      }
    }
  }

  /// The collection as GeoJSON text (UTF-8), object keys sorted so the output is stable.
  func encoded() throws -> Data {
    var writer = JSONWriter(capacity: 256 * features.count)
    writer.beginObject()
    writer.key("features")
    writer.beginArray()
    for feature in features {
      writer.beginObject()
      writer.key("geometry")
      writer.append(try GeoJSON.encode(feature.geometry))
      writer.key("properties")
      writer.value(.object(feature.properties))
      writer.key("type")
      writer.string("Feature")
      writer.endObject()
    }
    writer.endArray()
    writer.key("type")
    writer.string("FeatureCollection")
    writer.endObject()
    return Data(writer.bytes)
  }
}
