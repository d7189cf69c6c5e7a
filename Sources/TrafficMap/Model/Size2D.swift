/// A size in pixels, as in the HERE SDK.
public struct Size2D: Hashable, Sendable, CustomStringConvertible {
  /// Width, pixels.
  public var width: Double
  /// Height, pixels.
  public var height: Double

  /// Creates a size.
  ///
  /// - Parameters:
  ///   - width: Width, pixels.
  ///   - height: Height, pixels.
  public init(width: Double, height: Double) {
    self.width = width
    self.height = height
  }

  /// `"WxH"`.
  public var description: String { "\(width)x\(height)" }
}
