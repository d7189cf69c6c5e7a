import Codec
import Foundation
import Traffic

/// How the command line prints incidents: one line each, details for one, or v7 JSON.
enum IncidentOutput {
  /// `[construction, minor] sachsendamm: Berlin, Sachsendamm … (until 2028-02-20 00:00 UTC)`.
  static func line(_ incident: TrafficIncident, suffix: String = "") -> String {
    var text = "[\(incident.type.rawValue), \(impactName(incident.impact))] \(incident.originalId)"
    text += suffix + ": " + incident.description.text
    if let end = incident.endTime { text += " (until \(timestamp(end)))" }
    return text
  }

  /// Every field a user looks at, one per line.
  static func details(_ incident: TrafficIncident) -> String {
    var lines = [
      "\(incident.originalId) (version \(incident.id))",
      "  type:        \(incident.type.rawValue)",
      "  impact:      \(impactName(incident.impact))",
      "  description: \(incident.description.text) [\(incident.description.language.identifier)]",
      "  summary:     \(incident.summary.text)",
      "  start:       \(incident.startTime.map(timestamp) ?? "unknown")",
      "  end:         \(incident.endTime.map(timestamp) ?? "open")",
      "  road closed: \(incident.isRoadClosed ? "yes" : "no")",
      "  length:      \(meters(incident.location.lengthInMeters))",
    ]
    if let place = incident.location.description { lines.append("  location:    \(place)") }
    let first = incident.location.polyline.vertices[0]
    lines.append("  at:          \(first.latitude),\(first.longitude)")
    if !incident.codes.isEmpty {
      lines.append("  codes:       \(incident.codes.map(String.init).joined(separator: ", "))")
    }
    return lines.joined(separator: "\n")
  }

  /// HERE Traffic API v7's answer to a lookup: the one result object.
  static func v7LookupJSON(_ incident: TrafficIncident) -> String {
    String(decoding: V7IncidentWire.encodeLookup(incident), as: UTF8.self)
  }

  /// The HERE Traffic API v7 incidents response.
  static func v7JSON(_ incidents: [TrafficIncident], sourceUpdated: Date?) -> String {
    String(decoding: V7IncidentWire.encode(incidents, sourceUpdated: sourceUpdated), as: UTF8.self)
  }

  static func meters(_ value: Double) -> String {
    value < 1_000 ? "\(Int(value.rounded())) m" : String(format: "%.1f km", value / 1_000)
  }

  static func impactName(_ impact: TrafficIncidentImpact) -> String {
    impact == .low ? "low" : impact.rawValue
  }

  static func timestamp(_ date: Date) -> String {
    // Whole seconds, as a reader wants them (`--json` keeps the milliseconds).
    RFC3339.format(Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down)))
  }
}
