import Foundation
import Testing
import TrafficTestSupport

@testable import Geo

@Suite struct TransverseMercatorTests {
  struct Vector: Sendable, CustomTestStringConvertible {
    let zone: Int
    let south: Bool
    let latitude: Double
    let longitude: Double
    let easting: Double
    let northing: Double
    var testDescription: String { "zone \(zone)\(south ? "S" : "N") \(latitude),\(longitude)" }
  }

  /// Vectors made by PROJ (pyproj) with Vectors/make_utm_vectors.py.
  static let vectors: [Vector] = {
    guard
      let text = try? String(
        contentsOf: Fixtures.repositoryRoot.appendingPathComponent(
          "Tests/GeoTests/Vectors/utm_vectors.csv"), encoding: .utf8)
    else { return [] }
    return text.split(separator: "\n").compactMap { line in
      let f = line.split(separator: ",").map(String.init)
      guard f.count == 6, let zone = Int(f[0]), let lat = Double(f[2]), let lon = Double(f[3]),
        let e = Double(f[4]), let n = Double(f[5])
      else { return nil }
      return Vector(
        zone: zone, south: f[1] == "1", latitude: lat, longitude: lon, easting: e, northing: n)
    }
  }()

  @Test func vectorsAreLoaded() { #expect(Self.vectors.count == 49) }

  @Test("Forward projection matches PROJ within 1 mm", arguments: vectors)
  func forward(_ v: Vector) {
    let p = TransverseMercator.utm(zone: v.zone, south: v.south)
    let result = p.project(latitude: v.latitude, longitude: v.longitude)
    #expect(abs(result.easting - v.easting) < 1e-3)
    #expect(abs(result.northing - v.northing) < 1e-3)
  }

  @Test("Inverse projection matches PROJ within 1e-9 degrees (0.1 mm)", arguments: vectors)
  func inverse(_ v: Vector) {
    let p = TransverseMercator.utm(zone: v.zone, south: v.south)
    let result = p.unproject(easting: v.easting, northing: v.northing)
    #expect(abs(result.latitude - v.latitude) < 1e-9)
    var dLon = result.longitude - v.longitude
    dLon -= 360 * (dLon / 360).rounded()
    #expect(abs(dLon) < 1e-9)
  }

  @Test("A latitude of origin shifts northings to zero there")
  func latitudeOfOrigin() {
    let p = TransverseMercator(
      centralMeridian: 9, latitudeOfOrigin: 47, scale: 1, falseEasting: 0, falseNorthing: 100)
    let origin = p.project(latitude: 47, longitude: 9)
    #expect(abs(origin.easting) < 1e-9 && abs(origin.northing - 100) < 1e-6)
    let back = p.unproject(easting: 1234, northing: 5678)
    let again = p.project(latitude: back.latitude, longitude: back.longitude)
    #expect(abs(again.easting - 1234) < 1e-6 && abs(again.northing - 5678) < 1e-6)
  }
}
