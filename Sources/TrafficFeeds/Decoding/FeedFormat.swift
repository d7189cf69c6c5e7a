import Foundation
import Traffic
import Zlib

/// The feed formats this module reads; the raw value is the name used on the command line
/// (`traffic import --format datex2`) and in `POST /v1/feeds/{format}`.
public enum FeedFormat: String, CaseIterable, Hashable, Sendable, CustomStringConvertible {
  /// DATEX II v2 (`d2LogicalModel`) or v3 SituationPublication (XML).
  case datex2
  /// Work Zone Data Exchange (WZDx) 4.x WorkZoneFeed (GeoJSON).
  case wzdx
  /// Open511 events (JSON or XML).
  case open511
  /// Waze for Cities (CCP) alerts and jams (JSON).
  case waze
  /// HERE Traffic API v7 incidents response (JSON).
  case hereV7 = "here-v7"
  /// TomTom Traffic Incident Details v5 (JSON).
  case tomtom

  /// The command-line name.
  public var description: String { rawValue }
}

/// Settings of one feed source that its documents do not carry themselves.
public struct FeedOptions: Sendable {
  /// A short name of the source (e.g. `"uk-ntis"`): the feed its incidents are ingested
  /// under (their `sources`); incident ids stay the source's own.
  public var sourceName: String
  /// Axis order of DATEX II `posList` / GML coordinates: publishers differ.
  public var axisOrder: AxisOrder
  /// The language of the source's texts when the document does not say.
  public var defaultLanguage: LanguageCode?
  /// The ISO 3166-1 alpha-2 country of the source when the document does not say.
  public var defaultCountryCode: String?
  /// The time used for "now" (ends of open intervals, entry times), UTC.
  public var now: Date

  /// The order of the two numbers of a position in a coordinate list.
  public enum AxisOrder: String, Sendable, CaseIterable {
    /// Latitude first (most DATEX II publishers).
    case latLon
    /// Longitude first.
    case lonLat
  }

  /// Creates options.
  ///
  /// - Parameters:
  ///   - sourceName: Short name of the source.
  ///   - axisOrder: Coordinate order of position lists, latitude first by default.
  ///   - defaultLanguage: Language of texts when the document does not say.
  ///   - defaultCountryCode: Country when the document does not say.
  ///   - now: The current time.
  public init(
    sourceName: String, axisOrder: AxisOrder = .latLon, defaultLanguage: LanguageCode? = nil,
    defaultCountryCode: String? = nil, now: Date = Date()
  ) {
    self.sourceName = sourceName
    self.axisOrder = axisOrder
    self.defaultLanguage = defaultLanguage
    self.defaultCountryCode = defaultCountryCode
    self.now = now
  }
}

/// What one feed document holds once decoded.
public struct FeedDocument: Sendable {
  /// The incidents, each with the source's own id as `originalId`.
  public var incidents: [TrafficIncident]
  /// Flow observations the document carries (Waze jams, v7 flow).
  public var flowObservations: [FlowObservation]
  /// Records that were skipped, each with where it was and why (and its id when that could
  /// be read, ``FeedError/recordId``); the rest still imports.
  public var problems: [FeedError]
  /// Whether the document is the source's complete current picture (so incidents it no
  /// longer carries have ended) rather than a delta.
  public var isFullRefresh: Bool
  /// When the publisher produced the document, if it says.
  public var publicationTime: Date?
  /// The source the document names itself, with its format (`wzdx:CDOT` for a WZDx
  /// `feed_info.publisher`), when the format carries one; `nil` otherwise.
  public var publisher: String?

  /// The name the document's incidents are ingested under (their `sources`), the same
  /// whether the document was imported from a file, pushed or polled: the name the user
  /// gave, else the source the document names itself, else `origin` (what the caller
  /// knows of where it came from: the file, the pushed format, the polled URL).
  ///
  /// A source's newer report replaces its older one; a full refresh ends the source's
  /// incidents it no longer carries. So one feed must keep one name across the ways it
  /// arrives, and two feeds must not share one.
  ///
  /// - Parameters:
  ///   - given: The name the user gave (`--source`, `?source=`, `--feed NAME=...`).
  ///   - origin: The name to use when neither the user nor the document names the source.
  /// - Returns: The source name.
  public func sourceName(given: String?, origin: String) -> String {
    given ?? publisher ?? origin
  }

  /// Whether `name` can name a source: 1 to 100 characters, none a control character (a
  /// tab or a line break in a name would reach logs, keys' grants and published documents).
  /// The same rule for `--source`, `?source=` and a polled feed's name.
  public static func isValidSourceName(_ name: String) -> Bool {
    !name.isEmpty && name.count <= 100
      && !name.unicodeScalars.contains { $0.properties.generalCategory == .control }
  }

  /// The most points an incident of a feed may have, over all its polylines: a record
  /// with more is skipped. 10 000 points is a 100 km road drawn every 10 m; a record of
  /// millions of points stalled every source's pushes for minutes (merging compares
  /// geometries point by point) and made every answer holding it tens of megabytes.
  public static let maximumVerticesPerIncident = 10_000

  /// What a source name must be, for error messages.
  public static let sourceNameRule = "1 to 100 characters, none a control character"

