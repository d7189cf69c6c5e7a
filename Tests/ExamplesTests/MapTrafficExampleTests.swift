import Foundation
import Testing
import Traffic
import TrafficMap

@testable import map_traffic

@Suite struct MapTrafficExampleTests {
  let now = Date(timeIntervalSince1970: 1_811_851_200)  // 2027-06-01 12:00 UTC

  @Test func theGuidesMapCodeWritesPicturesThatShowEachStep() async throws {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("map-traffic-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    let sample = try SampleTraffic.make(network: nil, now: now)
    let (files, description) = try await runMapExample(sample, folder: folder, print: { _ in })
    #expect(
      files.map(\.lastPathComponent) == [
        "1-flow-and-incidents.png", "2-without-free-flow.png", "3-incidents-only.png",
        "4-picked-incident.png", "5-own-markers-layers-off.png",
      ])
    let images = try files.map { try Data(contentsOf: $0) }
    for image in images {
      let decoded = try MapImage(pixelData: image)
      #expect(decoded.width == 800 && decoded.height == 600)
    }
    // Every step changes the picture.
    for i in 1..<images.count { #expect(images[i] != images[i - 1], "step \(i + 1)") }
    // The tap found the accident, and its looked-up description was used.
    let text = try #require(description)
    #expect(!text.isEmpty)
    let accident = try await sample.engine.lookupIncident(with: "sample-accident")
    #expect(text == accident.description.text)
  }
}

@Suite struct TrafficAlongRouteExampleTests {
  @Test func theRouteShowsItsDelayAndTheIncidentOnIt() throws {
    let sample = try SampleTraffic.make(
      network: nil, now: Date(timeIntervalSince1970: 1_811_851_200))
    let traffic = try #require(try trafficAlongRoute(sample, print: { _ in }))
    #expect(traffic.lengthInMeters > 1_000)
    #expect(traffic.totalDelayInSeconds > 0)
    #expect(traffic.spans.contains { $0.jamFactor >= 4 })
    #expect(traffic.incidents.map(\.incident.originalId) == ["sample-closure"])
  }
}
