import Foundation
import Geo
import Roads
import Testing

@Suite struct MatchingStreamTests {
  static let start = Date(timeIntervalSince1970: 1_800_000_000)

  func stream(
    _ configure: (inout MapMatchingOptions) -> Void = { _ in }
  ) throws
    -> StreamingMapMatcher
  {
    var options = MapMatchingOptions()
    configure(&options)
    return StreamingMapMatcher(
      matcher: try MapMatcher(network: try MatchingFixtures.network(), options: options))
  }

  @Test("positions are decided a fixed number of probes later; the window stays bounded")
  func fixedLag() throws {
    var stream = try stream { $0.decisionLag = 3 }
    let drive = try MatchingFixtures.drive(
      stream.matcher.network, along: [0, 2], speed: 12, interval: 5)
    var output: [MatchedPoint] = []
    for (k, item) in drive.prefix(10).enumerated() {
      #expect(stream.add(item.probe, vehicleID: "a", into: &output) == .accepted)
      #expect(output.count == max(0, k + 1 - 3))
    }
    output += stream.flushAll()
    #expect(output.count == 10)
    #expect(output.map(\.probe.time) == drive.prefix(10).map(\.probe.time))
    // The streamed result equals matching the whole trace at once.
    let whole = stream.matcher.match(drive.prefix(10).map(\.probe), vehicleID: "a")
    #expect(output.map(\.position) == whole.map(\.position))
  }

  @Test("undecided positions are what a flush would decide, without deciding them")
  func undecidedPoints() throws {
    var stream = try stream { $0.decisionLag = 3 }
    let drive = try MatchingFixtures.drive(
      stream.matcher.network, along: [0, 2], speed: 12, interval: 5)
    var output: [MatchedPoint] = []
    for item in drive.prefix(5) { stream.add(item.probe, vehicleID: "a", into: &output) }
    #expect(output.count == 2)
    let undecided = stream.undecidedPoints
    #expect(undecided.map(\.probe.time) == drive[2..<5].map(\.probe.time))
    // Reading them decides nothing: the trace goes on and later decisions still come.
    for item in drive[5..<7] { stream.add(item.probe, vehicleID: "a", into: &output) }
    #expect(output.count == 4)
    output += stream.flushAll()
    #expect(stream.undecidedPoints.isEmpty)
    #expect(output.map(\.probe.time) == drive.prefix(7).map(\.probe.time))
    #expect(Array(output[2..<5].map(\.position)) == undecided.map(\.position))
    #expect(!output[5].startsTrace)
  }

  @Test("outcomes: far away, sent again, inside a span already reported, standing still")
  func outcomes() throws {
    var stream = try stream()
    var output: [MatchedPoint] = []
    let far = ProbePoint(
      coordinates: try GeoCoordinates(latitude: 52.1, longitude: 13.2), time: Self.start)
    #expect(stream.add(far, vehicleID: "x", into: &output) == .noCandidates)
    let drive = try MatchingFixtures.drive(
      stream.matcher.network, along: [0], speed: 10, interval: 5)
    #expect(stream.add(drive[0].probe, vehicleID: "a", into: &output) == .accepted)
    #expect(stream.add(drive[0].probe, vehicleID: "a", into: &output) == .duplicate)
    var still = drive[0].probe
    still.time = drive[0].probe.time + 10
    still.speedInMetersPerSecond = 0
    #expect(stream.add(still, vehicleID: "a", into: &output) == .skippedStationary)
    // Between two times the vehicle reported: a finer reading of what was counted.
    var between = drive[0].probe
    between.time = drive[0].probe.time + 3
    #expect(stream.add(between, vehicleID: "a", into: &output) == .outOfOrder)
    for second in [20.0, 30] {
      still.time = drive[0].probe.time + second
      still.speedInMetersPerSecond = 0
      #expect(stream.add(still, vehicleID: "a", into: &output) == .skippedStationary)
    }
    output += stream.flushAll()
    let point = try #require(output.first)
    #expect(point.standingUntil == drive[0].probe.time + 30)
    // It stood where its four probes there lie (all at one point here).
    let standing = try #require(point.standingPosition)
    #expect(standing.segmentID == point.position.segmentID)
    #expect(abs(standing.offsetInMeters - point.position.offsetInMeters) < 0.01)
  }

