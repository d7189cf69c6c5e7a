import Foundation
import Geo

/// The PostGIS geometry of an incident: a `MultiLineString` in WGS 84 (SRID 4326), longitude
/// first, one line per polyline.
///
/// A planar geometry cannot cross the antimeridian, so each line's longitudes are unwrapped:
/// every vertex lies within 180 degrees of the one before (179.5 then -179.5 becomes 179.5
/// then 180.5). A line's planar box is then exactly its `GeoPolyline.boundingBox`, and an
/// area query looks for boxes at the query's longitudes and 360 degrees either side of them
/// (`searchShiftsInDegrees`), which finds every line whose longitudes stay within 360 degrees
/// of its first vertex's.
///
/// Written as hex extended WKB (OGC Simple Features 06-103r4 well-known binary, with
/// PostGIS's SRID flag 0x20000000): exact doubles, no text parsing on the server.
enum IncidentGeometry {
  /// The longitude shifts at which candidates are searched.
  static let searchShiftsInDegrees: [Double] = [-360, 0, 360]

  /// The polylines as hex EWKB of a `MultiLineString` with SRID 4326.
  ///
  /// - Complexity: O(v) in the vertices.
  static func extendedWKBHex(_ polylines: [GeoPolyline]) -> String {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(13 + polylines.reduce(0) { $0 + 9 + 16 * $1.vertices.count })
    func append(_ value: UInt32) {
      withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
    }
    func append(_ value: Double) {
      withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes += $0 }
    }
    bytes.append(1)  // little-endian
    append(UInt32(5) | 0x2000_0000)  // MultiLineString with an SRID
    append(UInt32(4326))
    append(UInt32(polylines.count))
    for polyline in polylines {
      bytes.append(1)
      append(UInt32(2))  // LineString
      append(UInt32(polyline.vertices.count))
      var previous: Double?
      for vertex in polyline.vertices {
        var longitude = vertex.longitude
        if let previous {
          while longitude - previous > 180 { longitude -= 360 }
          while previous - longitude > 180 { longitude += 360 }
        }
        previous = longitude
        append(longitude)
        append(vertex.latitude)
      }
    }
    let digits = Array("0123456789ABCDEF".utf8)
    var hex: [UInt8] = []
    hex.reserveCapacity(bytes.count * 2)
    for byte in bytes {
      hex.append(digits[Int(byte >> 4)])
      hex.append(digits[Int(byte & 0x0F)])
    }
    return String(decoding: hex, as: UTF8.self)
  }
}
