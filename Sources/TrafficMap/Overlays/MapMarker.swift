import Foundation
import Traffic

/// An image pinned to a place on the map, drawn above the traffic layers (HERE SDK
/// `MapMarker`). Add it with `MapScene.addMapMarker(_:)`; a pick returns the very object.
///
/// Markers are compared by identity, as objects in the HERE SDK are.
public final class MapMarker: Sendable, Hashable {
  /// The place.
  public let coordinates: GeoCoordinates
  /// The picture.
  public let image: MapImage
  /// Which point of the image sits on `coordinates`.
  public let anchor: Anchor2D
  /// Free text for your own use (an id, say); returned with picks.
  public let metadata: String?

  /// Creates a marker.
  ///
  /// - Parameters:
  ///   - coordinates: The place.
  ///   - image: The picture.
  ///   - anchor: Which point of the picture sits on the place; its centre by default.
  ///   - metadata: Free text returned with picks.
  public init(
    at coordinates: GeoCoordinates, image: MapImage, anchor: Anchor2D = .center,
    metadata: String? = nil
  ) {
    self.coordinates = coordinates
    self.image = image
    self.anchor = anchor
    self.metadata = metadata
  }

  /// Identity.
  public static func == (a: MapMarker, b: MapMarker) -> Bool { a === b }

  /// Hashes the identity.
  public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
