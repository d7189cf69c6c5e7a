/// A location in a TMC (RDS-TMC, ALERT-C) location table, as a feed gives it (ISO 14819-3,
/// "Location referencing for ALERT-C"; DATEX II `alertCPoint` / `alertCLinear`; HERE v7
/// `location.tmc`).
///
/// A TMC location is a code in a national table; placing it on a map needs that table, which
/// this library does not have. The reference is kept so that clients holding the table can
/// use it, and so that it reaches them through the stores and the v7 API unchanged.
///
/// The extent of a linear location is given either as a secondary location code (DATEX II
/// methods 2 and 4) or as a number of steps through the table from the primary location
/// (`extent`, as in ALERT-C messages and HERE v7). The primary location is the downstream end,
/// where the event is; the secondary lies upstream of it.
public struct TMCLocationReference: Hashable, Sendable {
  /// The direction of traffic an event concerns, relative to the table's coding direction.
  public enum Direction: String, Hashable, Sendable, CaseIterable, Codable {
    /// In the coding direction of the road (ALERT-C positive, v7 `+`).
    case positive
    /// Against the coding direction (ALERT-C negative, v7 `-`).
    case negative
    /// Both directions.
    case both
    /// Not given.
    case unknown
  }

  /// The EBU country code as the source gives it: one hexadecimal digit (`"D"` for Germany,
  /// `"8"` for the Netherlands), shared by several countries and told apart by
  /// `extendedCountryCode`.
  public var countryCode: String
  /// The extended country code (ECC, two hexadecimal digits such as `"E0"`), when given.
  public var extendedCountryCode: String?
  /// The location table number within the country, as given (`"1"`, `"1.11"`).
  public var tableNumber: String
  /// The version of the location table, when given (`"11.0"`).
  public var tableVersion: String?
  /// The primary location code: where the event is (the downstream end of a stretch).
  public var primaryLocationCode: Int
  /// The secondary location code: the upstream end of a stretch, when given.
  public var secondaryLocationCode: Int?
  /// The number of table steps from the primary location to the other end, when given
  /// instead of (or besides) a secondary code.
  public var extent: Int?
  /// The affected direction.
  public var direction: Direction
  /// How far before the primary location (against the traffic) the event begins, meters
  /// (DATEX II method 4 `offsetDistance`, v7 `primaryOffset`), when given.
  public var primaryOffsetInMeters: Double?
  /// How far beyond the secondary location the event ends, meters (DATEX II method 4), when
  /// given.
  public var secondaryOffsetInMeters: Double?
  /// The affected length as the source states it, meters (v7 `affectedLength`), when given.
  public var affectedLengthInMeters: Double?

  /// The largest location code: ALERT-C codes are 16-bit.
  public static let maximumLocationCode = 65_535

