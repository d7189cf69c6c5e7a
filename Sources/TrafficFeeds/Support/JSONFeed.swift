import Codec
import Foundation
import Roads
import Traffic

/// Helpers the JSON feed decoders share: parsing with errors that name the place, and
/// reading optional members leniently (a member of the wrong type is treated as absent
/// rather than losing the record; the members a record cannot do without are checked with
/// `JSONValue.required`).
enum JSONFeed {
  /// Streams a document: the elements of the root members named in `members` (arrays) go to
  /// `element` one at a time; the other members are returned. A root array is streamed as
  /// member `""` when `members` contains `""`.
  ///
  /// - Throws: `FeedError` with the line, column and byte of a syntax error, or the reason
  ///   the input cannot be read.
  /// - Complexity: O(n) in the size of the document; memory O(largest element).
  static func read(
    _ input: FeedInput, format: FeedFormat, streaming members: Set<String>,
    element: (_ member: String, _ index: Int, _ value: JSONValue) -> Void
  ) throws(FeedError) -> JSONValue {
    var reader = try streamReader(input, format: format)
    do throws(JSONStreamError) {
      return try reader.read(streaming: members, element: element)
    } catch {
      throw feedError(error, format: format)
    }
  }

  /// `read(_:format:streaming:element:)` with each streamed element parsed and turned into
  /// an `Output` by `transform` on the other cores, a chunk at a time, while the reader
  /// delimits the next ones (the parse was the serial half of decoding a large document);
  /// the outputs go to `take` in the document's order. A document with a syntax error
  /// fails with the error the serial read reports (the earliest), and `take` sees none of
  /// the outputs after it.
  static func readInParallel<Output: Sendable>(
    _ input: FeedInput, format: FeedFormat, streaming members: Set<String>,
    transform: @escaping @Sendable (_ member: String, _ index: Int, _ value: JSONValue) -> Output,
    take: (Output) -> Void
  ) throws(FeedError) -> JSONValue {
    var reader = try streamReader(input, format: format)
    var elements = OrderedChunkMap<(String, Int, JSONRawElement), Result<Output, JSONStreamError>>(
      chunkSize: 256
    ) { member, index, raw in
      Result { () throws(JSONStreamError) in transform(member, index, try raw.parse()) }
    }
    // An element that is not JSON comes before any error the reader finds later.
    var elementError: JSONStreamError?
    func sink(_ output: Result<Output, JSONStreamError>) {
      guard elementError == nil else { return }
      switch output {
      case .success(let value): take(value)
      case .failure(let error): elementError = error
      }
    }
    let root = Result { () throws(JSONStreamError) in
      try reader.read(delimiting: members) { member, index, raw in
        elements.append((member, index, raw), into: sink)
      }
    }
    elements.finish(into: sink)
    if let elementError { throw feedError(elementError, format: format) }
    do throws(JSONStreamError) { return try root.get() } catch {
      throw feedError(error, format: format)
    }
  }

  /// A stream reader over the input's chunks.
  private static func streamReader(
    _ input: FeedInput, format: FeedFormat
  ) throws(FeedError) -> JSONStreamReader {
    let chunks: FeedChunks
    do { chunks = try FeedChunks(input) } catch {
      throw FeedError(format: format, reason: error.description)
    }
    return JSONStreamReader { () throws(JSONStreamError) -> Data? in
      do throws(FeedReadError) { return try chunks.next() } catch {
        throw .input(error.description)
      }
    }
  }

  /// A reader's error as the feed error naming its place.
  private static func feedError(_ error: JSONStreamError, format: FeedFormat) -> FeedError {
    switch error {
    case .syntax(let syntax):
      return FeedError(
        format: format, location: syntax.place, reason: "not valid JSON: \(syntax.reason)")
    case .input(let reason): return FeedError(format: format, reason: reason)
    }
  }

  /// The first non-whitespace byte (after a UTF-8 byte-order mark), for cheap sniffing.
  static func firstSignificantByte(_ data: Data) -> UInt8? {
    data.prefix(4096).first { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }
  }

  /// Whether `data` contains `needle` (as UTF-8).
  static func contains(_ data: Data, _ needle: String) -> Bool {
    data.range(of: Data(needle.utf8)) != nil
  }

  /// A `FeedError` from a field error.
  static func error(_ error: JSONFieldError, format: FeedFormat) -> FeedError {
    FeedError(format: format, location: error.path, reason: error.reason)
  }

  /// A trimmed, non-empty string member; `nil` when absent, empty or not a string.
  static func text(_ value: JSONValue?) -> String? {
    guard let text = value?.string?.trimmingWhitespaceAndNewlines,
      !text.isEmpty
    else { return nil }
    return text
  }

  /// A date member (RFC 3339 text); `nil` when absent; an error when present but unreadable.
  static func date(_ value: JSONValue?, at path: String) throws(JSONFieldError) -> Date? {
    guard let value, !value.isNull else { return nil }
    guard let text = value.string else {
      throw JSONFieldError(path: path, reason: "expected a date-time, found \(value.kindName)")
    }
    if text.isEmpty { return nil }
    guard let date = FeedDates.parseISO8601(text) else {
      throw JSONFieldError(path: path, reason: "\"\(text)\" is not an ISO 8601 date-time")
    }
    return date
  }

  /// A date member as ``date(_:at:)`` reads it, but a time without an offset (which RFC 3339
  /// does not allow, yet feeds write) is local time at `point`, not UTC.
  static func date(
    _ value: JSONValue?, at path: String, localAt point: GeoCoordinates?
  ) throws(JSONFieldError) -> Date? {
    guard let date = try date(value, at: path) else { return nil }
    guard let point, let text = value?.string, FeedDates.utcOffsetInSeconds(text) == nil
    else { return date }
    return PlaceTimeZone.instant(ofLocalTime: date, at: point)
  }

  /// Builds an incident, turning model errors into a field error at `path`.
  static func incident(
    at path: String, _ make: () throws(TrafficModelError) -> TrafficIncident
  ) throws(JSONFieldError) -> TrafficIncident {
    do {
      return try make()
    } catch {
      throw JSONFieldError(path: path, reason: error.description)
    }
  }

  /// A country code when it is two ASCII letters, else `fallback`.
  static func countryCode(_ code: String?, fallback: String?) -> String? {
    guard let code, code.count == 2, code.allSatisfy({ $0.isASCII && $0.isLetter }) else {
      return fallback
    }
    return code
  }
}
