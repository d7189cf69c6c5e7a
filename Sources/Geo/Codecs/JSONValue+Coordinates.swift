import Codec

extension JSONValue {
  /// Validated coordinates, or an error naming `path` and the bad value.
  package static func coordinates(
    latitude: Double, longitude: Double, at path: String
  ) throws(JSONFieldError) -> GeoCoordinates {
    do {
      return try GeoCoordinates(latitude: latitude, longitude: longitude)
    } catch {
      throw JSONFieldError(path: path, reason: error.description)
    }
  }
}
