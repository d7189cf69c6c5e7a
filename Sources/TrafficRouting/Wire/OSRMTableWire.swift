import Codec
import Foundation
import Geo

/// A ``RouteMatrix`` as OSRM's table service answers (`/table/v1/driving/...`):
/// `{"code":"Ok","durations":[[...]],"distances":[[...]],"sources":[...],"destinations":[...]}`,
/// durations in seconds and distances in meters (`null`: no route), each waypoint as
/// `{"hint","location":[lng,lat],"name","distance"}` (the point on the road, its road's
/// name, and its distance from the point asked for).
package enum OSRMTableWire {
  /// The options of the answer (those of the request that shape it).
  package struct Options: Sendable {
    /// Which of `duration` and `distance` to give.
    package var annotations = ["duration", "distance"]
    /// Durations are multiplied by this (`scale_factor`).
    package var scaleFactor = 1.0
    /// For a pair without a route: the straight line at this speed, m/s (`fallback_speed`),
    /// with `fallback_speed_cells` listing those pairs; `nil`: `null`.
    package var fallbackSpeed: Double?
    /// Whether the straight line runs between the points on the road (else those asked for).
    package var fallbackFromSnapped = false
    /// Whether waypoints carry a hint.
    package var hints = true
    /// Whether the waypoints are left out (`skip_waypoints`).
    package var skipWaypoints = false

    package init() {}
  }

  /// The answer's JSON.
  package static func encode(_ matrix: RouteMatrix, options: Options = Options()) -> Data {
    var w = JSONWriter(
      capacity: 256 + 24 * matrix.travelTimesInSeconds.count * matrix.destinations.count)
    w.beginObject()
    w.member("code", "Ok")
    var fallbackCells: [(Int, Int)] = []
    var durations = matrix.travelTimesInSeconds
    var distances = matrix.distancesInMeters
    for row in durations.indices {
      for column in durations[row].indices {
        if let seconds = durations[row][column] {
          durations[row][column] = seconds * options.scaleFactor
        } else if let speed = options.fallbackSpeed {
          let from = matrix.origins[row]
          let to = matrix.destinations[column]
          let meters =
            options.fallbackFromSnapped
            ? from.location.distance(to: to.location)
            : from.originalLocation.distance(to: to.originalLocation)
          durations[row][column] = meters / speed * options.scaleFactor
          distances[row][column] = meters
          fallbackCells.append((row, column))
        }
      }
    }
    for (name, rows) in [("durations", durations), ("distances", distances)]
    where options.annotations.contains(String(name.dropLast())) {
      w.key(name)
      w.beginArray()
      for row in rows {
        w.beginArray()
        for cell in row {
          // OSRM rounds durations to a tenth of a second and distances to a tenth of a meter.
          if let cell { w.number(cell, decimals: 1) } else { w.null() }
        }
        w.endArray()
      }
      w.endArray()
    }
    if options.fallbackSpeed != nil {
      w.key("fallback_speed_cells")
      w.beginArray()
      for (row, column) in fallbackCells {
        w.beginArray()
        w.integer(row)
        w.integer(column)
        w.endArray()
      }
      w.endArray()
    }
    if !options.skipWaypoints {
      for (name, places) in [("sources", matrix.origins), ("destinations", matrix.destinations)] {
        w.key(name)
        OSRMRouteWire.writeWaypoints(
          places.map {
            OSRMWaypoint(
              location: $0.location, distanceInMeters: $0.distanceInMeters,
              name: $0.roadName ?? "")
          }, hints: options.hints, to: &w)
      }
    }
    w.endObject()
    return Data(w.bytes)
  }
}
