import Codec
import Foundation
import Traffic

/// The incident filters of the command line: `--type`, `--impact`, `--lang`, `--sort-from`,
/// `--limit`, turned into `TrafficIncidentsQueryOptions`.
enum IncidentOptions {
  static let options = [
    OptionDefinition(
      "--type", "T,...",
      """
      incident types (accident, congestion, construction,
      disabledVehicle, massTransit, plannedEvent, roadHazard, weather,
      roadClosure, laneRestriction, other)
      """),
    OptionDefinition("--impact", "I,...", "critical, major, minor, low (or lowImpact)"),
    OptionDefinition("--lang", "L", "BCP 47 language of the texts (e.g. de-DE)"),
    OptionDefinition(
      "--earliest-start", "T", "also incidents active since T (RFC 3339); default: now"),
    OptionDefinition(
      "--latest-end", "T", "also incidents active until T (RFC 3339); default: now"),
  ]

  /// Takes the filter options from the arguments.
  static func take(
    from arguments: inout ArgumentList
  ) throws(UsageError)
    -> TrafficIncidentsQueryOptions
  {
    var options = TrafficIncidentsQueryOptions()
    if let types = try arguments.option("--type") {
      options.typeFilter = try list(types, option: "--type") { name throws(UsageError) in
        guard let type = TrafficIncidentType(wireName: name) else {
          throw UsageError("--type: unknown incident type '\(name)'")
        }
        return type
      }
    }
    if let impacts = try arguments.option("--impact") {
      options.impactFilter = try list(impacts, option: "--impact") { name throws(UsageError) in
        if name == "low" { return .low }
        guard let impact = TrafficIncidentImpact(wireName: name) else {
          throw UsageError("--impact: unknown impact '\(name)'")
        }
        return impact
      }
    }
    options.languageCode = try language(from: &arguments)
    options.earliestStartTime = try time(from: &arguments, option: "--earliest-start")
    options.latestEndTime = try time(from: &arguments, option: "--latest-end")
    return options
  }

  /// An RFC 3339 time option.
  static func time(from arguments: inout ArgumentList, option: String) throws(UsageError) -> Date? {
    guard let text = try arguments.option(option) else { return nil }
    return try time(text, option: option)
  }

  /// The time `text` of `option` says: RFC 3339, or an offset from now (`+6h`).
  static func time(_ text: String, option: String) throws(UsageError) -> Date {
    if let date = RFC3339.parseWithOffset(text) { return date }
    if let offset = relativeOffset(text) { return Date().addingTimeInterval(offset) }
    throw UsageError(
      "\(option) expects an RFC 3339 time such as 2026-11-29T18:00:00Z or an offset from now "
        + "such as +6h, -30m or +2d, got '\(text)'")
  }

  /// `+N` or `-N` followed by `s`, `m`, `h` or `d`: seconds from now.
  static func relativeOffset(_ text: String) -> TimeInterval? {
    guard let sign = text.first, sign == "+" || sign == "-", let unit = text.last else {
      return nil
    }
    let scale: Double
    switch unit {
    case "s": scale = 1
    case "m": scale = 60
    case "h": scale = 3600
    case "d": scale = 86_400
    default: return nil
    }
    guard let number = AreaArgument.decimal(text.dropFirst().dropLast()), number.isFinite,
      number >= 0,
      number * scale < 1e10,
      !text.dropFirst().dropLast().contains(where: { !$0.isNumber && $0 != "." })
    else { return nil }
    return sign == "-" ? -number * scale : number * scale
  }

  /// `--lang L` parsed as a BCP 47 tag.
  static func language(from arguments: inout ArgumentList) throws(UsageError) -> LanguageCode? {
    guard let tag = try arguments.option("--lang") else { return nil }
    do { return try LanguageCode(tag) } catch { throw UsageError("--lang: \(error)") }
  }

  static func list<T>(
    _ text: String, option: String, _ parse: (String) throws(UsageError) -> T
  ) throws(UsageError) -> [T] {
    let names = text.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }
    guard !names.isEmpty, !names.contains("") else {
      throw UsageError("\(option) expects a comma-separated list, got '\(text)'")
    }
    var result: [T] = []
    for name in names { result.append(try parse(name)) }
    return result
  }
}
