import Codec
import Foundation

/// The JSON of a traffic-on-route answer (`POST /v1/route/traffic`, `traffic route --json`).
public enum RouteTrafficWire {
  /// The JSON of a ``TrafficOnRoute``: speeds in m/s, lengths and offsets in meters,
  /// durations and delays in seconds (`delay` `null` on a closed span).
  public static func encode(_ result: TrafficOnRoute, sourceUpdated: Date?) -> Data {
    var w = JSONWriter(capacity: 256 + result.spans.count * 200 + result.incidents.count * 800)
    w.beginObject()
    w.key("sourceUpdated")
    w.date(sourceUpdated)
    w.key("length")
    w.number(result.lengthInMeters, decimals: 1)
    w.key("baseDuration")
    w.number(result.baseDurationInSeconds, decimals: 1)
    w.key("trafficDuration")
    w.number(result.trafficDurationInSeconds, decimals: 1)
    w.key("totalDelay")
    w.number(result.totalDelayInSeconds, decimals: 1)
    w.key("blocked")
    w.bool(result.isBlocked)
    w.key("spans")
    w.beginArray()
    for span in result.spans {
      w.beginObject()
      w.key("offset")
      w.number(span.offsetInMeters, decimals: 1)
      w.key("length")
      w.number(span.lengthInMeters, decimals: 1)
      w.key("baseSpeed")
      w.number(span.baseSpeedInMetersPerSecond, decimals: 2)
      w.key("trafficSpeed")
      w.number(span.trafficSpeedInMetersPerSecond, decimals: 2)
      w.key("jamFactor")
      w.number(span.jamFactor, decimals: 1)
      w.key("delay")
      if let delay = span.delayInSeconds { w.number(delay, decimals: 1) } else { w.null() }
      w.key("confidence")
      w.number(span.confidence, decimals: 2)
      w.key("traversability")
      w.string(span.traversability.rawValue)
      w.key("segmentId")
      w.integer(span.segmentID)
      if let name = span.roadName {
        w.key("description")
        w.string(name)
      }
      w.endObject()
    }
    w.endArray()
    w.key("incidents")
    w.beginArray()
    for item in result.incidents {
      w.beginObject()
      w.key("offset")
      w.number(item.offsetInMeters, decimals: 1)
      w.key("incident")
      V7IncidentWire.writeResult(item.incident, references: .shape, to: &w)
      w.endObject()
    }
    w.endArray()
    w.endObject()
    return Data(w.bytes)
  }
}
