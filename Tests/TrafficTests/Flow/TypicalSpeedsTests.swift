import Foundation
import Geo
import Roads
import Testing
import TrafficTestSupport

@testable import Traffic

/// Typical weeks: the harmonic mean per five-minute bin of the local week, borrowing for
/// thin bins, and the flow answered from them where nothing is live.
@Suite struct TypicalSpeedsTests {
  static let liechtenstein: RoadNetwork? = try? OSMImporter.importNetwork(
    from: Fixtures.liechtenstein(), options: OSMImportOptions(countryCode: "LI"))

  @Test("a bin holds the harmonic mean of its samples, then fades old ones")
  func harmonicMean() throws {
    var week = TypicalWeek()
    week.add(speed: 10, bin: 100, day: 100, memory: 8)
    week.add(speed: 20, bin: 100, day: 100, memory: 8)
    let value = try #require(week.value(atBin: 100))
    // Harmonic mean of 10 and 20: 2 / (1/10 + 1/20) = 13.33 (held in steps of 0.05 m/s).
    #expect(abs(value.speed - 40.0 / 3) <= 0.025)
    #expect(value.samples == 2)
    // With a memory of 2, the third sample weighs 1/2: pace (1/13.33 + 1/30) / 2.
    week.add(speed: 30, bin: 100, day: 100, memory: 2)
    let faded = try #require(week.value(atBin: 100))
    #expect(abs(faded.speed - 2 / (3.0 / 40 + 1.0 / 30)) <= 0.05)
    #expect(week.value(atBin: 101) == nil)
    // Bins wrap around the week.
    week.add(speed: 5, bin: 2016 + 7, day: 100, memory: 8)
    #expect(week.value(atBin: 7)?.speed == 5)
    #expect(week.entries.map(TypicalWeek.bin(of:)) == [7, 100])
  }

  @Test("a young bin pools the hour around it and other days, a mature one answers alone")
  func borrowing() throws {
    var week = TypicalWeek()
    for _ in 0..<3 { week.add(speed: 10, bin: 500, day: 100, memory: 8) }
    #expect(week.typical(atBin: 500, today: 110)?.speed == 10)
    // Bin 502 has nothing of its own: bins 500 (weight 1/3 × 3 samples) and 504
    // (1/3 × 1 sample at 30 m/s) pool as paces.
    week.add(speed: 30, bin: 504, day: 100, memory: 8)
    let pooled = try #require(week.typical(atBin: 502, today: 110))
    let expected = (1.0 + 1.0 / 3) / (1.0 / 10 + (1.0 / 3) / 30)
    #expect(abs(pooled.speed - expected) < 0.01)
    // Bin 500's own three samples are a young bin's: it pools the hour around it too (504
    // at 1/5), but not bin 513, beyond the hour.
    week.add(speed: 50, bin: 513, day: 100, memory: 8)
    let young = try #require(week.typical(atBin: 500, today: 110))
    #expect(abs(young.speed - (3 + 0.2) / (3.0 / 10 + 0.2 / 30)) < 0.01)
    #expect(abs(young.samples - 3.2) < 1e-9)
    // Eight samples (the engine's memory) make it mature: it answers alone.
    for _ in 0..<5 { week.add(speed: 10, bin: 500, day: 100, memory: 8) }
    #expect(week.typical(atBin: 500, today: 110)?.speed == 10)
    #expect(week.typical(atBin: 500, today: 110)?.samples == 8)
    // The same time on another weekday (Tuesday 500 - 288 = Monday 212) lends too.
    let monday = try #require(week.typical(atBin: 212, today: 110))
    #expect(abs(monday.speed - 10) < 0.01)
    // Saturday lends little to a weekday and nothing is invented where no bin is near.
    #expect(TypicalWeek().typical(atBin: 3, today: 110) == nil)
    var sparse = TypicalWeek()
    sparse.add(speed: 12, bin: 0, day: 100, memory: 8)
    #expect(sparse.typical(atBin: 144, today: 110) == nil)
    // A lone sample of today or yesterday is the recent past, not yet typical; a second
    // sample, or a day more, makes it so.
    #expect(sparse.typical(atBin: 1, today: 101) == nil)
    #expect(sparse.typical(atBin: 1, today: 100) == nil)
    #expect(sparse.typical(atBin: 1, today: 102)?.speed == 12)
    sparse.add(speed: 12, bin: 0, day: 101, memory: 8)
    #expect(sparse.typical(atBin: 1, today: 101)?.speed == 12)
  }

  @Test("a week is the same value however it was built, small or large")
  func representation() throws {
    var grown = TypicalWeek()
    var bins: [Int] = []
    var random = SeededGenerator(seed: 5)
    for step in 0..<300 {
      let bin = Int.random(in: 0..<TypicalWeek.binCount, using: &random)
      grown.add(speed: Double(5 + step % 20), bin: bin, day: 3, memory: 8)
      if !bins.contains(bin) { bins.append(bin) }
      let entries = grown.entries
      #expect(entries.map(TypicalWeek.bin(of:)) == bins.sorted())
      #expect(try TypicalWeek(entries: entries) == grown)
      #expect(grown.count == bins.count)
      for bin in bins { #expect(grown.value(atBin: bin) != nil) }
    }
    #expect(try TypicalWeek(entries: []) == TypicalWeek())
  }

  @Test("damaged packed bins are refused with the reason")
  func validation() {
    #expect(throws: TypicalWeekError.self) {
      try TypicalWeek(entries: [
        TypicalWeek.pack(bin: 5, samples: 1, day: 0, speed: 3),
        TypicalWeek.pack(bin: 2, samples: 1, day: 0, speed: 3),
      ])
    }
    #expect(throws: TypicalWeekError.self) { try TypicalWeek(entries: [2_000 + 0x7FF]) }
    #expect(throws: TypicalWeekError.self) { try TypicalWeek(entries: [5]) }
  }

