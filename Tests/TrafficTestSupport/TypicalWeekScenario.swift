import Foundation
import Geo
import Roads

/// The typical-speeds scenario of issue 18, on any real network: four weeks of probe
/// vehicles on two roads, each week at `now`'s weekday and time of day — road A slow
/// (6 m/s), road B fast (20 m/s) — and six hours before and after, on the same days, the
/// other way round. Nothing is live at `now`.
public struct TypicalWeekScenario: Sendable {
  /// One probe: vehicle, time, position.
  public struct Row: Sendable {
    /// The probe vehicle.
    public var vehicle: String
    /// When it was there.
    public var time: Date
    /// Where it was.
    public var coordinates: GeoCoordinates
  }

  /// The slow speed, m/s.
  public static let slow = 6.0
  /// The fast speed, m/s.
  public static let fast = 20.0

  /// Road A's directed segment id (slow at `now`'s time of the week).
  public let roadA: Int
  /// Road B's directed segment id (fast at `now`'s time of the week).
  public let roadB: Int
  /// The time the scenario asks about.
  public let now: Date
  /// The probes, in time order.
  public let rows: [Row]

  /// Builds the scenario: roads A and B are the two lowest-numbered segments at least
  /// 400 m long with a speed limit of at least 80 km/h, more than 2 km apart, on different
  /// ways.
  ///
  /// - Returns: `nil` when the network has no two such segments.
  public init?(network: RoadNetwork, now: Date, weeks: Int = 4) {
    let candidates = network.segments.filter {
      $0.lengthInMeters >= 400 && $0.speedLimitInMetersPerSecond >= 22
    }
    guard let a = candidates.first,
      let b = candidates.first(where: {
        $0.sourceID != a.sourceID
          && $0.geometry.vertices[0].distance(to: a.geometry.vertices[0]) > 2_000
      })
    else { return nil }
    roadA = a.id
    roadB = b.id
    self.now = now
    var rows: [Row] = []
    for week in 1...weeks {
      for (hours, speedA, speedB) in [
        (-6.0, Self.fast, Self.slow), (0, Self.slow, Self.fast), (6, Self.fast, Self.slow),
      ] {
        let center = now.addingTimeInterval(-Double(week) * 7 * 86_400 + hours * 3_600)
        for (road, speed) in [(a, speedA), (b, speedB)] {
          // Four vehicles, starting four and two minutes before, at and two minutes after.
          for (k, start) in [-240.0, -120, 0, 120].enumerated() {
            let vehicle = "w\(week)-h\(Int(hours))-s\(road.id)-v\(k)"
            var offset = 5.0
            var time = center.addingTimeInterval(start)
            while offset <= road.lengthInMeters - 5 {
              rows.append(
                Row(
                  vehicle: vehicle, time: time,
                  coordinates: road.geometry.coordinates(atDistance: offset)))
              offset += 3 * speed
              time = time.addingTimeInterval(3)
            }
          }
        }
      }
    }
    self.rows = rows.sorted { $0.time < $1.time }
  }

  /// The probes as `traffic probes import` reads CSV: `vehicle_id,time,lat,lon`.
  public var csv: String {
    var text = "vehicle_id,time,lat,lon\n"
    let formatter = ISO8601DateFormatter()
    for row in rows {
      text +=
        "\(row.vehicle),\(formatter.string(from: row.time)),"
        + "\(row.coordinates.latitude),\(row.coordinates.longitude)\n"
    }
    return text
  }
}
