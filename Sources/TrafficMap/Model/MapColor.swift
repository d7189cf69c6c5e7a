/// A colour with straight (not premultiplied) alpha, each component 0...1.
public struct MapColor: Hashable, Sendable {
  /// Red, 0...1.
  public var red: Double
  /// Green, 0...1.
  public var green: Double
  /// Blue, 0...1.
  public var blue: Double
  /// Opacity, 0 (transparent) ... 1 (opaque).
  public var alpha: Double

  /// Creates a colour; components are clamped to 0...1 (not a number becomes 0).
  ///
  /// - Parameters:
  ///   - red: Red, 0...1.
  ///   - green: Green, 0...1.
  ///   - blue: Blue, 0...1.
  ///   - alpha: Opacity, 0...1; opaque by default.
  public init(red: Double, green: Double, blue: Double, alpha: Double = 1) {
    func clamp(_ value: Double) -> Double { value.isNaN ? 0 : min(1, max(0, value)) }
    self.red = clamp(red)
    self.green = clamp(green)
    self.blue = clamp(blue)
    self.alpha = clamp(alpha)
  }

  /// A colour from a 24-bit `0xRRGGBB` value.
  ///
  /// - Parameters:
  ///   - rgb: The colour, `0xRRGGBB`; higher bits are ignored.
  ///   - alpha: Opacity, 0...1.
  public init(rgb: UInt32, alpha: Double = 1) {
    self.init(
      red: Double((rgb >> 16) & 0xFF) / 255, green: Double((rgb >> 8) & 0xFF) / 255,
      blue: Double(rgb & 0xFF) / 255, alpha: alpha)
  }

  /// Opaque black.
  public static let black = MapColor(rgb: 0x000000)
  /// Opaque white.
  public static let white = MapColor(rgb: 0xFFFFFF)
  /// Fully transparent.
  public static let clear = MapColor(red: 0, green: 0, blue: 0, alpha: 0)
}
