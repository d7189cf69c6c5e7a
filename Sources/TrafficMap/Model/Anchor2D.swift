/// Which point of a marker image sits on the marker's coordinates, as fractions of the
/// image's width and height from its top-left corner (HERE SDK `Anchor2D`).
///
/// `(0.5, 1)` puts the middle of the bottom edge on the place (a pin); `(0.5, 0.5)` centres
/// the image.
public struct Anchor2D: Hashable, Sendable {
  /// Fraction of the width from the left, 0...1.
  public var horizontal: Double
  /// Fraction of the height from the top, 0...1.
  public var vertical: Double

  /// Creates an anchor; values are clamped to 0...1 (not a number becomes 0.5).
  ///
  /// - Parameters:
  ///   - horizontal: Fraction of the width from the left.
  ///   - vertical: Fraction of the height from the top.
  public init(horizontal: Double = 0.5, vertical: Double = 0.5) {
    self.horizontal = horizontal.isNaN ? 0.5 : min(1, max(0, horizontal))
    self.vertical = vertical.isNaN ? 0.5 : min(1, max(0, vertical))
  }

  /// The middle of the image.
  public static let center = Anchor2D()
  /// The middle of the bottom edge (a pin's tip).
  public static let bottomCenter = Anchor2D(horizontal: 0.5, vertical: 1)
}
