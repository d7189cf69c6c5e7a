import Codec
import Foundation

/// A GeoJSON FeatureCollection (`traffic within` reads and writes one): each feature's
/// geometry decoded, its properties kept as parsed JSON.
package struct GeoJSONFeatureCollection {
  package struct Feature {
    /// The feature's geometries: one, a GeometryCollection's members (RFC 7946 §3.1.8), or
    /// none for an unlocated feature (`"geometry": null`, §3.2), which meets no area.
    package let geometries: [GeoGeometry]
    /// The `geometry` member as the document gave it (written back as it was).
    package let geometryJSON: JSONValue
    package let properties: [String: JSONValue]
    /// The feature's `id` member (RFC 7946 §3.2: a string or a number), when it has one.
    package let id: JSONValue?

    package init(
      geometries: [GeoGeometry], geometryJSON: JSONValue, properties: [String: JSONValue],
      id: JSONValue? = nil
    ) {
      self.geometries = geometries
      self.geometryJSON = geometryJSON
      self.properties = properties
      self.id = id
    }

    /// Whether the feature's geometry meets `area`: a path of it runs through the area, or
    /// the area lies inside one of its polygons (not in a hole).
    package func meets(_ area: some GeoArea) -> Bool {
      if geometries.contains(where: { $0.polylines.contains { area.intersects($0) } }) {
        return true
      }
      // No ring crosses the area: it lies wholly inside a polygon or wholly outside, so one
      // of its points tells which.
      guard let inside = GeoJSONFeatureCollection.point(in: area) else { return false }
      return geometries.contains { $0.surrounds(inside) }
    }

    /// The geodesic distance from `origin` to the geometry, meters: 0 inside a polygon.
    package func distance(to origin: GeoCoordinates) -> Double {
      if geometries.contains(where: { $0.surrounds(origin) }) { return 0 }
      return geometries.flatMap(\.polylines).map { $0.distance(to: origin) }.min() ?? .infinity
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
    let matches = features.filter { $0.meets(area) }
    guard let origin else { return matches.map { ($0, nil) } }
    let measured = matches.map { $0.distance(to: origin) }
    return measured.indices.sorted { measured[$0] < measured[$1] }.map {
      (matches[$0], measured[$0])
    }
  }

  /// A point of `area`: a circle's center, a box's south-west corner, a corridor's first
  /// point.
  static func point(in area: some GeoArea) -> GeoCoordinates? {
    switch area {
    case let circle as GeoCircle: return circle.center
    case let box as GeoBox: return box.southWestCorner
    case let corridor as GeoCorridor: return corridor.polyline.first
    default: return nil
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
          format: "GeoJSON", position: nil,
          reason: "features[\(index)] has no geometry member (an unlocated feature has "
            + "\"geometry\": null)")
      }
      do {
        return Feature(
          geometries: try Self.geometries(geometry, depth: 0), geometryJSON: geometry,
          properties: raw["properties"]?.object ?? [:],
          id: raw["id"].flatMap { $0.identifier != nil ? $0 : nil })
      } catch {
        throw GeoError.malformed(
          format: "GeoJSON", position: nil, reason: "features[\(index)]: \(error)")
      }
    }
  }

  /// The geometries of a feature's `geometry` member: none for `null`, a collection's
  /// members (collections in it too, at most 16 deep), else the one geometry.
  private static func geometries(_ value: JSONValue, depth: Int) throws -> [GeoGeometry] {
    if value.isNull { return [] }
    guard value["type"]?.string == "GeometryCollection" else {
      return [try GeoJSON.decodeGeometry(fromJSONValue: value)]
    }
    guard depth < 16 else {
      throw GeoError.malformed(
        format: "GeoJSON", position: nil, reason: "GeometryCollections nested over 16 deep")
    }
    guard let members = value["geometries"]?.array else {
      throw GeoError.malformed(
        format: "GeoJSON", position: nil,
        reason: "geometries: missing or not an array; a GeometryCollection needs geometries")
    }
    var result: [GeoGeometry] = []
    for (index, member) in members.enumerated() {
      guard !member.isNull else {
        throw GeoError.malformed(
          format: "GeoJSON", position: nil, reason: "geometries[\(index)]: is null")
      }
      do { result += try geometries(member, depth: depth + 1) } catch {
        throw GeoError.malformed(
          format: "GeoJSON", position: nil, reason: "geometries[\(index)]: \(error)")
      }
    }
    return result
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
      writer.value(feature.geometryJSON)
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
