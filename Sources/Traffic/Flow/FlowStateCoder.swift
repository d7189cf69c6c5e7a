import Codec
import Foundation
import Roads

/// The binary rows of a stored flow state (`flow_state.header`, `flow_segments.state`).
///
/// Dates are stored as the bit pattern of their seconds since 2001 (Foundation's own
/// representation), so they round-trip exactly; doubles as their bit patterns. Layout
/// (varints and strings as `BinaryWriter` writes them):
///
/// ```
/// header:  version 1 | saved at | segment count | bucket seconds | has latest (0/1) | [latest]
/// segment: version 1 | parts (1 aggregates, 2 observation)
///          aggregates: vehicle count, vehicle ids | contribution count,
///                      (time, vehicle #, meters, seconds)… | bucket count,
///                      (zigzag index, meters, seconds)… | has last closed, [zigzag bucket]
///                      | history count, speeds… | options (1 learned, 2 p95) | [learned] [p95]
///          observation: time | options (1 speed, 2 jam, 4 free flow) | [values]
/// ```
///
/// A typical week (`typical_speeds.bins`) is its packed bins (see `TypicalWeek`):
///
/// ```
/// week:    version 1 | bin count | bins, 4 bytes little-endian each
/// ```
///
/// A whole state in one value (the PostgreSQL store's `flow_state.state`) adds the latest
/// flow per segment, from version 2 the typical weeks and from version 3 the probe ledger
/// (`FlowStateCoder+Ledger.swift`; versions 1 and 2, written before, are still read):
///
/// ```
/// state:   version 3 | header length, header | row count, (segment id, length, segment)…
///          | latest count, (segment id, speed, uncapped, free flow, jam, confidence,
///            traversability, has tendency (0/1), [tendency])…
///          | week count, (segment id, length, week)…
///          | ledger count, (vehicle id, length, ledger)…
/// ```
package enum FlowStateCoder {
  /// The format version written first in every row.
  package static let version: UInt8 = 1
  /// The version of a whole state (`state(_:)`).
  package static let stateVersion: UInt8 = 3

  /// The header of `state`: everything but its segments, observations and latest flow.
  package static func header(_ state: FlowState.Persisted) -> Data {
    var writer = BinaryWriter(capacity: 40)
    writer.byte(version)
    writer.double(state.savedAt.timeIntervalSinceReferenceDate)
    writer.count(state.segmentCount)
    writer.double(state.historyBucketInSeconds)
    writer.byte(state.latestProbeTime == nil ? 0 : 1)
    if let time = state.latestProbeTime { writer.double(time.timeIntervalSinceReferenceDate) }
    return writer.data
  }

  /// The fields of a header.
  package struct Header: Sendable {
    /// When the state was taken.
    package var savedAt: Date
    /// The segment count of the network the state belongs to.
    package var segmentCount: Int
    /// The history bucket length the state was aggregated with, seconds.
    package var historyBucketInSeconds: Double
    /// The time of the newest probe held.
    package var latestProbeTime: Date?
  }

  /// Reads a header.
  ///
  /// - Throws: `RoadsError.malformed` naming the row and offset.
  package static func header(_ bytes: [UInt8], name: String) throws(BinaryDataError) -> Header {
    var reader = BinaryReader(bytes: bytes, name: name)
    try checkVersion(&reader)
    let savedAt = try date(&reader)
    let segmentCount = try reader.integer(atMost: 1 << 48, "segment count")
    let bucket = try reader.double()
    let latest = try flag(&reader) ? try date(&reader) : nil
    guard reader.isAtEnd else { throw reader.failure("data after the header") }
    return Header(
      savedAt: savedAt, segmentCount: segmentCount, historyBucketInSeconds: bucket,
      latestProbeTime: latest)
  }

  /// The row of one segment: its aggregates, its observation, or both.
  package static func segment(
    _ aggregates: FlowState.Persisted.Segment?, _ observation: FlowState.Persisted.Observation?
  ) -> Data {
    var writer = BinaryWriter(capacity: 64 + 40 * (aggregates?.contributions.count ?? 0))
    writer.byte(version)
    writer.byte((aggregates == nil ? 0 : 1) | (observation == nil ? 0 : 2))
    if let aggregates {
      var vehicles: [String: Int] = [:]
      var names: [String] = []
      for contribution in aggregates.contributions where vehicles[contribution.vehicleID] == nil {
        vehicles[contribution.vehicleID] = names.count
        names.append(contribution.vehicleID)
      }
      writer.count(names.count)
      for name in names { writer.string(name) }
      writer.count(aggregates.contributions.count)
      for contribution in aggregates.contributions {
        writer.double(contribution.time.timeIntervalSinceReferenceDate)
        writer.count(vehicles[contribution.vehicleID] ?? 0)
        writer.double(contribution.meters)
        writer.double(contribution.seconds)
      }
      writer.count(aggregates.openBuckets.count)
      for bucket in aggregates.openBuckets {
        writer.signedVarint(Int64(bucket.index))
        writer.double(bucket.meters)
        writer.double(bucket.seconds)
      }
      writer.byte(aggregates.lastClosedBucket == nil ? 0 : 1)
      if let last = aggregates.lastClosedBucket { writer.signedVarint(Int64(last)) }
      writer.count(aggregates.historyInMetersPerSecond.count)
      for speed in aggregates.historyInMetersPerSecond { writer.double(speed) }
      let learned = aggregates.learnedFreeFlowInMetersPerSecond
      let p95 = aggregates.percentile95InMetersPerSecond
      writer.byte((learned == nil ? 0 : 1) | (p95 == nil ? 0 : 2))
      if let learned { writer.double(learned) }
      if let p95 { writer.double(p95) }
    }
    if let observation {
      writer.double(observation.time.timeIntervalSinceReferenceDate)
      let speed = observation.speedInMetersPerSecond
      let jam = observation.jamFactor
      let free = observation.freeFlowSpeedInMetersPerSecond
      writer.byte((speed == nil ? 0 : 1) | (jam == nil ? 0 : 2) | (free == nil ? 0 : 4))
      for value in [speed, jam, free] { if let value { writer.double(value) } }
    }
    return writer.data
  }

  /// Reads the row of segment `id`.
  ///
  /// - Throws: `RoadsError.malformed` naming the row and offset.
  package static func segment(
    _ bytes: [UInt8], id: Int, name: String
  ) throws(BinaryDataError) -> (FlowState.Persisted.Segment?, FlowState.Persisted.Observation?) {
    var reader = BinaryReader(bytes: bytes, name: name)
    try checkVersion(&reader)
    let parts = try reader.byte()
    guard parts <= 3 else { throw reader.failure("unknown parts \(parts)") }
    var aggregates: FlowState.Persisted.Segment?
    var observation: FlowState.Persisted.Observation?
    if parts & 1 != 0 {
      let vehicleCount = try reader.count(bytesPerItem: 1, "vehicles")
      var vehicles: [String] = []
      vehicles.reserveCapacity(vehicleCount)
      for _ in 0..<vehicleCount { vehicles.append(try reader.string()) }
      let contributionCount = try reader.count(bytesPerItem: 25, "contributions")
      var contributions: [FlowState.Persisted.Contribution] = []
      contributions.reserveCapacity(contributionCount)
      for _ in 0..<contributionCount {
        let time = try date(&reader)
        let vehicle = try reader.integer(atMost: vehicles.count - 1, "vehicle number")
        contributions.append(
          FlowState.Persisted.Contribution(
            time: time, vehicleID: vehicles[vehicle], meters: try reader.double(),
            seconds: try reader.double()))
      }
      let bucketCount = try reader.count(bytesPerItem: 17, "buckets")
      var buckets: [FlowState.Persisted.Bucket] = []
      buckets.reserveCapacity(bucketCount)
      for _ in 0..<bucketCount {
        buckets.append(
          FlowState.Persisted.Bucket(
            index: try bucketIndex(&reader), meters: try reader.double(),
            seconds: try reader.double()))
      }
      let lastClosed = try flag(&reader) ? try bucketIndex(&reader) : nil
      let historyCount = try reader.count(bytesPerItem: 8, "history speeds")
      var history: [Double] = []
      history.reserveCapacity(historyCount)
      for _ in 0..<historyCount { history.append(try reader.double()) }
      let options = try reader.byte()
      guard options <= 3 else { throw reader.failure("unknown options \(options)") }
      let learned = options & 1 != 0 ? try reader.double() : nil
      let p95 = options & 2 != 0 ? try reader.double() : nil
      aggregates = FlowState.Persisted.Segment(
        segmentID: id, contributions: contributions, openBuckets: buckets,
        lastClosedBucket: lastClosed, historyInMetersPerSecond: history,
        learnedFreeFlowInMetersPerSecond: learned, percentile95InMetersPerSecond: p95)
    }
    if parts & 2 != 0 {
      let time = try date(&reader)
      let options = try reader.byte()
      guard options <= 7 else { throw reader.failure("unknown options \(options)") }
      let speed = options & 1 != 0 ? try reader.double() : nil
      let jam = options & 2 != 0 ? try reader.double() : nil
      let free = options & 4 != 0 ? try reader.double() : nil
      observation = FlowState.Persisted.Observation(
        segmentID: id, time: time, speedInMetersPerSecond: speed, jamFactor: jam,
        freeFlowSpeedInMetersPerSecond: free)
    }
    guard reader.isAtEnd else { throw reader.failure("data after the segment's state") }
    return (aggregates, observation)
  }

  /// A whole state in one value: the header, one segment row per segment with aggregates or
  /// an observation, and the latest flow.
  ///
  /// - Parameter state: from `FlowState.persisted(now:incidents:)`.
  /// - Returns: The bytes `state(_:name:)` reads back.
  /// - Complexity: O(a·c) for a segments of c contributions each.
  package static func state(_ state: FlowState.Persisted) -> Data {
    let header = header(state)
    var writer = BinaryWriter(capacity: 64 + header.count + 48 * state.latest.count)
    writer.byte(stateVersion)
    writer.count(header.count)
    writer.raw(header)
    var rows: [(id: Int, data: Data)] = []
    var segments = state.segments[...]
    var observations = state.observations[...]
    while !segments.isEmpty || !observations.isEmpty {
      let id = min(segments.first?.segmentID ?? .max, observations.first?.segmentID ?? .max)
      let aggregates = segments.first?.segmentID == id ? segments.popFirst() : nil
      let observation = observations.first?.segmentID == id ? observations.popFirst() : nil
      rows.append((id, segment(aggregates, observation)))
    }
    writer.count(rows.count)
    for row in rows {
      writer.count(row.id)
      writer.count(row.data.count)
      writer.raw(row.data)
    }
    writer.count(state.latest.count)
    for latest in state.latest {
      writer.count(latest.segmentID)
      for value in [
        latest.speedInMetersPerSecond, latest.speedUncappedInMetersPerSecond,
        latest.freeFlowSpeedInMetersPerSecond, latest.jamFactor, latest.confidence,
      ] {
        writer.double(value)
      }
      writer.string(latest.traversability.rawValue)
      writer.byte(latest.jamTendency == nil ? 0 : 1)
      if let tendency = latest.jamTendency { writer.string(tendency.rawValue) }
    }
    writer.count(state.typical.count)
    for week in state.typical {
      let bytes = typicalWeek(week.entries)
      writer.count(week.segmentID)
      writer.count(bytes.count)
      writer.raw(bytes)
    }
    writeLedger(state.ledger, to: &writer)
    return writer.data
  }

  /// The bytes of a typical week's packed bins.
  ///
  /// - Complexity: O(b) for b bins.
  package static func typicalWeek(_ entries: [UInt32]) -> Data {
    var writer = BinaryWriter(capacity: 4 + 4 * entries.count)
    writer.byte(version)
    writer.count(entries.count)
    var bytes: [UInt8] = []
    bytes.reserveCapacity(4 * entries.count)
    for entry in entries {
      withUnsafeBytes(of: entry.littleEndian) { bytes.append(contentsOf: $0) }
    }
    writer.raw(bytes)
    return writer.data
  }

  /// Reads a typical week's packed bins (checked as `TypicalWeek(entries:)` checks them).
  ///
  /// - Throws: `BinaryDataError` naming `name` for damaged bytes or bins.
  package static func typicalWeek(
    _ bytes: ArraySlice<UInt8>, name: String
  ) throws(BinaryDataError) -> TypicalWeek {
    if let week = quickTypicalWeek(bytes) { return week }
    // The slow path, for the message naming what is wrong.
    var reader = BinaryReader(bytes: Array(bytes), name: name)
    try checkVersion(&reader)
    let count = try reader.count(bytesPerItem: 4, "typical bins")
    guard count <= TypicalWeek.binCount else {
      throw reader.failure("\(count) typical bins in a week of \(TypicalWeek.binCount)")
    }
    var entries: [UInt32] = []
    entries.reserveCapacity(count)
    for _ in 0..<count {
      let b = try reader.raw(4)
      let i = b.startIndex
      entries.append(
        UInt32(b[i]) | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2]) << 16 | UInt32(b[i + 3]) << 24)
    }
    guard reader.isAtEnd else { throw reader.failure("data after the typical week") }
    do { return try TypicalWeek(entries: entries) } catch {
      throw reader.failure(error.description)
    }
  }

  /// A well-formed typical week read without copying the bytes (a region's store holds
  /// hundreds of thousands); `nil` for anything else, which the caller reads again for the
  /// message.
  private static func quickTypicalWeek(_ bytes: ArraySlice<UInt8>) -> TypicalWeek? {
    var i = bytes.startIndex
    guard i < bytes.endIndex, bytes[i] == version else { return nil }
    i += 1
    guard let value = try? Varint.read(from: bytes, at: &i), value <= TypicalWeek.binCount
    else { return nil }
    let count = Int(value)
    guard bytes.endIndex - i == 4 * count else { return nil }
    var entries: [UInt32] = []
    entries.reserveCapacity(count)
    while i < bytes.endIndex {
      entries.append(
        UInt32(bytes[i]) | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2]) << 16
          | UInt32(bytes[i + 3]) << 24)
      i += 4
    }
    return try? TypicalWeek(entries: entries)
  }

  /// Reads a whole state written by `state(_:)`.
  ///
  /// - Parameters:
  ///   - bytes: The value.
  ///   - name: What the value is, for messages (the table and the network).
  /// - Returns: The state, segments and observations ordered by segment id.
  /// - Throws: `RoadsError.malformed` naming `name`, the part and the offset.
  /// - Complexity: O(a·c) for a segments of c contributions each.
  package static func state(
    _ bytes: [UInt8], name: String
  ) throws(BinaryDataError)
    -> FlowState.Persisted
  {
    var reader = BinaryReader(bytes: bytes, name: name)
    let found = try reader.byte()
    guard (1...stateVersion).contains(found) else {
      throw reader.failure("unknown flow state version \(found)")
    }
    let headerLength = try reader.count(bytesPerItem: 1, "header bytes")
    let header = try header(Array(try reader.raw(headerLength)), name: "the header of \(name)")
    let rowCount = try reader.count(bytesPerItem: 3, "segment rows")
    var segments: [FlowState.Persisted.Segment] = []
    var observations: [FlowState.Persisted.Observation] = []
    for _ in 0..<rowCount {
      let id = try reader.integer(atMost: header.segmentCount - 1, "segment id")
      let length = try reader.count(bytesPerItem: 1, "segment bytes")
      let (aggregates, observation) = try segment(
        Array(try reader.raw(length)), id: id, name: "segment \(id) of \(name)")
      if let aggregates { segments.append(aggregates) }
      if let observation { observations.append(observation) }
    }
    let latestCount = try reader.count(bytesPerItem: 43, "latest flows")
    var latest: [FlowState.Persisted.Latest] = []
    latest.reserveCapacity(latestCount)
    for _ in 0..<latestCount {
      let id = try reader.integer(atMost: header.segmentCount - 1, "segment id")
      var values: [Double] = []
      for _ in 0..<5 { values.append(try reader.double()) }
      let text = try reader.string()
      guard let traversability = Traversability(rawValue: text) else {
        throw reader.failure("unknown traversability \(text.debugDescription)")
      }
      var tendency: JamTendency?
      if try flag(&reader) {
        let text = try reader.string()
        guard let known = JamTendency(rawValue: text) else {
          throw reader.failure("unknown jam tendency \(text.debugDescription)")
        }
        tendency = known
      }
      latest.append(
        FlowState.Persisted.Latest(
          segmentID: id, speedInMetersPerSecond: values[0],
          speedUncappedInMetersPerSecond: values[1], freeFlowSpeedInMetersPerSecond: values[2],
          jamFactor: values[3], confidence: values[4], traversability: traversability,
          jamTendency: tendency))
    }
    var typical: [FlowState.Persisted.Typical] = []
    if found >= 2 {
      let weekCount = try reader.count(bytesPerItem: 3, "typical weeks")
      typical.reserveCapacity(weekCount)
      var previous = -1
      for _ in 0..<weekCount {
        let id = try reader.integer(atMost: header.segmentCount - 1, "segment id")
        guard id > previous else {
          throw reader.failure("typical week of segment \(id) out of order")
        }
        previous = id
        let length = try reader.count(bytesPerItem: 1, "typical week bytes")
        let week = try typicalWeek(
          try reader.raw(length), name: "the typical week of segment \(id) of \(name)")
        typical.append(FlowState.Persisted.Typical(segmentID: id, week: week))
      }
    }
    let ledger = found >= 3 ? try readLedger(&reader, name: name) : []
    guard reader.isAtEnd else { throw reader.failure("data after the flow state") }
    return FlowState.Persisted(
      savedAt: header.savedAt, segmentCount: header.segmentCount,
      historyBucketInSeconds: header.historyBucketInSeconds,
      latestProbeTime: header.latestProbeTime, segments: segments, observations: observations,
      latest: latest, typical: typical, ledger: ledger)
  }

  /// A fingerprint of a road network: FNV-1a (64 bits) of its binary encoding, with its
  /// segment count, as hex. Two nodes that load the same file get the same fingerprint, so
  /// a flow state saved by one fits the other. Toll roads leave it unchanged (the encoding
  /// without them): they change no segment, and a network imported again with them keeps
  /// the flow state saved before tolls were read.
  ///
  /// - Parameter network: The network.
  /// - Returns: `segments-hash`, e.g. `"1234-9f3c…"`.
  /// - Complexity: O(n) to encode the network's n segments.
  package static func fingerprint(of network: RoadNetwork) -> String {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for chunk in network.binaryChunks(tolls: false) {
      for byte in chunk {
        hash ^= UInt64(byte)
        hash &*= 0x0000_0100_0000_01b3
      }
    }
    return "\(network.segments.count)-\(String(hash, radix: 16))"
  }

  private static func checkVersion(_ reader: inout BinaryReader) throws(BinaryDataError) {
    let found = try reader.byte()
    guard found == version else { throw reader.failure("unknown flow state version \(found)") }
  }

  private static func flag(_ reader: inout BinaryReader) throws(BinaryDataError) -> Bool {
    let value = try reader.byte()
    guard value <= 1 else { throw reader.failure("a flag of \(value)") }
    return value == 1
  }

  private static func date(_ reader: inout BinaryReader) throws(BinaryDataError) -> Date {
    Date(timeIntervalSinceReferenceDate: try reader.finiteDouble("time"))
  }

  /// Bucket indexes are below 10^15 in magnitude (see `SpeedAggregator`).
  private static func bucketIndex(_ reader: inout BinaryReader) throws(BinaryDataError) -> Int {
    let value = try reader.signedVarint()
    guard value > -1_000_000_000_000_000, value < 1_000_000_000_000_000 else {
      throw reader.failure("history bucket \(value) out of range")
    }
    return Int(value)
  }
}
