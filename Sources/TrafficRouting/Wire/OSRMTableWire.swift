import Codec
import Foundation
import Geo

/// A ``RouteMatrix`` as OSRM's table service answers (`/table/v1/driving/...`):
/// `{"code":"Ok","durations":[[...]],"distances":[[...]],"sources":[...],"destinations":[...]}`,
/// durations in seconds and distances in meters (`null`: no route), each waypoint as
/// `{"location":[lng,lat],"name":"","distance":m}` (the point on the road, and its distance
/// from the point asked for).
package enum OSRMTableWire {
  /// The answer's JSON.
  package static func encode(_ matrix: RouteMatrix) -> Data {
    var w = JSONWriter(
      capacity: 256 + 24 * matrix.travelTimesInSeconds.count * matrix.destinations.count)
    w.beginObject()
    w.member("code", "Ok")
    for (name, rows) in [
      ("durations", matrix.travelTimesInSeconds), ("distances", matrix.distancesInMeters),
    ] {
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
    for (name, places) in [("sources", matrix.origins), ("destinations", matrix.destinations)] {
      w.key(name)
      w.beginArray()
      for place in places {
        w.beginObject()
        w.key("location")
        w.beginArray()
        w.number(place.location.longitude, decimals: 6)
        w.number(place.location.latitude, decimals: 6)
        w.endArray()
        w.member("name", "")
        w.member("distance", place.distanceInMeters, decimals: 1)
        w.endObject()
      }
      w.endArray()
    }
    w.endObject()
    return Data(w.bytes)
  }
}
