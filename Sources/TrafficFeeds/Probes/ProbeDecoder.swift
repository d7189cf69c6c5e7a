import Codec
import Foundation
import Traffic
import Zlib

/// Reads probe documents into ``ProbeBatch``es: CSV, NDJSON and SUMO FCD XML.
///
/// Rows are checked one by one — an unreadable value, a coordinate out of range, a time in
/// the future or a repeated (vehicle, time) pair rejects that row with a reason and the rest
/// of the document is still read.
///
/// Times are RFC 3339 (`2025-03-01T08:00:00Z`, fractional seconds and offsets allowed) or
/// Unix seconds (values above 10^11 are read as milliseconds). FCD times are simulation
/// seconds, added to ``simulationStart``.
public struct ProbeDecoder: Sendable {
  /// The current time, for the future check.
  public var now: Date
  /// How far in the future a probe time may be (receiver clocks drift), seconds.
  public var maxClockSkewInSeconds: TimeInterval = 300
  /// The date of simulation second 0 of SUMO FCD; `nil` aligns the last time step with
  /// ``now`` (a simulation replayed as if it had just happened).
  public var simulationStart: Date?
  /// At most this many rejected rows are kept with their details.
  public var maxRejectionDetails = 100
  /// A gzip-compressed document (a `probes.csv.gz`) is inflated to at most this many bytes
  /// (1 GiB by default; the server sets its decompressed body limit).
  public var maximumInflatedBytes = 1 << 30

  /// Creates a decoder.
  ///
  /// - Parameters:
  ///   - now: the current time; the system clock by default.
  ///   - simulationStart: the date of FCD simulation second 0; see ``simulationStart``.
  public init(now: Date = Date(), simulationStart: Date? = nil) {
    self.now = now
    self.simulationStart = simulationStart
  }

  /// Reads a document.
  ///
  /// - Parameters:
  ///   - data: the document.
  ///   - format: its format; detected from the content when `nil`.
  /// - Returns: the accepted probes and the rejected rows by reason.
  /// - Throws: ``ProbeDecodingError/unknownFormat`` for an empty document,
  ///   ``ProbeDecodingError/missingColumns(_:)`` for a CSV header without `id`, `time`, `lat`
  ///   or `lng`, ``ProbeDecodingError/malformed(line:reason:)`` for FCD XML that breaks off
  ///   inside a tag or that the XML guard refuses (a DTD, a wrong encoding).
  /// - Complexity: O(n) in the document's length.
  public func decode(
    _ data: Data, format: ProbeFormat? = nil
  ) throws(ProbeDecodingError)
    -> ProbeBatch
  {
    var data = data
    if StreamingInflater.isGzip(data) {
      do { data = try Gzip.decompress(data, maxOutputBytes: maximumInflatedBytes) } catch {
        if case .tooLarge(let limit) = error { throw .inflatesBeyond(limit: limit) }
        throw .compressed("\(error)")
      }
    }
    guard let format = format ?? ProbeFormat.detect(data) else { throw .unknownFormat }
    var sink = Sink(decoder: self)
    switch format {
    case .csv: try decodeCSV(data, into: &sink)
    case .ndjson: decodeNDJSON(data, into: &sink)
    case .sumoFCD: try decodeFCD(data, into: &sink)
    }
    return sink.batch
  }

  static func isBlank(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0xEF || byte == 0xBB
      || byte == 0xBF
  }

  /// Collects accepted probes and rejections, checking ranges and duplicates.
  struct Sink {
    let decoder: ProbeDecoder
    var batch = ProbeBatch()
    var seen: Set<Key> = []

    struct Key: Hashable {
      let vehicleID: String
      let time: Date
    }

    init(decoder: ProbeDecoder) { self.decoder = decoder }

    mutating func reject(_ line: Int, _ reason: ProbeRejectionReason, _ detail: String) {
      batch.rejectedCounts[reason, default: 0] += 1
      if batch.rejections.count < decoder.maxRejectionDetails {
        batch.rejections.append(ProbeRejection(line: line, reason: reason, detail: detail))
      }
    }

