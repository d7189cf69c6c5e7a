import Foundation

/// The polylines of a snapshot's incidents as one flat vertex store, in position order
/// (the Hilbert order of a whole build): a query's candidates, which lie near each other
/// on the map, are tested on a few contiguous runs of memory instead of one heap object
/// per polyline, each a cache miss and a reference count to touch.
///
/// Built with a whole snapshot and shared, unchanged, by the snapshots patched from it;
/// the positions changed since (`IncidentIndex`'s dirty positions) are read from their
/// incidents instead.
final class IncidentShapes: Sendable {
  /// Latitude (x) and longitude (y) of every vertex, polyline after polyline.
  private let vertices: [SIMD2<Double>]
  /// Where each polyline's vertices start in `vertices`, plus the end.
  private let polylineStarts: [Int32]
  /// Where each position's polylines (main one first) start in `polylineStarts`, plus the
  /// end.
  private let positionStarts: [Int32]

  /// The number of positions held.
  var count: Int { positionStarts.count - 1 }

  init(_ incidents: some Collection<TrafficIncident>) {
    var vertices: [SIMD2<Double>] = []
    var polylineStarts: [Int32] = [0]
    var positionStarts: [Int32] = [0]
    positionStarts.reserveCapacity(incidents.count + 1)
    polylineStarts.reserveCapacity(incidents.count + 1)
    vertices.reserveCapacity(incidents.count * 4)
    func add(_ polyline: GeoPolyline) {
      for vertex in polyline.vertices {
        vertices.append(SIMD2(vertex.latitude, vertex.longitude))
      }
      polylineStarts.append(Int32(vertices.count))
    }
    for incident in incidents {
      // Not `allPolylines`, which makes an array per incident.
      add(incident.location.polyline)
      for polyline in incident.location.additionalPolylines { add(polyline) }
      positionStarts.append(Int32(polylineStarts.count - 1))
    }
    self.vertices = vertices
    self.polylineStarts = polylineStarts
    self.positionStarts = positionStarts
  }

  /// Runs `body` with a reader of the shapes, valid only inside it.
  func withReader<Result>(_ body: (Reader) throws -> Result) rethrows -> Result {
    try vertices.withUnsafeBufferPointer { vertices in
      try polylineStarts.withUnsafeBufferPointer { polylineStarts in
        try positionStarts.withUnsafeBufferPointer { positionStarts in
          try body(
            Reader(
              vertices: vertices, polylineStarts: polylineStarts, positionStarts: positionStarts))
        }
      }
    }
  }

  /// Reads the shapes without reference counting.
  struct Reader {
    let vertices: UnsafeBufferPointer<SIMD2<Double>>
    let polylineStarts: UnsafeBufferPointer<Int32>
    let positionStarts: UnsafeBufferPointer<Int32>

    /// Whether any polyline of the incident at `position` passes `test`.
    func meets(_ position: Int, _ test: GeoPathTest) -> Bool {
      let polylines = Int(positionStarts[position])..<Int(positionStarts[position + 1])
      for polyline in polylines {
        let run = Int(polylineStarts[polyline])..<Int(polylineStarts[polyline + 1])
        if test.meets(UnsafeBufferPointer(rebasing: vertices[run])) { return true }
      }
      return false
    }
  }
}
