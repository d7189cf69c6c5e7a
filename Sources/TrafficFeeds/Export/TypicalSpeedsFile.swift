import Foundation
import Roads
import Traffic

/// This project's file of typical speeds, to move typical weeks between networks and
/// systems (history bought elsewhere, or learned by another deployment): CSV with a header,
/// one row per segment and five-minute bin of the local week.
///
/// ```
/// way_id,from_node,to_node,weekday,time,speed_kmh,samples
/// 4001234,268113,268120,mon,08:00,21.6,4
/// ```
///
/// - `way_id`, `from_node`, `to_node`: the segment — the source way (OpenStreetMap way id or
///   SUMO edge id) and its end nodes in the direction of travel (OSM node ids or SUMO
///   junction ids), as `traffic network import` read them.
/// - `weekday`: `mon` ... `sun`; `time`: the bin's start, `HH:MM` local time of the
///   network's time zone (minutes are rounded down to the five-minute bin).
/// - `speed_kmh`: the typical speed, km/h (> 0, at most 737); `samples`: how many periods
///   it rests on, 1...15 (optional, default 1; more counts as 15).
///
/// Importing replaces the weeks of the segments the file names.
package enum TypicalSpeedsFile {
  package static let header = "way_id,from_node,to_node,weekday,time,speed_kmh,samples"
  private static let weekdays = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]

  /// A row that cannot be read.
  package struct Failure: Error, CustomStringConvertible {
    package var description: String
  }

  /// What an import read.
  package struct Decoded: Sendable {
    /// The weeks by segment id.
    package var weeks: [(Int, TypicalWeek)]
    /// Rows read.
    package var rows: Int
    /// Rows naming a segment the network does not have.
    package var unknownSegments: Int
  }

  /// The file of the typical weeks of a picture's segments: their bins that are typical at
  /// the picture's time (a bin whose one sample is from today or yesterday is not yet; the
  /// file has no dates, so an import would take it as typical at once).
  ///
  /// - Returns: The text and the number of segments written.
  package static func encode(_ picture: SpeedPicture) -> (text: String, segments: Int) {
    let network = picture.network
    let today = TypicalSpeeds.day(of: picture.time)
    var text = header + "\n"
    var count = 0
    for id in picture.segmentIDs {
      guard let week = picture.typicalWeek(id) else { continue }
      let entries = week.entries.filter {
        TypicalWeek.isTypical(
          samples: TypicalWeek.samples(of: $0), day: TypicalWeek.day(of: $0), today: today)
      }
      guard !entries.isEmpty else { continue }
      let segment = network.segments[id]
      let prefix =
        "\(field(segment.sourceID)),\(field(network.nodes[segment.fromNode].sourceID)),"
        + "\(field(network.nodes[segment.toNode].sourceID)),"
      for entry in entries {
        let bin = TypicalWeek.bin(of: entry)
        let slot = bin % TypicalWeek.binsPerDay
        let time = String(format: "%02d:%02d", slot / 12, slot % 12 * 5)
        let speed = String(format: "%.2f", TypicalWeek.speed(of: entry) * 3.6)
        text +=
          "\(prefix)\(weekdays[bin / TypicalWeek.binsPerDay]),\(time),\(speed),"
          + "\(TypicalWeek.samples(of: entry))\n"
      }
      count += 1
    }
    return (text, count)
  }

  /// Reads a file for `network`; the bins get `day` as the day of their last sample (days
  /// since 1970; give a day at least two days back so that they count as typical at once).
  ///
  /// - Throws: ``Failure`` naming the line and the field of the first bad row.
  package static func decode(
    _ text: String, network: RoadNetwork, day: Int
  ) throws(Failure) -> Decoded {
    var segments: [String: Int] = [:]
    for segment in network.segments {
      let key =
        "\(segment.sourceID)\u{0}\(network.nodes[segment.fromNode].sourceID)\u{0}"
        + "\(network.nodes[segment.toNode].sourceID)"
      if segments[key] == nil { segments[key] = segment.id }
    }
    var bins: [Int: [Int: UInt32]] = [:]
    var rows = 0, unknown = 0
    // Any line end: LF, CRLF (one Character in Swift, so a file written on Windows was one
    // line with the header first, and read as no rows) or CR.
    var lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)[...]
    guard let first = lines.popFirst(),
      first.trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix(
        "way_id,from_node,to_node,weekday,time,speed_kmh")
    else {
      throw Failure(description: "line 1 must be the header \"\(header)\"")
    }
    for (offset, raw) in lines.enumerated() {
      let number = offset + 2
      let line = raw.trimmingCharacters(in: .whitespacesAndNewlines)
      if line.isEmpty { continue }
      let fields = line.split(separator: ",", omittingEmptySubsequences: false)
        .map { $0.trimmingCharacters(in: .whitespaces) }
      guard fields.count == 6 || fields.count == 7 else {
        throw Failure(description: "line \(number) has \(fields.count) fields, not 6 or 7")
      }
      guard let weekday = weekdays.firstIndex(of: fields[3].lowercased()) else {
        throw Failure(
          description: "line \(number): weekday \"\(fields[3].prefix(20))\" is not mon ... sun")
      }
      let time = fields[4].split(separator: ":")
      guard time.count == 2, let hour = Int(time[0]), let minute = Int(time[1]),
        (0..<24).contains(hour), (0..<60).contains(minute)
      else {
        throw Failure(description: "line \(number): time \"\(fields[4].prefix(20))\" is not HH:MM")
      }
      guard let kmh = Double(fields[5]), kmh.isFinite, kmh > 0,
        kmh <= TypicalWeek.maximumSpeed * 3.6
      else {
        throw Failure(
          description:
            "line \(number): speed_kmh \"\(fields[5].prefix(20))\" must be a number above 0 "
            + "and at most \(TypicalWeek.maximumSpeed * 3.6)")
      }
      var samples = 1
      if fields.count == 7, !fields[6].isEmpty {
        guard let value = Int(fields[6]), value >= 1 else {
          throw Failure(
            description:
              "line \(number): samples \"\(fields[6].prefix(20))\" must be a whole number, 1 or "
              + "more")
        }
        samples = min(value, TypicalWeek.maximumSamples)
      }
      rows += 1
      let key = fields[0..<3].map { $0.replacingOccurrences(of: "%2C", with: ",") }
        .joined(separator: "\u{0}")
      guard let segment = segments[key] else {
        unknown += 1
        continue
      }
      let bin = weekday * TypicalWeek.binsPerDay + hour * 12 + minute / 5
      bins[segment, default: [:]][bin] = TypicalWeek.pack(
        bin: bin, samples: samples, day: day, speed: kmh / 3.6)
    }
    var weeks: [(Int, TypicalWeek)] = []
    for (segment, entries) in bins.sorted(by: { $0.key < $1.key }) {
      // Built from checked values: bins in order, samples and speeds positive.
      if let week = try? TypicalWeek(entries: entries.sorted { $0.key < $1.key }.map(\.value)) {
        weeks.append((segment, week))
      }
    }
    return Decoded(weeks: weeks, rows: rows, unknownSegments: unknown)
  }

  private static func field(_ text: String) -> String {
    text.contains(",") ? text.replacingOccurrences(of: ",", with: "%2C") : text
  }
}