    /// Checks and adds one row; `time` may be `nil` for FCD rows aligned later.
    mutating func add(
      line: Int, id: String?, time: Date?, latitude: Double?, longitude: Double?,
      speed: Double?, heading: Double?, accuracy: Double?, checkFuture: Bool = true
    ) {
      guard let id, !id.isEmpty else { return reject(line, .unparseable, "missing id") }
      guard let time else { return reject(line, .unparseable, "missing or unreadable time") }
      guard let latitude, let longitude else {
        return reject(line, .unparseable, "missing or unreadable lat/lng")
      }
      guard latitude.isFinite, longitude.isFinite else {
        return reject(
          line, .outOfRange, "lat/lng is beyond any number (too large for a double, or NaN)")
      }
      guard let coordinates = try? GeoCoordinates(latitude: latitude, longitude: longitude)
      else {
        return reject(line, .outOfRange, "lat \(latitude), lng \(longitude) out of range")
      }
      // A time of 1e400 seconds (or one built from it) is no time at all.
      guard time.timeIntervalSince1970.isFinite, abs(time.timeIntervalSince1970) < 1e11 else {
        return reject(
          line, .outOfRange, "time is beyond any date (before the year 0 or after 5000)")
      }
      if let speed, !(speed.isFinite && speed >= 0 && speed <= 150) {
        return reject(line, .outOfRange, "speed \(speed) m/s out of 0...150")
      }
      if let heading, !(heading.isFinite && heading >= -360 && heading <= 360) {
        return reject(
          line, .outOfRange, "heading \(heading) out of -360...360 (degrees from north)")
      }
      if let accuracy, !(accuracy.isFinite && accuracy >= 0 && accuracy <= 100_000) {
        return reject(line, .outOfRange, "accuracy \(accuracy) m out of range")
      }
      if checkFuture, time.timeIntervalSince(decoder.now) > decoder.maxClockSkewInSeconds {
        return reject(
          line, .timeInFuture,
          "time \(RFC3339.format(time)) is after now (\(RFC3339.format(decoder.now)))")
      }
      guard time.timeIntervalSince1970 >= 0 else {
        return reject(line, .outOfRange, "time \(RFC3339.format(time)) is before 1970")
      }
      guard seen.insert(Key(vehicleID: id, time: time)).inserted else {
        return reject(
          line, .duplicate, "vehicle \(id) already reported time \(RFC3339.format(time))")
      }
      var normalized = heading
      if let heading, heading < 0 { normalized = heading + 360 }
      batch.probes.append(
        Probe(
          vehicleID: id, time: time, coordinates: coordinates, speedInMetersPerSecond: speed,
          headingInDegrees: normalized, accuracyInMeters: accuracy))
    }
  }

  // MARK: Times

  /// Parses a time: Unix seconds (or milliseconds above 10^11), or RFC 3339.
  static func parseTime(_ text: Substring) -> Date? {
    let trimmed = text.trimmingWhitespace
    if let seconds = decimal(trimmed) {
      // A number too large for a double stays one (infinite): out of range, as lat 1e400.
      return Date(timeIntervalSince1970: abs(seconds) > 1e11 ? seconds / 1000 : seconds)
    }
    return RFC3339.parse(trimmed)
  }

  /// A number in decimal notation (`-12.5`, `1e3`), infinite when it overflows (`1e400`);
  /// `nil` for other text, such as `nan`, `inf` or hexadecimal, which `Double(_:)` would
  /// accept.
  ///
  /// - Complexity: O(n) in the length of the text.
  package static func decimal(_ text: some StringProtocol) -> Double? {
    guard !text.isEmpty,
      text.utf8.allSatisfy({
        ($0 >= 48 && $0 <= 57) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-")
          || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E")
      })
    else { return nil }
    return Double(String(text))
  }
}
