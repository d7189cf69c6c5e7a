/// Where a segment's speed limit comes from.
public enum SpeedLimitSource: String, Hashable, Sendable, Codable {
  /// A posted limit tagged on the road (`maxspeed=80`, `maxspeed=50 mph`) or given by the
  /// SUMO lane speed.
  case posted
  /// A limit implied by a legal category tagged on the road (`maxspeed=DE:urban`,
  /// `maxspeed=walk`, `source:maxspeed=CH:rural`).
  case implicit
  /// No general limit (`maxspeed=none`); the value is the country's advisory or typical speed
  /// (130 km/h on German motorways).
  case unlimited
  /// Nothing tagged: the usual limit for the road class in the country (see
  /// ``SpeedLimit/defaultSpeed(for:countryCode:)``).
  case roadClassDefault
}

/// A speed limit in meters per second and its source.
public struct SpeedLimit: Hashable, Sendable {
  /// The limit, meters per second.
  public let metersPerSecond: Double
  /// Where the value comes from.
  public let source: SpeedLimitSource

  /// Creates a speed limit.
  public init(metersPerSecond: Double, source: SpeedLimitSource) {
    self.metersPerSecond = metersPerSecond
    self.source = source
  }

  static let kilometersPerHour = 1000.0 / 3600.0
  static let milesPerHour = 1609.344 / 3600.0
  static let knots = 1852.0 / 3600.0
  /// "Walking pace" (`maxspeed=walk`, German Schrittgeschwindigkeit), read as 7 km/h.
  static let walkingPaceInKilometersPerHour = 7.0

  /// Reads an OpenStreetMap `maxspeed` value.
  ///
  /// Understood forms (OpenStreetMap wiki, Key:maxspeed): a number in km/h (`"50"`,
  /// `"50 km/h"`), `"30 mph"`, `"10 knots"`, `"none"`, `"walk"`, and country-coded legal
  /// categories such as `"DE:urban"`, `"CH:rural"`, `"AT:motorway"`, `"DE:zone30"`,
  /// `"FR:zone:30"`, `"GB:nsl_single"` (see ``implicitLimitsInKilometersPerHour``). Of a
  /// list (`"50;30"`) the first value counts. `"signals"`, `"variable"` and anything
  /// unreadable or outside 1...300 km/h give `nil`, so the caller falls back to defaults.
  ///
  /// - Parameters:
  ///   - value: the tag value.
  ///   - countryCode: ISO 3166-1 alpha-2 code used for `"none"` (the advisory speed).
  /// - Returns: the limit, or `nil` when the value does not give one.
  /// - Complexity: O(length of `value`).
  public static func parse(maxspeed value: String, countryCode: String? = nil) -> SpeedLimit? {
    let first = value.split(separator: ";", omittingEmptySubsequences: false).first ?? ""
    let text = first.trimmingWhitespace()
    let lower = text.lowercased()
    switch lower {
    case "none":
      let profile = CountrySpeedProfile.profile(for: countryCode)
      return SpeedLimit(
        metersPerSecond: profile.motorway * kilometersPerHour, source: .unlimited)
    case "walk":
      return SpeedLimit(
        metersPerSecond: walkingPaceInKilometersPerHour * kilometersPerHour, source: .implicit)
    case "", "signals", "variable", "no", "yes":
      return nil
    default:
      break
    }
    if text.contains(":") {
      return implicitLimit(text)
    }
    // A number with an optional unit.
    var digits = ""
    var rest = Substring(lower)
    while let c = rest.first, c.isASCII, c.isNumber || c == "." {
      digits.append(c)
      rest = rest.dropFirst()
    }
    guard let number = Double(digits), number.isFinite else { return nil }
    let unit = rest.trimmingWhitespace()
    let factor: Double
    switch unit {
    case "", "km/h", "kmh", "kph": factor = kilometersPerHour
    case "mph": factor = milesPerHour
    case "knots", "kn": factor = knots
    default: return nil
    }
    let metersPerSecond = number * factor
    guard metersPerSecond >= 1 * kilometersPerHour, metersPerSecond <= 300 * kilometersPerHour
    else { return nil }
    return SpeedLimit(metersPerSecond: metersPerSecond, source: .posted)
  }