  @Test("bins count local weekdays and times, across daylight saving time")
  func weekClock() throws {
    let zone = try #require(TimeZone(identifier: "Europe/Berlin"))
    let clock = WeekClock(timeZone: zone)
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = zone
    var cache = WeekClockCache(clock: clock)
    // Every 7 minutes over the spring and autumn changes of 2026 and a plain week.
    for start in [
      Date(timeIntervalSince1970: 1_774_569_600), Date(timeIntervalSince1970: 1_792_713_600),
      Date(timeIntervalSince1970: 1_800_000_000),
    ] {
      for step in 0..<(4 * 24 * 60 / 7) {
        let time = start.addingTimeInterval(Double(step) * 420)
        let parts = calendar.dateComponents([.weekday, .hour, .minute], from: time)
        // Calendar weekdays: 1 = Sunday ... 7 = Saturday.
        let day = (try #require(parts.weekday) + 5) % 7
        let reference = day * 288 + (try #require(parts.hour) * 60 + parts.minute!) / 5
        #expect(clock.bin(for: time) == reference)
        #expect(cache.bin(for: time) == reference)
      }
    }
  }

  @Test("a network's time zone is that of the nearest zone's principal place")
  func networkTimeZone() throws {
    let network = try #require(Self.liechtenstein)
    #expect(["Europe/Zurich", "Europe/Vaduz"].contains(network.localTimeZone.identifier))
  }

  @Test("feed flow observations of past weeks teach the typical week too")
  func observations() async throws {
    let network = try #require(Self.liechtenstein)
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let scenario = try #require(TypicalWeekScenario(network: network, now: now))
    let engine = try TrafficEngine(
      store: InMemoryTrafficStore(), clock: { now }, network: network)
    let road = network.segments[scenario.roadA]
    // A Waze-like jam on road A at this time of the week, three weeks running, each polled
    // twice (the same observation again teaches nothing).
    for week in 1...3 {
      let observation = FlowObservation(
        polyline: road.geometry, speedInMetersPerSecond: 5,
        time: now.addingTimeInterval(-Double(week) * 7 * 86_400))
      engine.ingest(observations: [observation])
      engine.ingest(observations: [observation])
    }
    let flows = try await engine.queryForFlow(
      inside: GeoCircle(
        center: road.geometry.coordinates(atDistance: road.lengthInMeters / 2),
        radiusInMeters: 3))
    let flow = try #require(flows.first { $0.segmentID == road.id })
    #expect(abs(flow.speedUncappedInMetersPerSecond - 5) < 0.1)
    #expect(flow.confidence > 0.6 && flow.confidence <= 0.7)
    let week = try #require(engine.speedPicture(inside: nil, at: nil)?.typicalWeek(road.id))
    #expect(week.entries.map(TypicalWeek.samples(of:)) == [3])
  }

  @Test("nothing live: the weekly jam is known at its hour, the other way round six hours on")
  func scenario() async throws {
    let network = try #require(Self.liechtenstein)
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let scenario = try #require(TypicalWeekScenario(network: network, now: now))
    let engine = try TrafficEngine(
      store: InMemoryTrafficStore(), clock: { now }, network: network)
    let probes = scenario.rows.map {
      Probe(vehicleID: $0.vehicle, time: $0.time, coordinates: $0.coordinates)
    }
    for batch in stride(from: 0, to: probes.count, by: 500) {
      engine.ingest(probes: Array(probes[batch..<min(batch + 500, probes.count)]))
    }
    engine.flushProbes()
    func flow(_ segment: Int, at time: Date?) async throws -> TrafficFlow {
      let middle = network.segments[segment].geometry.coordinates(
        atDistance: network.segments[segment].lengthInMeters / 2)
      let flows = try await engine.queryForFlow(
        inside: GeoCircle(center: middle, radiusInMeters: 5),
        queryOptions: TrafficFlowQueryOptions(at: time))
      return try #require(flows.first { $0.segmentID == segment })
    }
    for (time, a, b) in [
      (nil, TypicalWeekScenario.slow, TypicalWeekScenario.fast),
      (now.addingTimeInterval(6 * 3_600), TypicalWeekScenario.fast, TypicalWeekScenario.slow),
      (now.addingTimeInterval(-6 * 3_600), TypicalWeekScenario.fast, TypicalWeekScenario.slow),
    ] as [(Date?, Double, Double)] {
      let roadA = try await flow(scenario.roadA, at: time)
      let roadB = try await flow(scenario.roadB, at: time)
      for (flow, expected) in [(roadA, a), (roadB, b)] {
        #expect(abs(flow.speedUncappedInMetersPerSecond - expected) <= 0.3 * expected)
        #expect(flow.confidence > 0.5 && flow.confidence <= 0.7)
        #expect(flow.jamTendency == nil)
      }
      // Jam factors against the learned free flow (the fast periods).
      #expect(roadA.jamFactor > 5 || a == TypicalWeekScenario.fast)
    }
  }
}
