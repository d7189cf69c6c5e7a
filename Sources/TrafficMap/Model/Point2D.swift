/// A point in a view, in pixels from the top-left corner (x to the right, y down), as in the
/// HERE SDK.
public struct Point2D: Hashable, Sendable, CustomStringConvertible {
  /// Pixels from the left edge.
  public var x: Double
  /// Pixels from the top edge.
  public var y: Double

  /// Creates a point.
  ///
  /// - Parameters:
  ///   - x: Pixels from the left edge.
  ///   - y: Pixels from the top edge.
  public init(x: Double, y: Double) {
    self.x = x
    self.y = y
  }

  /// `"x,y"`.
  public var description: String { "\(x),\(y)" }
}