  /// Creates a decoded document.
  public init(
    incidents: [TrafficIncident] = [], flowObservations: [FlowObservation] = [],
    problems: [FeedError] = [], isFullRefresh: Bool = true, publicationTime: Date? = nil
  ) {
    self.incidents = incidents
    self.flowObservations = flowObservations
    self.problems = problems
    self.isFullRefresh = isFullRefresh
    self.publicationTime = publicationTime
  }
}

/// Why a document, or one record of it, could not be decoded; names the place.
public struct FeedError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The format being decoded.
  public var format: FeedFormat
  /// Where: an XML element path with line (`"situation[3]/situationRecord (line 120)"`), a
  /// JSON path (`"features[12].geometry"`), or a byte offset.
  public var location: String?
  /// What was wrong.
  public var reason: String
  /// The source's own id of the record skipped, when it could be read: the record is still
  /// in the document, so a full refresh does not end the incident of that id
  /// (``FeedApplication``); `nil` for a document that cannot be read and a record without a
  /// readable id.
  public var recordId: String?

  /// Creates an error.
  public init(
    format: FeedFormat, location: String? = nil, reason: String, recordId: String? = nil
  ) {
    self.format = format
    self.location = location
    self.reason = reason
    self.recordId = recordId
  }

  /// The same error naming the id of the record skipped (``recordId``).
  func skipping(_ recordId: String?) -> FeedError {
    var error = self
    error.recordId = recordId.flatMap { $0.isEmpty ? nil : $0 }
    return error
  }

  /// `"<format>: <location>: <reason>"`.
  public var description: String {
    if let location { return "\(format): \(location): \(reason)" }
    return "\(format): \(reason)"
  }
}

/// A decoder of one feed format.
public protocol FeedDecoder: Sendable {
  /// The format decoded.
  static var format: FeedFormat { get }
  /// Whether the document looks like this format (used by `--format auto`); must be cheap
  /// and never throw.
  static func recognizes(_ data: Data) -> Bool
  /// Decodes a whole document, streaming it: records are decoded as they are read, so
  /// memory holds the largest record and the results, not the document.
  ///
  /// Records that are broken are skipped and listed in `FeedDocument.problems`; a document
  /// that cannot be read at all throws.
  /// - Throws: `FeedError` naming the place and the reason (or the file that cannot be read).
  static func decode(_ input: FeedInput, options: FeedOptions) throws(FeedError) -> FeedDocument
}

extension FeedDecoder {
  /// Decodes a whole document held in memory.
  ///
  /// - Throws: `FeedError` naming the place and the reason.
  /// - Complexity: O(n) in the size of `data`.
  public static func decode(_ data: Data, options: FeedOptions) throws(FeedError) -> FeedDocument {
    try decode(.data(data), options: options)
  }
}

extension FeedFormat {
  /// The decoder of this format.
  public var decoder: any FeedDecoder.Type {
    switch self {
    case .datex2: return DATEXIIDecoder.self
    case .wzdx: return WZDxDecoder.self
    case .open511: return Open511Decoder.self
    case .waze: return WazeDecoder.self
    case .hereV7: return HEREv7Decoder.self
    case .tomtom: return TomTomDecoder.self
    }
  }

  /// Recognises the format of a document from its content (`--format auto`).
  ///
  /// - Parameter data: The whole document (decoders look at a bounded prefix).
  /// - Returns: The first format whose decoder claims the document, or `nil`.
  public static func detect(_ data: Data) -> FeedFormat? {
    if StreamingInflater.isGzip(data) {
      // A compressed document: look at what it inflates to.
      return try? detect(FeedInput.data(data))
    }
    if let text = utf16Text(data) {
      // XML may be UTF-16 (its byte-order mark says so): the markers are looked for in
      // the same text as UTF-8.
      return allCases.first { $0.decoder.recognizes(Data(text.utf8)) }
    }
    return allCases.first { $0.decoder.recognizes(data) }
  }

  /// The text of a document that starts with a UTF-16 byte-order mark (`FF FE` or
  /// `FE FF`), as far as whole characters go (a prefix may end inside one); else `nil`.
  static func utf16Text(_ data: Data) -> String? {
    guard let first = data.first, let second = data.dropFirst().first,
      (first == 0xFF && second == 0xFE) || (first == 0xFE && second == 0xFF)
    else { return nil }
    var units = data.prefix(data.count & ~1)
    // A prefix cut inside a surrogate pair ends in half a character: drop it.
    for _ in 0..<2 {
      if let text = String(data: units, encoding: .utf16) { return text }
      units = units.dropLast(2)
    }
    return nil
  }

  /// How much of a file `detect(_:)` looks at: the markers every format is recognised by sit
  /// in the first records.
  public static let detectionPrefixBytes = 1 << 20

  /// Recognises the format of a document from its first `detectionPrefixBytes` bytes.
  ///
  /// - Returns: The first format whose decoder claims the prefix, or `nil`.
  /// - Throws: `FeedReadError` when the file cannot be read.
  public static func detect(_ input: FeedInput) throws(FeedReadError) -> FeedFormat? {
    detect(try input.prefix(detectionPrefixBytes))
  }
}
