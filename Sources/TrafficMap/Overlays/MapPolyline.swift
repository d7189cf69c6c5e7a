import Foundation
import Traffic

/// A line drawn on the map above the traffic layers — to show an incident's extent yourself,
/// as the HERE guide suggests, or a route (HERE SDK `MapPolyline` with a solid
/// representation). Add it with `MapScene.addMapPolyline(_:)`; a pick returns the very
/// object.
///
/// Polylines are compared by identity, as objects in the HERE SDK are.
public final class MapPolyline: Sendable, Hashable {
  /// The line.
  public let geometry: GeoPolyline
  /// The width of the line, pixels.
  public let widthInPixels: Double
  /// The line's colour.
  public let color: MapColor
  /// The width of the outline on each side, pixels; 0 for none.
  public let outlineWidthInPixels: Double
  /// The outline's colour.
  public let outlineColor: MapColor
  /// Free text for your own use; returned with picks.
  public let metadata: String?

  /// Creates a polyline.
  ///
  /// - Parameters:
  ///   - geometry: The line.
  ///   - widthInPixels: 0.5...64 pixels (clamped).
  ///   - color: Its colour.
  ///   - outlineWidthInPixels: Outline per side, 0...16 pixels (clamped).
  ///   - outlineColor: The outline's colour.
  ///   - metadata: Free text returned with picks.
  public init(
    geometry: GeoPolyline, widthInPixels: Double, color: MapColor,
    outlineWidthInPixels: Double = 0, outlineColor: MapColor = .black, metadata: String? = nil
  ) {
    self.geometry = geometry
    self.widthInPixels = widthInPixels.isNaN ? 1 : min(64, max(0.5, widthInPixels))
    self.color = color
    self.outlineWidthInPixels =
      outlineWidthInPixels.isNaN ? 0 : min(16, max(0, outlineWidthInPixels))
    self.outlineColor = outlineColor
    self.metadata = metadata
  }

  /// Identity.
  public static func == (a: MapPolyline, b: MapPolyline) -> Bool { a === b }

  /// Hashes the identity.
  public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
