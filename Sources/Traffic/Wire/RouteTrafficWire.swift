import Codec
import Foundation

/// The JSON of a traffic-on-route answer (`POST /v1/route/traffic`, `traffic route --json`).
public enum RouteTrafficWire {
  /// The JSON of a ``TrafficOnRoute``: speeds in m/s, lengths and offsets in meters,
  /// durations and delays in seconds (`delay` `null` on a closed span).
  public static func encode(_ result: TrafficOnRoute, sourceUpdated: Date?) -> Data {
    var w = JSONWriter(capacity: 256 + result.spans.count * 200 + result.incidents.count * 800)
    w.beginObject()
    w.member("sourceUpdated", sourceUpdated)
    w.member("length", result.lengthInMeters, decimals: 1)
    w.member("baseDuration", result.baseDurationInSeconds, decimals: 1)
    w.member("trafficDuration", result.trafficDurationInSeconds, decimals: 1)
    w.member("totalDelay", result.totalDelayInSeconds, decimals: 1)
    w.member("blocked", result.isBlocked)
    w.key("spans")
    w.beginArray()
    for span in result.spans {
      w.beginObject()
      w.member("offset", span.offsetInMeters, decimals: 1)
      w.member("length", span.lengthInMeters, decimals: 1)
      w.member("baseSpeed", span.baseSpeedInMetersPerSecond, decimals: 2)
      w.member("trafficSpeed", span.trafficSpeedInMetersPerSecond, decimals: 2)
      w.member("jamFactor", span.jamFactor, decimals: 1)
      w.key("delay")
      if let delay = span.delayInSeconds { w.number(delay, decimals: 1) } else { w.null() }
      w.member("confidence", span.confidence, decimals: 2)
      w.member("traversability", span.traversability.rawValue)
      w.member("segmentId", span.segmentID)
      if let name = span.roadName {
        w.member("description", name)
      }
      w.endObject()
    }
    w.endArray()
    w.key("incidents")
    w.beginArray()
    for item in result.incidents {
      w.beginObject()
      w.member("offset", item.offsetInMeters, decimals: 1)
      w.key("incident")
      V7IncidentWire.writeResult(item.incident, references: .shape, to: &w)
      w.endObject()
    }
    w.endArray()
    w.endObject()
    return Data(w.bytes)
  }
}
