/// Why a v7 response, or one result of it, could not be read.
public struct V7WireError: Error, Hashable, Sendable, CustomStringConvertible {
  /// Where: a JSON path (`results[2].incidentDetails.startTime`) or a text position
  /// (`line 3, column 5 (byte 40)`).
  public var location: String
  /// What was wrong.
  public var reason: String

  /// Creates an error.
  public init(location: String, reason: String) {
    self.location = location
    self.reason = reason
  }

  /// `"location: reason"`.
  public var description: String { "\(location): \(reason)" }
}