  /// Creates a TMC location reference.
  ///
  /// - Parameters:
  ///   - countryCode: The EBU country code as given; not empty.
  ///   - extendedCountryCode: The ECC, when known.
  ///   - tableNumber: The location table number as given; not empty.
  ///   - tableVersion: The table version, when known.
  ///   - primaryLocationCode: 0...65535.
  ///   - secondaryLocationCode: 0...65535, when known.
  ///   - extent: Table steps to the other end, >= 0, when known.
  ///   - direction: The affected direction; `.unknown` by default.
  ///   - primaryOffsetInMeters: >= 0, when known.
  ///   - secondaryOffsetInMeters: >= 0, when known.
  ///   - affectedLengthInMeters: >= 0, when known.
  /// - Throws: `TrafficModelError.emptyField` for an empty country code or table number,
  ///   `.invalidValue` for a code, extent, offset or length out of range.
  public init(
    countryCode: String, extendedCountryCode: String? = nil, tableNumber: String,
    tableVersion: String? = nil, primaryLocationCode: Int, secondaryLocationCode: Int? = nil,
    extent: Int? = nil, direction: Direction = .unknown, primaryOffsetInMeters: Double? = nil,
    secondaryOffsetInMeters: Double? = nil, affectedLengthInMeters: Double? = nil
  ) throws(TrafficModelError) {
    guard !countryCode.isEmpty else { throw .emptyField("tmc.countryCode") }
    guard !tableNumber.isEmpty else { throw .emptyField("tmc.tableNumber") }
    for (field, code) in [
      ("tmc.primaryLocationCode", primaryLocationCode),
      ("tmc.secondaryLocationCode", secondaryLocationCode),
    ] {
      guard let code else { continue }
      guard (0...Self.maximumLocationCode).contains(code) else {
        throw .invalidValue(field: field, value: Double(code), reason: "must be 0...65535")
      }
    }
    if let extent, extent < 0 {
      throw .invalidValue(field: "tmc.extent", value: Double(extent), reason: "must be >= 0")
    }
    for (field, value) in [
      ("tmc.primaryOffsetInMeters", primaryOffsetInMeters),
      ("tmc.secondaryOffsetInMeters", secondaryOffsetInMeters),
      ("tmc.affectedLengthInMeters", affectedLengthInMeters),
    ] {
      guard let value else { continue }
      guard value.isFinite, value >= 0 else {
        throw .invalidValue(field: field, value: value, reason: "must be >= 0")
      }
    }
    self.countryCode = countryCode
    self.extendedCountryCode = extendedCountryCode
    self.tableNumber = tableNumber
    self.tableVersion = tableVersion
    self.primaryLocationCode = primaryLocationCode
    self.secondaryLocationCode = secondaryLocationCode
    self.extent = extent
    self.direction = direction
    self.primaryOffsetInMeters = primaryOffsetInMeters
    self.secondaryOffsetInMeters = secondaryOffsetInMeters
    self.affectedLengthInMeters = affectedLengthInMeters
  }
}

extension TMCLocationReference: Codable {
  private enum CodingKeys: String, CodingKey {
    case countryCode, extendedCountryCode, tableNumber, tableVersion, primaryLocationCode
    case secondaryLocationCode, extent, direction, primaryOffsetInMeters
    case secondaryOffsetInMeters, affectedLengthInMeters
  }

  /// Decodes the stored form, validating it as the initialiser does.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    try self.init(
      countryCode: container.decode(String.self, forKey: .countryCode),
      extendedCountryCode: container.decodeIfPresent(String.self, forKey: .extendedCountryCode),
      tableNumber: container.decode(String.self, forKey: .tableNumber),
      tableVersion: container.decodeIfPresent(String.self, forKey: .tableVersion),
      primaryLocationCode: container.decode(Int.self, forKey: .primaryLocationCode),
      secondaryLocationCode: container.decodeIfPresent(Int.self, forKey: .secondaryLocationCode),
      extent: container.decodeIfPresent(Int.self, forKey: .extent),
      direction: container.decodeIfPresent(Direction.self, forKey: .direction) ?? .unknown,
      primaryOffsetInMeters: container.decodeIfPresent(Double.self, forKey: .primaryOffsetInMeters),
      secondaryOffsetInMeters: container.decodeIfPresent(
        Double.self, forKey: .secondaryOffsetInMeters),
      affectedLengthInMeters: container.decodeIfPresent(
        Double.self, forKey: .affectedLengthInMeters))
  }

  /// Encodes the fields that are set.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(countryCode, forKey: .countryCode)
    try container.encodeIfPresent(extendedCountryCode, forKey: .extendedCountryCode)
    try container.encode(tableNumber, forKey: .tableNumber)
    try container.encodeIfPresent(tableVersion, forKey: .tableVersion)
    try container.encode(primaryLocationCode, forKey: .primaryLocationCode)
    try container.encodeIfPresent(secondaryLocationCode, forKey: .secondaryLocationCode)
    try container.encodeIfPresent(extent, forKey: .extent)
    try container.encode(direction, forKey: .direction)
    try container.encodeIfPresent(primaryOffsetInMeters, forKey: .primaryOffsetInMeters)
    try container.encodeIfPresent(secondaryOffsetInMeters, forKey: .secondaryOffsetInMeters)
    try container.encodeIfPresent(affectedLengthInMeters, forKey: .affectedLengthInMeters)
  }
}
