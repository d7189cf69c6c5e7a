/// A rectangle in a view, in pixels: its top-left corner and its size, as in the HERE SDK.
///
/// Picking with a 1 x 1 rectangle picks at one pixel (a tap).
public struct Rectangle2D: Hashable, Sendable, CustomStringConvertible {
  /// The top-left corner.
  public var origin: Point2D
  /// The extent to the right and down.
  public var size: Size2D

  /// Creates a rectangle.
  ///
  /// - Parameters:
  ///   - origin: The top-left corner, pixels.
  ///   - size: Width and height, pixels.
  public init(origin: Point2D, size: Size2D) {
    self.origin = origin
    self.size = size
  }

  /// The right edge, pixels.
  public var maxX: Double { origin.x + size.width }
  /// The bottom edge, pixels.
  public var maxY: Double { origin.y + size.height }
  /// The centre.
  public var center: Point2D {
    Point2D(x: origin.x + size.width / 2, y: origin.y + size.height / 2)
  }

  /// Whether the rectangle contains a point (edges included).
  ///
  /// - Parameter point: A point in the same view.
  /// - Returns: `true` when `point` lies inside or on the border.
  public func contains(_ point: Point2D) -> Bool {
    point.x >= origin.x && point.x <= maxX && point.y >= origin.y && point.y <= maxY
  }

  /// `"x,y WxH"`.
  public var description: String { "\(origin) \(size)" }
}
