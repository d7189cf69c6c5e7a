import Foundation
import Geo
import Synchronization

extension RoadNetwork {
  /// The network's local time zone, which typical speeds count weekdays and hours in: the
  /// zone of the tz database whose principal location (`zone1970.tab` of Debian's `tzdata`)
  /// lies nearest the middle of the network's nodes. UTC for a network without nodes or when
  /// the table cannot be read.
  ///
  /// Nearest principal location is right for a network inside one zone's territory, which
  /// is what a network import covers in practice; near a border it may name the zone next
  /// door (within Europe's central zone that changes nothing). Set
  /// `FlowConfiguration.timeZone` to choose the zone.
  ///
  /// - Complexity: O(n + z) for n nodes and the table's z zones (the table is read once
  ///   per process).
  public var localTimeZone: TimeZone {
    guard !nodes.isEmpty else { return TimeZone(identifier: "UTC") ?? .current }
    var south = 90.0, north = -90.0, west = 180.0, east = -180.0
    for node in nodes {
      south = min(south, node.coordinates.latitude)
      north = max(north, node.coordinates.latitude)
      west = min(west, node.coordinates.longitude)
      east = max(east, node.coordinates.longitude)
    }
    guard
      let middle = try? GeoCoordinates(
        latitude: (south + north) / 2, longitude: (west + east) / 2),
      let zone = TimeZoneLocations.nearest(to: middle)
    else { return TimeZone(identifier: "UTC") ?? .current }
    return zone
  }
}

/// The local time zone of a place: the zone of the tz database whose principal location
/// (`zone1970.tab` of Debian's `tzdata`) lies nearest it, as ``RoadNetwork/localTimeZone``
/// chooses for a network's middle.
///
/// For wording a place's local dates (an incident's end "until 31.12." is the local day, not
/// UTC's). Right inside a zone's territory; near a border it may name the zone next door.
public enum PlaceTimeZone {
  /// Zones already found, by cell of a quarter of a degree (at most `cacheCapacity`).
  private static let cache = Mutex<[Int64: TimeZone]>([:])
  private static let cacheCapacity = 65_536

  /// The zone at `point`; `nil` when the table cannot be read.
  ///
  /// - Complexity: O(1) for a cell asked before; O(z) in the table's z zones otherwise.
  public static func at(_ point: GeoCoordinates) -> TimeZone? {
    let row = Int64((point.latitude * 4).rounded(.down)) + 360
    let column = Int64((point.longitude * 4).rounded(.down)) + 720
    let cell = row * 1_441 + column
    if let zone = cache.withLock({ $0[cell] }) { return zone }
    // The cell's middle, so that every point of a cell gets the same zone.
    guard
      let middle = try? GeoCoordinates(
        latitude: min(90, (Double(row - 360) + 0.5) / 4),
        longitude: min(180, (Double(column - 720) + 0.5) / 4)),
      let zone = TimeZoneLocations.nearest(to: middle)
    else { return nil }
    cache.withLock { cache in
      if cache.count >= cacheCapacity { cache.removeAll(keepingCapacity: true) }
      cache[cell] = zone
    }
    return zone
  }
}

extension PlaceTimeZone {
  /// How many seconds the local time at `point` is ahead of UTC at `date` (0 where the
  /// zone is not known).
  public static func offsetSeconds(at point: GeoCoordinates, on date: Date) -> Int {
    at(point)?.secondsFromGMT(for: date) ?? 0
  }

  /// The instant at which the clocks at `point` show `wallClock`, given as that wall-clock
  /// time read as if it were UTC (what an RFC 3339 time without an offset parses to): HERE
  /// Routing v8 reads a `departureTime` without an offset as local time at the origin.
  /// In the hour skipped when clocks go forward, the time counts with the offset before
  /// the change; in the hour repeated when they go back, the first of the two is taken.
  public static func instant(ofLocalTime wallClock: Date, at point: GeoCoordinates) -> Date {
    guard let zone = at(point) else { return wallClock }
    return instant(ofLocalTime: wallClock, in: zone)
  }

  /// The instant a wall-clock time of `zone` names, `wallClock` read as if it were UTC: the
  /// offset in force at that instant, not at the wall-clock time read as UTC (hours apart
  /// around a change of offset). A time skipped by a change (02:30 when clocks go from
  /// 02:00 to 03:00) reads at the offset before it; a time that happens twice, at the first.
  public static func instant(ofLocalTime wallClock: Date, in zone: TimeZone) -> Date {
    // The offsets a day before and a day after: a zone changes its offset at most once
    // within two days.
    let before = zone.secondsFromGMT(for: wallClock.addingTimeInterval(-86_400))
    let after = zone.secondsFromGMT(for: wallClock.addingTimeInterval(86_400))
    let readings = Set([before, after]).map { wallClock.addingTimeInterval(-Double($0)) }
      .filter { $0.addingTimeInterval(Double(zone.secondsFromGMT(for: $0))) == wallClock }
    return readings.min() ?? wallClock.addingTimeInterval(-Double(before))
  }
}

/// The principal locations of the tz database's zones.
enum TimeZoneLocations {
  /// The table of zones and their principal locations (tzdata).
  static let path = "/usr/share/zoneinfo/zone1970.tab"

  /// (location, zone identifier) of every row; empty when the table cannot be read.
  static let entries: [(GeoCoordinates, String)] = {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
    return text.split(separator: "\n").compactMap { line in
      guard !line.hasPrefix("#") else { return nil }
      let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
      guard fields.count >= 3, let location = coordinates(fields[1]) else { return nil }
      return (location, String(fields[2]))
    }
  }()

  /// The zone whose principal location is nearest `point`.
  static func nearest(to point: GeoCoordinates) -> TimeZone? {
    var best: (distance: Double, identifier: String)?
    for (location, identifier) in entries {
      let distance = point.distance(to: location)
      if best.map({ distance < $0.distance }) ?? true { best = (distance, identifier) }
    }
    return best.flatMap { TimeZone(identifier: $0.identifier) }
  }

  /// ISO 6709 `±DDMM±DDDMM` or `±DDMMSS±DDDMMSS`.
  static func coordinates(_ text: Substring) -> GeoCoordinates? {
    let bytes = Array(text.utf8)
    guard let split = bytes.dropFirst().firstIndex(where: { $0 == 43 || $0 == 45 }) else {
      return nil
    }
    func angle(_ part: ArraySlice<UInt8>, degreeDigits: Int) -> Double? {
      guard let sign = part.first, sign == 43 || sign == 45 else { return nil }
      let digits = part.dropFirst()
      guard digits.allSatisfy({ (48...57).contains($0) }),
        digits.count == degreeDigits + 2 || digits.count == degreeDigits + 4
      else { return nil }
      let values = digits.map { Double($0 - 48) }
      func number(_ from: Int, _ count: Int) -> Double {
        values[from..<(from + count)].reduce(0) { $0 * 10 + $1 }
      }
      var value = number(0, degreeDigits) + number(degreeDigits, 2) / 60
      if digits.count == degreeDigits + 4 { value += number(degreeDigits + 2, 2) / 3600 }
      return sign == 45 ? -value : value
    }
    guard let latitude = angle(bytes[..<split], degreeDigits: 2),
      let longitude = angle(bytes[split...], degreeDigits: 3)
    else { return nil }
    return try? GeoCoordinates(latitude: latitude, longitude: longitude)
  }
}
