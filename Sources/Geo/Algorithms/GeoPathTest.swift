import Foundation

/// The exact test of `GeoArea.intersects(_:)` prepared once for one area and run on many
/// paths given as any collection of vertices (an index's flat vertex store, for one), so
/// that a query neither redoes the area's set-up per path nor copies paths into
/// `GeoPolyline`s. Answers are those of `GeoArea.intersects(_:)`.
package struct GeoPathTest: Sendable {
  private enum Kind: Sendable {
    case circle(GeoCircle.PathTest)
    case box(GeoBox)
    case area(any GeoArea)
  }

  private let kind: Kind

  /// The test for `area`.
  package init(_ area: some GeoArea) {
    if let circle = area as? GeoCircle {
      kind = .circle(GeoCircle.PathTest(circle))
    } else if let box = area as? GeoBox {
      kind = .box(box)
    } else {
      kind = .area(area)
    }
  }

  /// Whether any part of the path through `vertices` (at least two; latitude in `x`,
  /// longitude in `y`, as a flat vertex store keeps them) lies in the area.
  package func meets(_ vertices: UnsafeBufferPointer<SIMD2<Double>>) -> Bool {
    meets(vertices.lazy.map { GeoCoordinates(uncheckedLatitude: $0.x, longitude: $0.y) })
  }

  /// Whether any part of the polyline lies in the area.
  package func meets(_ polyline: GeoPolyline) -> Bool {
    switch kind {
    case .circle(let test): test.meets(polyline.vertices)
    case .box(let box): polyline.intersects(box)
    case .area(let area): area.intersects(polyline)
    }
  }

  /// Specialised here, in the module, for each kind of vertex collection above.
  private func meets<Path: RandomAccessCollection<GeoCoordinates>>(_ vertices: Path) -> Bool {
    switch kind {
    case .circle(let test): test.meets(vertices)
    case .box(let box): GeoPolyline.path(vertices, meets: box)
    case .area(let area): area.intersects(GeoPolyline(uncheckedVertices: Array(vertices)))
    }
  }
}