  /// Limits implied by country-coded `maxspeed` categories, km/h (values from the OpenStreetMap
  /// wiki page "Default speed limits" and the countries' traffic codes).
  ///
  /// `none`-like categories (`DE:motorway`) carry the advisory speed; zones (`XX:zone30`) are
  /// handled by ``implicitLimit(_:)`` for any country.
  package static let implicitLimitsInKilometersPerHour: [String: Double] = [
    "AT:urban": 50, "AT:rural": 100, "AT:trunk": 100, "AT:motorway": 130,
    "AT:living_street": 7, "AT:bicycle_road": 30,
    "BE:urban": 50, "BE:rural": 70, "BE-VLG:rural": 70, "BE-WAL:rural": 90, "BE:trunk": 120,
    "BE:motorway": 120, "BE:living_street": 20,
    "CH:urban": 50, "CH:rural": 80, "CH:trunk": 100, "CH:motorway": 120,
    "CH:living_street": 20,
    "CZ:urban": 50, "CZ:rural": 90, "CZ:trunk": 110, "CZ:motorway": 130,
    "CZ:living_street": 20,
    "DE:urban": 50, "DE:rural": 100, "DE:trunk": 100, "DE:motorway": 130,
    "DE:living_street": 7, "DE:bicycle_road": 30,
    "DK:urban": 50, "DK:rural": 80, "DK:motorway": 130,
    "ES:urban": 50, "ES:rural": 90, "ES:trunk": 100, "ES:motorway": 120,
    "ES:living_street": 20,
    "FR:urban": 50, "FR:rural": 80, "FR:trunk": 110, "FR:motorway": 130,
    "FR:living_street": 20,
    "GB:nsl_single": 60 * 1.609344, "GB:nsl_dual": 70 * 1.609344,
    "GB:motorway": 70 * 1.609344, "GB:urban": 30 * 1.609344,
    "UK:nsl_single": 60 * 1.609344, "UK:nsl_dual": 70 * 1.609344,
    "UK:motorway": 70 * 1.609344,
    "IT:urban": 50, "IT:rural": 90, "IT:trunk": 110, "IT:motorway": 130,
    "LI:urban": 50, "LI:rural": 80, "LI:living_street": 20,
    "LU:urban": 50, "LU:rural": 90, "LU:motorway": 130,
    "NL:urban": 50, "NL:rural": 80, "NL:trunk": 100, "NL:motorway": 100,
    "NL:living_street": 15,
    "PL:urban": 50, "PL:rural": 90, "PL:trunk": 100, "PL:motorway": 140,
    "PL:expressway": 120, "PL:living_street": 20,
    "RU:urban": 60, "RU:rural": 90, "RU:motorway": 110, "RU:living_street": 20,
    "UA:urban": 50, "UA:rural": 90, "UA:motorway": 130, "UA:living_street": 20,
  ]

  /// The limit of a country-coded category such as `"DE:urban"` or `"DE:zone30"`.
  static func implicitLimit(_ text: String) -> SpeedLimit? {
    if let kmh = implicitLimitsInKilometersPerHour[text] {
      return SpeedLimit(metersPerSecond: kmh * kilometersPerHour, source: .implicit)
    }
    // "XX:zone30", "XX:zone:30", "XX:zone 30" — a speed zone, limit in km/h.
    guard let colon = text.firstIndex(of: ":") else { return nil }
    var rest = text[text.index(after: colon)...].lowercased()
    guard rest.hasPrefix("zone") else { return nil }
    rest.removeFirst(4)
    let number = rest.drop { $0 == ":" || $0 == " " }
    guard let kmh = Double(number), kmh >= 5, kmh <= 130 else { return nil }
    return SpeedLimit(metersPerSecond: kmh * kilometersPerHour, source: .implicit)
  }