  @Test("an earlier trip after a later one is matched on a trace of its own, not dropped")
  func earlierTripOnItsOwnTrace() throws {
    var stream = try stream()
    let later = try MatchingFixtures.drive(
      stream.matcher.network, along: [0, 2], speed: 12, interval: 5,
      start: Self.start + 3600)
    let earlier = try MatchingFixtures.drive(
      stream.matcher.network, along: [0, 2], speed: 12, interval: 5)
    var output: [MatchedPoint] = []
    for item in later {
      #expect(stream.add(item.probe, vehicleID: "a", into: &output) == .accepted)
    }
    for item in earlier {
      #expect(stream.add(item.probe, vehicleID: "a", into: &output) == .accepted)
    }
    output += stream.flushAll()
    // Both trips decided, each in time order, on the segments they drove.
    let times = Set(output.map(\.probe.time))
    #expect(times == Set((later + earlier).map(\.probe.time)))
    let side = output.filter { $0.vehicleID != "a" }
    #expect(side.map(\.probe.time) == earlier.map(\.probe.time))
    #expect(side.map(\.position.segmentID) == earlier.map(\.segmentID))
    // Sent once more, either trip is duplicates.
    #expect(stream.add(earlier[3].probe, vehicleID: "a", into: &output) == .duplicate)
    #expect(stream.add(later[3].probe, vehicleID: "a", into: &output) == .duplicate)
  }

  @Test(
    "a stopped vehicle's place is the mean of its positions: one noisy position 24 m off the first but 17 m off the mean does not read as moving off"
  )
  func standingPlace() throws {
    var stream = try stream()
    func probe(east: Double, second: Double) throws -> ProbePoint {
      ProbePoint(
        coordinates: try GeoCoordinates(
          latitude: MatchingFixtures.latitude,
          longitude: MatchingFixtures.longitude + (250 + east)
            / MatchingFixtures.LocalMeters.perDegreeLongitude),
        time: Self.start + second, speedInMetersPerSecond: 0)
    }
    var output: [MatchedPoint] = []
    #expect(stream.add(try probe(east: 0, second: 0), vehicleID: "a", into: &output) == .accepted)
    // The first position was 8 m off: the vehicle stands at +8 m.
    for k in 1...10 {
      let outcome = stream.add(
        try probe(east: 8, second: 5 * Double(k)), vehicleID: "a", into: &output)
      #expect(outcome == .skippedStationary)
    }
    #expect(
      stream.add(try probe(east: 24, second: 55), vehicleID: "a", into: &output)
        == .skippedStationary)
    // A reported speed above the stationary one is a vehicle moving off.
    var moving = try probe(east: 24, second: 60)
    moving.speedInMetersPerSecond = 3
    #expect(stream.add(moving, vehicleID: "a", into: &output) == .accepted)
  }

  @Test("a time gap breaks the trace")
  func timeGap() throws {
    var stream = try stream { $0.maxTimeGapInSeconds = 60 }
    let drive = try MatchingFixtures.drive(
      stream.matcher.network, along: [0], speed: 10, interval: 5)
    var output: [MatchedPoint] = []
    stream.add(drive[0].probe, vehicleID: "a", into: &output)
    var late = drive[3].probe
    late.time = drive[0].probe.time + 120
    stream.add(late, vehicleID: "a", into: &output)
    output += stream.flushAll()
    #expect(output.count == 2)
    #expect(output.allSatisfy { $0.startsTrace })
  }

  @Test("idle vehicles expire; the vehicle table never exceeds its bound")
  func memoryBounds() throws {
    var stream = try stream { $0.maxVehicles = 8 }
    let drive = try MatchingFixtures.drive(
      stream.matcher.network, along: [0], speed: 10, interval: 5)
    var output: [MatchedPoint] = []
    for vehicle in 0..<20 {
      var probe = drive[0].probe
      probe.time += Double(vehicle)
      stream.add(probe, vehicleID: "v\(vehicle)", into: &output)
      #expect(stream.vehicleCount <= 8)
    }
    // Evicted vehicles were flushed, not lost.
    #expect(output.count + stream.vehicleCount == 20)
    let expired = stream.expire(now: drive[0].probe.time + 20 + 301)
    #expect(stream.vehicleCount == 0)
    #expect(output.count + expired.count == 20)
  }
}
