import Foundation
import Testing
import TrafficTestSupport

@testable import TrafficFeeds

/// Large documents are decoded on several threads while they are read; the result must be
/// what decoding each record alone gives, in document order, problems included.
@Suite struct OrderedDecodingTests {
  @Test(arguments: [0, 1, 511, 512, 513, 5_000])
  func thePipelineKeepsOrderAndLosesNothing(count: Int) {
    let pipeline = OrderedPipeline<Int, Int>(chunkSize: 512, maxInFlight: 3) { value in
      // Uneven work, so that chunks finish out of order.
      if value % 97 == 0 { usleep(UInt32(200 + value % 5 * 300)) }
      return value * 2
    }
    for value in 0..<count { pipeline.add(value) }
    #expect(pipeline.finish() == (0..<count).map { $0 * 2 })
  }

  @Test func aLargeWZDxDocumentDecodesAsItsRecordsOneByOne() throws {
    func feature(_ number: Int) -> String {
      let latitude = 40.0 + Double(number % 100) * 0.001
      let geometry =
        number % 250 == 7
        ? "null"
        : #"{"type":"LineString","coordinates":[[-105.0,\#(latitude)],[-105.001,\#(latitude)]]}"#
      let type = number % 333 == 5 ? "device_type\":\"camera" : "event_type\":\"work-zone"
      return #"""
        {"id":"wz-\#(number)","type":"Feature","properties":{"core_details":{"\#(type)","data_source_id":"s","road_names":["US-\#(number % 7)"],"direction":"northbound","description":"Work \#(number)"},"start_date":"2026-11-30T10:00:00Z","end_date":"2027-11-30T10:00:00Z","vehicle_impact":"some-lanes-closed","location_method":"channel-device-method"},"geometry":\#(geometry)}
        """#
    }
    func document(_ features: [String]) -> Data {
      Data(
        (#"{"feed_info":{"publisher":"p","version":"4.2"},"type":"FeatureCollection","features":["#
          + features.joined(separator: ",") + "]}").utf8)
    }
    let numbers = Array(0..<3_000)
    let options = FeedOptions(sourceName: "t")
    let whole = try WZDxDecoder.decode(document(numbers.map(feature)), options: options)
    var incidents: [String] = []
    var problems: [String] = []
    for number in numbers {
      let alone = try WZDxDecoder.decode(document([feature(number)]), options: options)
      incidents += alone.incidents.map(\.originalId)
      problems += alone.problems.map { $0.reason }
      if let incident = alone.incidents.first {
        #expect(whole.incidents.first { $0.originalId == incident.originalId } == incident)
      }
    }
    #expect(whole.incidents.map(\.originalId) == incidents)
    #expect(whole.problems.map(\.reason) == problems)
    #expect(incidents.count > 2_900 && problems.count >= 10)
    #expect(whole.problems.first?.location?.contains("features[7]") == true)
  }
}
