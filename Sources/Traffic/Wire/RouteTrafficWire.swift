import Foundation
import Toolbox

/// The JSON of a traffic-on-route answer (`POST /v1/route/traffic`, `traffic route --json`).
public enum RouteTrafficWire {
  /// The JSON of a ``TrafficOnRoute``: speeds in m/s, lengths and offsets in meters,
  /// durations and delays in seconds (`delay` `null` on a closed span).
  public static func encode(_ result: TrafficOnRoute, sourceUpdated: Date?) -> Data {
    var w = JSONWriter(capacity: 256 + result.spans.count * 200 + result.incidents.count * 800)
    w.raw("{\"sourceUpdated\":")
    w.date(sourceUpdated)
    w.raw(",\"length\":")
    w.number(result.lengthInMeters, decimals: 1)
    w.raw(",\"baseDuration\":")
    w.number(result.baseDurationInSeconds, decimals: 1)
    w.raw(",\"trafficDuration\":")
    w.number(result.trafficDurationInSeconds, decimals: 1)
    w.raw(",\"totalDelay\":")
    w.number(result.totalDelayInSeconds, decimals: 1)
    w.raw(",\"blocked\":")
    w.bool(result.isBlocked)
    w.raw(",\"spans\":[")
    for (index, span) in result.spans.enumerated() {
      if index > 0 { w.byte(UInt8(ascii: ",")) }
      w.raw("{\"offset\":")
      w.number(span.offsetInMeters, decimals: 1)
      w.raw(",\"length\":")
      w.number(span.lengthInMeters, decimals: 1)
      w.raw(",\"baseSpeed\":")
      w.number(span.baseSpeedInMetersPerSecond, decimals: 2)
      w.raw(",\"trafficSpeed\":")
      w.number(span.trafficSpeedInMetersPerSecond, decimals: 2)
      w.raw(",\"jamFactor\":")
      w.number(span.jamFactor, decimals: 1)
      w.raw(",\"delay\":")
      if let delay = span.delayInSeconds { w.number(delay, decimals: 1) } else { w.null() }
      w.raw(",\"confidence\":")
      w.number(span.confidence, decimals: 2)
      w.raw(",\"traversability\":")
      w.string(span.traversability.rawValue)
      w.raw(",\"segmentId\":")
      w.integer(span.segmentID)
      if let name = span.roadName {
        w.raw(",\"description\":")
        w.string(name)
      }
      w.byte(UInt8(ascii: "}"))
    }
    w.raw("],\"incidents\":[")
    var bytes = w.bytes
    for (index, item) in result.incidents.enumerated() {
      if index > 0 { bytes.append(UInt8(ascii: ",")) }
      var head = JSONWriter(capacity: 32)
      head.raw("{\"offset\":")
      head.number(item.offsetInMeters, decimals: 1)
      head.raw(",\"incident\":")
      bytes += head.bytes
      bytes += V7IncidentWire.encodeLookup(item.incident)
      bytes.append(UInt8(ascii: "}"))
    }
    bytes += Array("]}".utf8)
    return Data(bytes)
  }
}
