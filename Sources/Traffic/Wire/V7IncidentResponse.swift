import Foundation

/// A decoded v7 incidents response.
public struct V7IncidentResponse: Sendable {
  /// When the data was last updated (`sourceUpdated`), if the response says.
  public var sourceUpdated: Date?
  /// The incidents that could be read, in response order.
  public var incidents: [TrafficIncident]
  /// Results that were skipped, each with its JSON path and the reason.
  public var problems: [V7WireError]

  /// Creates a response.
  public init(
    sourceUpdated: Date?, incidents: [TrafficIncident], problems: [V7WireError] = []
  ) {
    self.sourceUpdated = sourceUpdated
    self.incidents = incidents
    self.problems = problems
  }
}
