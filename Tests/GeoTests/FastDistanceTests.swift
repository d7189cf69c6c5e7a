import Foundation
import Testing
import TrafficTestSupport

@testable import Geo

@Suite struct FastDistanceTests {
  /// The bound documented on `fastDistance(to:)`: relative error at most 3.5e-4 up to 100 km
  /// between latitudes ±80°, and at most 4e-4 × (d / 100 km)² relative (plus 1 µm for the
  /// rounding of the coordinates) at every distance d.
  @Test func staysWithinDocumentedBound() {
    var generator = SeededGenerator(seed: 6)
    var count = 0, largestRelativeError = 0.0
    while count < 20_000 {
      let a = GeoCoordinates(
        uncheckedLatitude: .random(in: -80...80, using: &generator),
        longitude: .random(in: -180...180, using: &generator))
      let distance =
        Bool.random(using: &generator)
        ? Double.random(in: 0...100_000, using: &generator)
        : exp(Double.random(in: log(0.01)...log(100_000), using: &generator))
      let b = a.destination(
        bearing: .random(in: 0..<360, using: &generator), distanceInMeters: distance)
      guard abs(b.latitude) <= 80 else { continue }
      count += 1
      let exact = a.distance(to: b), fast = a.fastDistance(to: b)
      let error = abs(fast - exact)
      largestRelativeError = max(largestRelativeError, error / exact)
      #expect(error <= 3.5e-4 * exact, "\(a) -> \(b)")
      let scaled = exact / 100_000
      #expect(error <= 4e-4 * scaled * scaled * exact + 1e-6, "\(a) -> \(b)")
    }
    // The bound is not loose: high-latitude pairs near 100 km come close to it.
    #expect(largestRelativeError > 2.5e-4)
  }

  @Test func wrapsAcrossTheAntimeridian() throws {
    let west = try GeoCoordinates(latitude: 10, longitude: 179.9995)
    let east = try GeoCoordinates(latitude: 10, longitude: -179.9995)
    let exact = west.distance(to: east)
    #expect(abs(exact - 109.7) < 0.1)
    #expect(abs(west.fastDistance(to: east) - exact) <= 1e-6)
    #expect(abs(east.fastDistance(to: west) - exact) <= 1e-6)
  }

  @Test func isSymmetricAndZeroForCoincidentPoints() {
    var generator = SeededGenerator(seed: 7)
    for _ in 0..<1000 {
      let a = GeoCoordinates(
        uncheckedLatitude: .random(in: -80...80, using: &generator),
        longitude: .random(in: -180...180, using: &generator))
      let b = GeoCoordinates(
        uncheckedLatitude: a.latitude + .random(in: -0.5...0.5, using: &generator),
        longitude: a.longitude + .random(in: -0.5...0.5, using: &generator))
      #expect(a.fastDistance(to: b) == b.fastDistance(to: a))
      #expect(a.fastDistance(to: a) == 0)
    }
  }
}