  /// The usual legal limit for a road class in a country when nothing is tagged.
  ///
  /// The country's profile (``CountrySpeedProfile``) gives limits inside built-up areas
  /// (urban), outside them (rural), on trunk roads/expressways and on motorways. As the
  /// importer cannot tell whether a road lies in a built-up area, each class takes the
  /// category it most often has:
  ///
  /// | class | limit |
  /// |---|---|
  /// | motorway | motorway (DE: 130 advisory, AT 130, CH 120, FR 130, IT 130, NL 100) |
  /// | trunk | trunk (DE 100, CH 100, FR 110) |
  /// | primary, secondary, tertiary | rural (DE 100, AT 100, CH/LI 80, FR 80, IT 90) |
  /// | unclassified, residential, road, busway | urban (50 almost everywhere, GB 30 mph) |
  /// | `*_link` | its parent's limit, at most 80 km/h |
  /// | living_street, pedestrian | living street (DE/AT walking pace 7, CH/LI/FR 20) |
  /// | service, track | 20 km/h (a practical speed; these rarely carry a general limit) |
  ///
  /// Without a known country, the generic profile is urban 50, rural 90, trunk 100,
  /// motorway 120, living street 10 km/h.
  ///
  /// - Parameters:
  ///   - roadClass: the road's class.
  ///   - countryCode: ISO 3166-1 alpha-2 code (`"DE"`, `"LI"`), or `nil`.
  /// - Returns: the limit with source ``SpeedLimitSource/roadClassDefault``.
  public static func defaultSpeed(for roadClass: RoadClass, countryCode: String?) -> SpeedLimit {
    let profile = CountrySpeedProfile.profile(for: countryCode)
    let kmh: Double
    switch roadClass {
    case .motorway: kmh = profile.motorway
    case .trunk: kmh = profile.trunk
    case .primary, .secondary, .tertiary: kmh = profile.rural
    case .unclassified, .residential, .road, .busway: kmh = profile.urban
    case .motorwayLink: kmh = min(profile.motorway, 80)
    case .trunkLink: kmh = min(profile.trunk, 80)
    case .primaryLink, .secondaryLink, .tertiaryLink: kmh = min(profile.rural, 80)
    case .livingStreet, .pedestrian: kmh = profile.livingStreet
    case .service, .track: kmh = 20
    }
    return SpeedLimit(metersPerSecond: kmh * kilometersPerHour, source: .roadClassDefault)
  }
}

/// A country's general speed limits, km/h.
package struct CountrySpeedProfile: Sendable {
  package let urban: Double
  package let rural: Double
  package let trunk: Double
  package let motorway: Double
  package let livingStreet: Double

  static let mph = 1.609344

  /// Profiles by ISO 3166-1 alpha-2 code (OpenStreetMap wiki "Default speed limits").
  package static let byCountry: [String: CountrySpeedProfile] = [
    "AT": .init(urban: 50, rural: 100, trunk: 100, motorway: 130, livingStreet: 7),
    "BE": .init(urban: 50, rural: 70, trunk: 120, motorway: 120, livingStreet: 20),
    "CH": .init(urban: 50, rural: 80, trunk: 100, motorway: 120, livingStreet: 20),
    "CZ": .init(urban: 50, rural: 90, trunk: 110, motorway: 130, livingStreet: 20),
    "DE": .init(urban: 50, rural: 100, trunk: 100, motorway: 130, livingStreet: 7),
    "DK": .init(urban: 50, rural: 80, trunk: 80, motorway: 130, livingStreet: 15),
    "ES": .init(urban: 50, rural: 90, trunk: 100, motorway: 120, livingStreet: 20),
    "FR": .init(urban: 50, rural: 80, trunk: 110, motorway: 130, livingStreet: 20),
    "GB": .init(
      urban: 30 * mph, rural: 60 * mph, trunk: 70 * mph, motorway: 70 * mph,
      livingStreet: 20 * mph),
    "IT": .init(urban: 50, rural: 90, trunk: 110, motorway: 130, livingStreet: 20),
    "LI": .init(urban: 50, rural: 80, trunk: 100, motorway: 120, livingStreet: 20),
    "LU": .init(urban: 50, rural: 90, trunk: 90, motorway: 130, livingStreet: 20),
    "NL": .init(urban: 50, rural: 80, trunk: 100, motorway: 100, livingStreet: 15),
    "PL": .init(urban: 50, rural: 90, trunk: 100, motorway: 140, livingStreet: 20),
  ]

  /// The profile used when the country is unknown or not in the table.
  package static let generic = CountrySpeedProfile(
    urban: 50, rural: 90, trunk: 100, motorway: 120, livingStreet: 10)

  package static func profile(for countryCode: String?) -> CountrySpeedProfile {
    guard let countryCode else { return generic }
    let code = countryCode == "UK" ? "GB" : countryCode.uppercased()
    return byCountry[code] ?? generic
  }
}

extension StringProtocol {
  /// The text without leading and trailing spaces, tabs and newlines.
  func trimmingWhitespace() -> String {
    var start = startIndex
    var end = endIndex
    while start < end, self[start].isWhitespace { start = index(after: start) }
    while end > start, self[index(before: end)].isWhitespace { end = index(before: end) }
    return String(self[start..<end])
  }
}
