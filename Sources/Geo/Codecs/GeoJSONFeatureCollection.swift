import Codec
import Foundation

/// A GeoJSON FeatureCollection (`traffic within` reads and writes one): each feature's
/// geometry decoded, its properties kept as parsed JSON.
package struct GeoJSONFeatureCollection {
  package struct Feature {
    package let geometry: GeoGeometry
    package let properties: [String: JSONValue]
    /// The feature's `id` member (RFC 7946 §3.2: a string or a number), when it has one.
    package let id: JSONValue?

    package init(geometry: GeoGeometry, properties: [String: JSONValue], id: JSONValue? = nil) {
      self.geometry = geometry
      self.properties = properties
      self.id = id
    }
  }

  package let features: [Feature]

  package init(features: [Feature]) { self.features = features }

  /// The features whose geometry meets `area`, in document order, or nearest first (with
  /// their geodesic distances in meters) when `origin` is given.
  ///
  /// - Complexity: O(n·v) for n features of v vertices, plus O(n log n) to sort.
  package func features(
    meeting area: some GeoArea, nearestTo origin: GeoCoordinates? = nil
  ) -> [(feature: Feature, distanceInMeters: Double?)] {
    let matches = features.filter { feature in
      feature.geometry.polylines.contains { area.intersects($0) }
    }
    guard let origin else { return matches.map { ($0, nil) } }
    let measured = matches.map { feature in
      feature.geometry.polylines.map { $0.distance(to: origin) }.min() ?? .infinity
    }
    return measured.indices.sorted { measured[$0] < measured[$1] }.map {
      (matches[$0], measured[$0])
    }
  }

  /// Parses a FeatureCollection (or a single Feature).
  ///
  /// - Throws: `GeoError.malformed` naming the byte of a JSON syntax error, or the feature
  ///   and what is wrong with it.
  package init(data: Data) throws {
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
          properties: raw["properties"]?.object ?? [:],
          id: raw["id"].flatMap { $0.identifier != nil ? $0 : nil })
      } catch {
        throw GeoError.malformed(
          format: "GeoJSON", position: nil, reason: "features[\(index)]: \(error)")
      }
    }
  }

  /// The collection as GeoJSON text (UTF-8), object keys sorted so the output is stable.
  package func encoded() throws -> Data {
    var writer = JSONWriter(capacity: 256 * features.count)
    writer.beginObject()
    writer.key("features")
    writer.beginArray()
    for feature in features {
      writer.beginObject()
      writer.key("geometry")
      writer.append(try GeoJSON.encode(feature.geometry))
      if let id = feature.id {
        writer.key("id")
        writer.value(id)
      }
      writer.key("properties")
      writer.value(.object(feature.properties))
      writer.member("type", "Feature")
      writer.endObject()
    }
    writer.endArray()
    writer.member("type", "FeatureCollection")
    writer.endObject()
    return Data(writer.bytes)
  }
}
