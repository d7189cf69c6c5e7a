import Foundation
import Synchronization

/// Counters and latency histograms of the server, written out in the Prometheus text
/// exposition format (version 0.0.4).
final class ServerMetrics: Sendable {
  /// Upper bounds of the latency histogram buckets, seconds.
  static let latencyBuckets: [Double] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10,
  ]

  private struct RouteStats {
    var requestsByStatus: [Int: Int] = [:]
    var bucketCounts = [Int](repeating: 0, count: ServerMetrics.latencyBuckets.count)
    var latencySum: Double = 0
    var latencyCount = 0

    mutating func count(status: Int, bucket: Int?, seconds: Double) {
      requestsByStatus[status, default: 0] += 1
      if let bucket { bucketCounts[bucket] += 1 }
      latencySum += seconds
      latencyCount += 1
    }
  }

  private let routes = Mutex([String: RouteStats]())

  /// Counts one answered request.
  ///
  /// - Parameters:
  ///   - route: The route pattern (bounded set of labels), e.g. `/v7/incidents/{id}`.
  ///   - status: The status answered.
  ///   - seconds: How long handling took.
  func record(route: String, status: Int, seconds: Double) {
    let bucket = Self.latencyBuckets.firstIndex { seconds <= $0 }
    routes.withLock { routes in
      // Mutated in place: a copy out and back would copy the counters on every request.
      routes[route, default: RouteStats()].count(status: status, bucket: bucket, seconds: seconds)
    }
  }

  /// The number of requests answered on `route` with `status` (for tests).
  func requests(route: String, status: Int) -> Int {
    routes.withLock { $0[route]?.requestsByStatus[status] ?? 0 }
  }

  /// The request counters and latency histograms as Prometheus text.
  func exposition() -> String {
    let snapshot = routes.withLock { $0 }
    var out = "# HELP traffic_http_requests_total HTTP requests answered, by route and status.\n"
    out += "# TYPE traffic_http_requests_total counter\n"
    for route in snapshot.keys.sorted() {
      guard let stats = snapshot[route] else { continue }
      for status in stats.requestsByStatus.keys.sorted() {
        out +=
          "traffic_http_requests_total{route=\(Self.label(route)),status=\"\(status)\"} "
          + "\(stats.requestsByStatus[status] ?? 0)\n"
      }
    }
    out +=
      "# HELP traffic_http_request_duration_seconds Time from a request's arrival to its answer.\n"
    out += "# TYPE traffic_http_request_duration_seconds histogram\n"
    for route in snapshot.keys.sorted() {
      guard let stats = snapshot[route] else { continue }
      var cumulative = 0
      for (index, bound) in Self.latencyBuckets.enumerated() {
        cumulative += stats.bucketCounts[index]
        out +=
          "traffic_http_request_duration_seconds_bucket{route=\(Self.label(route)),"
          + "le=\"\(bound)\"} \(cumulative)\n"
      }
      out +=
        "traffic_http_request_duration_seconds_bucket{route=\(Self.label(route)),le=\"+Inf\"} "
        + "\(stats.latencyCount)\n"
      out +=
        "traffic_http_request_duration_seconds_sum{route=\(Self.label(route))} "
        + "\(stats.latencySum)\n"
      out +=
        "traffic_http_request_duration_seconds_count{route=\(Self.label(route))} "
        + "\(stats.latencyCount)\n"
    }
    return out
  }

  /// A quoted Prometheus label value: backslash, quote and newline escaped as the text
  /// format says, other control characters (which it has no escape for, and which would
  /// break a scraper's lines or terminal) replaced by U+FFFD.
  static func label(_ value: String) -> String {
    var quoted = "\""
    quoted.unicodeScalars.reserveCapacity(value.unicodeScalars.count + 2)
    for scalar in value.unicodeScalars {
      switch scalar {
      case "\\": quoted += "\\\\"
      case "\"": quoted += "\\\""
      case "\n": quoted += "\\n"
      case _ where scalar.properties.generalCategory == .control:
        quoted.unicodeScalars.append("\u{FFFD}")
      default: quoted.unicodeScalars.append(scalar)
      }
    }
    return quoted + "\""
  }
}
