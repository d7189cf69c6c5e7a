import Testing
@testable import Geo

@Suite struct GeoBoxTests {
  @Test func rejectsSouthOfNorth() {
    #expect(throws: GeoError.invalidBox(south: 10, north: 5)) {
      try GeoBox(west: 0, south: 10, east: 1, north: 5)
    }
  }
}
