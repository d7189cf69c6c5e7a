import Codec
import Foundation
import Roads
import Testing
import Traffic

@Suite struct ProbeCoderTests {
  static func probes() throws -> [Probe] {
    [
      Probe(
        vehicleID: "tåxi 7", time: Date(timeIntervalSinceReferenceDate: 820_000_000.123456789),
        coordinates: try GeoCoordinates(latitude: 52.5, longitude: -179.999999, altitude: 31.5),
        speedInMetersPerSecond: 8.25, headingInDegrees: 359.5, accuracyInMeters: 4),
      Probe(
        vehicleID: "bus", time: Date(timeIntervalSinceReferenceDate: 820_000_001),
        coordinates: try GeoCoordinates(latitude: -90, longitude: 180)),
      Probe(
        vehicleID: "tåxi 7", time: Date(timeIntervalSinceReferenceDate: 820_000_005),
        coordinates: try GeoCoordinates(latitude: 52.5001, longitude: 13),
        speedInMetersPerSecond: -0.0),
    ]
  }

  @Test func aBatchRoundTripsExactlyInItsOrder() throws {
    let bytes = [UInt8](ProbeCoder.data(try Self.probes()))
    let decoded = try ProbeCoder.probes(bytes, name: "batch")
    #expect(decoded == (try Self.probes()))
    #expect(decoded[2].speedInMetersPerSecond?.sign == .minus)
    #expect(try ProbeCoder.probes([UInt8](ProbeCoder.data([])), name: "empty") == [])
  }

  @Test func damagedBytesAreRefusedWithTheBatchsName() throws {
    let bytes = [UInt8](ProbeCoder.data(try Self.probes()))
    for length in 0..<bytes.count {
      #expect {
        try ProbeCoder.probes(Array(bytes.prefix(length)), name: "probe batch 7")
      } throws: { error in
        guard let name = (error as? BinaryDataError)?.name else { return false }
        return name == "probe batch 7"
      }
    }
    var future = bytes
    future[0] = 2
    #expect(throws: BinaryDataError.self) { try ProbeCoder.probes(future, name: "b") }
    #expect(throws: BinaryDataError.self) { try ProbeCoder.probes(bytes + [0], name: "b") }
    // A latitude beyond 90 is refused, not trapped on.
    var writer = BinaryWriter()
    writer.byte(1)
    writer.count(1)
    writer.string("v")
    writer.count(1)
    writer.count(0)
    writer.double(0)
    writer.double(95)
    writer.double(13)
    writer.byte(0)
    #expect {
      try ProbeCoder.probes([UInt8](writer.data), name: "b")
    } throws: { error in
      "\(error)".contains("position 95.0, 13.0")
    }
  }
}
