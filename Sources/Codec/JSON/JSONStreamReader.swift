import Foundation

/// Why a streamed JSON document could not be read: a syntax error at a place, a value over
/// the size limit, or a failure of the input itself.
package enum JSONStreamError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The text is not JSON there (place relative to the whole document).
  case syntax(JSONSyntaxError)
  /// Reading the input failed (an I/O error), with its description.
  case input(String)

  /// The place (for syntax errors), else `nil`.
  package var place: String? {
    if case .syntax(let error) = self { return error.place }
    return nil
  }

  /// What went wrong, without the place.
  package var reason: String {
    switch self {
    case .syntax(let error): return error.reason
    case .input(let reason): return reason
    }
  }

  /// `"line L, column C (byte B): reason"` or the input failure.
  package var description: String {
    switch self {
    case .syntax(let error): return error.description
    case .input(let reason): return reason
    }
  }
}

/// Reads a JSON document from a stream of chunks without holding all of it: the members of
/// the root object named by the caller that are arrays are handed over one element at a
/// time, as `JSONValue`s, and the other members are collected.
///
/// Feeds put their records in one big array (`features`, `alerts`, `results`, `events`), so
/// memory stays bounded by the largest single record and the other members, not the
/// document. Each value is first delimited by a scan that tracks strings and bracket nesting,
/// then parsed by `JSONParser` — so the accepted language, the limits (`maximumDepth`, UTF-8
/// strings, finite numbers) and the error messages are the parser's, with places (line,
/// column, byte) relative to the whole document.
package struct JSONStreamReader {
  /// The default limit of one value's size (a record, or a member that is not streamed).
  package static let defaultMaximumValueBytes = 64 << 20

  /// Chunk size used when reading from `Data`.
  private static let chunkBytes = 1 << 20

  private let nextChunk: () throws(JSONStreamError) -> Data?
  private let maximumValueBytes: Int
  private var buffer: [UInt8] = []
  /// Index of the next byte in `buffer`.
  private var position = 0
  /// Absolute offset of `buffer[0]` in the document.
  private var base = 0
  /// Line feeds in the bytes dropped before `base`.
  private var droppedLines = 0
  /// Absolute offset of the last dropped line feed, -1 when none.
  private var lastDroppedLineFeed = -1
  /// Absolute offset from which bytes must be kept (the value being delimited).
  private var keepFrom: Int?
  /// Line feeds counted before absolute offset `offset` (`lineFeeds(before:)`), the last
  /// one's offset.
  private var lineCursor = (offset: 0, count: 0, last: -1)
  private var exhausted = false
  /// Whether the value being delimited outgrew `maximumValueBytes`.
  private var exceededLimit = false

  /// A reader pulling chunks from `chunks` until it returns `nil`.
  ///
  /// - Parameters:
  ///   - maximumValueBytes: The largest value (record or non-streamed member) accepted.
  ///   - chunks: The next piece of the document, `nil` at its end.
  package init(
    maximumValueBytes: Int = defaultMaximumValueBytes,
    chunks: @escaping () throws(JSONStreamError) -> Data?
  ) {
    self.maximumValueBytes = maximumValueBytes
    self.nextChunk = chunks
  }

  /// A reader over a document already in memory (read in slices, so it is not copied whole).
  package init(data: Data, maximumValueBytes: Int = defaultMaximumValueBytes) {
    var offset = data.startIndex
    self.init(maximumValueBytes: maximumValueBytes) { () throws(JSONStreamError) -> Data? in
      guard offset < data.endIndex else { return nil }
      let end = min(offset + Self.chunkBytes, data.endIndex)
      defer { offset = end }
      return data[offset..<end]
    }
  }

  /// Reads the whole document.
  ///
  /// - Parameters:
  ///   - members: Names of root members to stream when they are arrays.
  ///   - element: Called for each element of a streamed member, in document order, with the
  ///     member name and the element's 0-based index.
  ///     A root array is streamed as member `""` when `members` contains `""`.
  /// - Returns: The root object with each streamed member as an empty array (so that its
  ///   presence shows), an empty array for a streamed root array; another root is returned
  ///   whole and nothing is streamed.
  /// - Throws: `JSONStreamError` for a syntax error (with its place), a value larger than the
  ///   limit, or an input failure. Elements handed over before the error stay handed over.
  /// - Complexity: O(n) in the size of the document; memory O(largest value + chunk).
  package mutating func read(
    streaming members: Set<String>,
    element: (_ member: String, _ index: Int, _ value: JSONValue) -> Void
  ) throws(JSONStreamError) -> JSONValue {
    try read(delimiting: members) { member, index, raw throws(JSONStreamError) in
      element(member, index, try raw.parse())
    }
  }

  /// `read(streaming:element:)`, handing each streamed element over delimited but not
  /// parsed (`JSONRawElement.parse()` parses it, on any thread, with the errors the
  /// whole-text parse gives): so that elements can be parsed on other cores while the
  /// reader delimits the next ones. An element that is not valid JSON is found only when it
  /// is parsed; brackets that do not pair up are found here.
  package mutating func read(
    delimiting members: Set<String>,
    element: (_ member: String, _ index: Int, _ element: JSONRawElement)
      throws(JSONStreamError) -> Void
  ) throws(JSONStreamError) -> JSONValue {
    try skipPreamble()
    if members.contains(""), try peek() == UInt8(ascii: "[") {
      position += 1
      try streamElements(of: "", element)
      try expectEnd()
      return .array([])
    }
    guard try peek() == UInt8(ascii: "{") else {
      let value = try readValue()
      try expectEnd()
      return value
    }
    position += 1
    var rest: [String: JSONValue] = [:]
    try skipWhitespace()
    if try peek() == UInt8(ascii: "}") {
      position += 1
      try expectEnd()
      return .object(rest)
    }
    while true {
      try skipWhitespace()
      guard try peek() == UInt8(ascii: "\"") else {
        throw failure("expected a member name in quotes, found \(try describeHere())")
      }
      guard case .string(let name) = try readValue() else {
        throw failure("expected a member name in quotes")
      }
      try skipWhitespace()
      guard try peek() == UInt8(ascii: ":") else {
        throw failure("expected ':' after member \"\(name)\", found \(try describeHere())")
      }
      position += 1
      try skipWhitespace()
      if members.contains(name), try peek() == UInt8(ascii: "[") {
        position += 1
        try streamElements(of: name, element)
        rest[name] = .array([])
      } else {
        rest[name] = try readValue()
      }
      try skipWhitespace()
      switch try peek() {
      case UInt8(ascii: ","): position += 1
      case UInt8(ascii: "}"):
        position += 1
        try expectEnd()
        return .object(rest)
      default: throw failure("expected ',' or '}', found \(try describeHere())")
      }
    }
  }

  private mutating func streamElements(
    of name: String, _ element: (String, Int, JSONRawElement) throws(JSONStreamError) -> Void
  ) throws(JSONStreamError) {
    try skipWhitespace()
    if try peek() == UInt8(ascii: "]") {
      position += 1
      return
    }
    var index = 0
    while true {
      try skipWhitespace()
      let (bytes, start) = try delimitValue()
      let before = lineFeeds(before: start)
      try element(
        name, index,
        JSONRawElement(
          bytes: bytes, offset: start, lineFeedsBefore: before.count,
          lastLineFeedBefore: before.last))
      index += 1
      try skipWhitespace()
      switch try peek() {
      case UInt8(ascii: ","): position += 1
      case UInt8(ascii: "]"):
        position += 1
        return
      default: throw failure("expected ',' or ']', found \(try describeHere())")
      }
    }
  }

  // MARK: Delimiting and parsing one value

  /// Delimits the value starting here and parses it.
  private mutating func readValue() throws(JSONStreamError) -> JSONValue {
    let (bytes, start) = try delimitValue()
    do {
      return try JSONParser.parse(bytes: bytes, isFragment: true)
    } catch {
      throw failure(error.reason, atAbsolute: start + error.offset)
    }
  }

  /// The bytes of the value starting here, and its absolute offset.
  private mutating func delimitValue() throws(JSONStreamError) -> (bytes: [UInt8], start: Int) {
    let start = base + position
    keepFrom = start
    defer { keepFrom = nil }
    guard let first = try peek() else {
      throw failure("expected a value, found the end of the text (truncated document?)")
    }
    do throws(JSONStreamError) {
      switch first {
      case UInt8(ascii: "{"), UInt8(ascii: "["): try skipContainer()
      case UInt8(ascii: "\""):
        position += 1
        try skipStringBody(openedAt: start)
      default:
        while let byte = try peek(), !Self.endsScalar(byte) { position += 1 }
        guard base + position > start else {
          throw failure("expected a value, found \(try describeHere())")
        }
      }
    } catch {
      throw earliestFailure(delimiting: error, valueStart: start)
    }
    guard base + position - start <= maximumValueBytes else {
      throw failure(
        "a value is larger than \(maximumValueBytes) bytes, the limit of one record",
        atAbsolute: start)
    }
    return (Array(buffer[(start - base)..<position]), start)
  }

  /// The line feeds before absolute offset `offset` (at or after the last one asked for),
  /// and the offset of the last of them (-1 when none): counted once, as offsets grow.
  private mutating func lineFeeds(before offset: Int) -> (count: Int, last: Int) {
    if lineCursor.offset < base {
      lineCursor = (base, droppedLines, lastDroppedLineFeed)
    }
    var index = lineCursor.offset - base
    let end = min(offset - base, buffer.count)
    while index < end {
      if buffer[index] == 0x0A {
        lineCursor.count += 1
        lineCursor.last = base + index
      }
      index += 1
    }
    lineCursor.offset = max(lineCursor.offset, base + end)
    return (lineCursor.count, lineCursor.last)
  }

  /// The error to report when delimiting a value failed (unpaired bracket, end of input,
  /// nesting): the parser's first error in the bytes read so far, which may lie before the
  /// place delimiting stopped (`{"id"[ ... }` is wrong at the `[`, not at the `}`), so that
  /// the place is the one a whole-text parse names. Limit and input errors are reported as
  /// they are.
  private func earliestFailure(
    delimiting error: JSONStreamError, valueStart start: Int
  ) -> JSONStreamError {
    // The bytes up to and including the one where delimiting stopped are the whole text's
    // bytes, so the parser's first error in them is the whole-text parse's first error.
    guard case .syntax = error, !exceededLimit, start >= base else { return error }
    let end = min(position + 1, buffer.count)
    guard start - base < end else { return error }
    do {
      _ = try JSONParser.parse(bytes: Array(buffer[(start - base)..<end]), isFragment: true)
    } catch {
      return failure(error.reason, atAbsolute: start + error.offset)
    }
    return error
  }

  private static func endsScalar(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}"), 0x20, 0x09, 0x0A, 0x0D:
      return true
    default: return false
    }
  }

  /// Skips an object or array, checking that brackets pair up (the parser checks the rest).
  private mutating func skipContainer() throws(JSONStreamError) {
    var open: [UInt8] = []
    while true {
      guard let byte = try peek() else {
        throw failure(
          "expected '\(Self.closing(open.last))', found the end of the text (truncated document?)")
      }
      switch byte {
      case UInt8(ascii: "\""):
        let start = base + position
        position += 1
        try skipStringBody(openedAt: start)
        continue
      case UInt8(ascii: "{"), UInt8(ascii: "["):
        guard open.count < JSONParser.maximumDepth else {
          throw failure("nesting deeper than \(JSONParser.maximumDepth) levels")
        }
        open.append(byte)
      case UInt8(ascii: "}"), UInt8(ascii: "]"):
        let expected = Self.closing(open.last)
        guard byte == UInt8(ascii: expected) else {
          throw failure("expected ',' or '\(expected)', found \(try describeHere())")
        }
        open.removeLast()
        if open.isEmpty {
          position += 1
          return
        }
      default: break
      }
      position += 1
    }
  }

  private static func closing(_ opening: UInt8?) -> Unicode.Scalar {
    opening == UInt8(ascii: "[") ? "]" : "}"
  }

  /// Skips to just after the closing quote of a string whose opening quote is behind.
  private mutating func skipStringBody(openedAt start: Int) throws(JSONStreamError) {
    while true {
      guard let byte = try peek() else {
        throw failure("unterminated string (truncated document?)", atAbsolute: start)
      }
      position += 1
      if byte == UInt8(ascii: "\"") { return }
      if byte == UInt8(ascii: "\\") {
        guard try peek() != nil else {
          throw failure("unterminated string (truncated document?)", atAbsolute: start)
        }
        position += 1
      }
    }
  }

  // MARK: Bytes

  /// The byte at `position`, reading more input when needed; `nil` at the end.
  private mutating func peek() throws(JSONStreamError) -> UInt8? {
    while position >= buffer.count {
      guard try refill() else { return nil }
    }
    return buffer[position]
  }

  /// Drops bytes no longer needed and appends the next chunk; `false` at the end of input.
  private mutating func refill() throws(JSONStreamError) -> Bool {
    if exhausted { return false }
    let keep = min(keepFrom ?? (base + position), base + position) - base
    if keep > 0, keep >= buffer.count / 2 {
      if lineCursor.offset <= base + keep {
        // The cursor's count carries on: each byte is scanned for line feeds once.
        (droppedLines, lastDroppedLineFeed) = lineFeeds(before: base + keep)
      } else {
        for index in 0..<keep where buffer[index] == 0x0A {
          droppedLines += 1
          lastDroppedLineFeed = base + index
        }
      }
      buffer.removeSubrange(0..<keep)
      base += keep
      position -= keep
    }
    if let keepFrom, base + buffer.count - keepFrom > maximumValueBytes {
      exceededLimit = true
      throw failure(
        "a value is larger than \(maximumValueBytes) bytes, the limit of one record",
        atAbsolute: keepFrom)
    }
    guard let chunk = try nextChunk() else {
      exhausted = true
      return false
    }
    buffer.append(contentsOf: chunk)
    return true
  }

  private mutating func skipWhitespace() throws(JSONStreamError) {
    while let byte = try peek() {
      switch byte {
      case 0x20, 0x09, 0x0A, 0x0D: position += 1
      default: return
      }
    }
  }

  /// Refuses UTF-16/32 text and skips a UTF-8 byte-order mark and leading white space.
  private mutating func skipPreamble() throws(JSONStreamError) {
    while buffer.count - position < 3, try refill() {}
    let head = buffer[position...].prefix(3)
    if head.count >= 2 {
      let (b0, b1) = (head[head.startIndex], head[head.startIndex + 1])
      if (b0 == 0xFF && b1 == 0xFE) || (b0 == 0xFE && b1 == 0xFF) || b0 == 0 || b1 == 0 {
        throw failure("the text is UTF-16 or UTF-32 encoded; JSON feeds must be UTF-8")
      }
    }
    if head.elementsEqual([0xEF, 0xBB, 0xBF]) { position += 3 }
    try skipWhitespace()
  }

  private mutating func expectEnd() throws(JSONStreamError) {
    try skipWhitespace()
    if try peek() != nil {
      throw failure("unexpected \(try describeHere()) after the value")
    }
  }

  private mutating func describeHere() throws(JSONStreamError) -> String {
    guard let byte = try peek() else { return "the end of the text (truncated document?)" }
    if byte >= 0x21, byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
    return "byte 0x" + String(byte, radix: 16, uppercase: true)
  }

  /// A syntax error at an absolute offset (default: the current byte), with line and column.
  private func failure(_ reason: String, atAbsolute offset: Int? = nil) -> JSONStreamError {
    let offset = max(base, min(offset ?? (base + position), base + buffer.count))
    var line = droppedLines + 1
    var lastLineFeed = lastDroppedLineFeed
    for index in 0..<(offset - base) where buffer[index] == 0x0A {
      line += 1
      lastLineFeed = base + index
    }
    return .syntax(
      JSONSyntaxError(line: line, column: offset - lastLineFeed, offset: offset, reason: reason))
  }
}

/// One element of a streamed array, delimited (its brackets pair up) but not yet parsed.
package struct JSONRawElement: Sendable {
  /// The element's text.
  package let bytes: [UInt8]
  /// The absolute offset of its first byte in the document.
  package let offset: Int
  /// Line feeds in the document before it, and the offset of the last (-1 when none).
  let lineFeedsBefore: Int
  let lastLineFeedBefore: Int

  /// The element parsed.
  ///
  /// - Throws: `JSONStreamError.syntax` with the line, column and byte in the whole
  ///   document, as `JSONStreamReader.read(streaming:element:)` reports them.
  /// - Complexity: O(n) in the element's size.
  package func parse() throws(JSONStreamError) -> JSONValue {
    do {
      return try JSONParser.parse(bytes: bytes, isFragment: true)
    } catch {
      let inside = min(error.offset, bytes.count)
      var line = lineFeedsBefore + 1
      var lastLineFeed = lastLineFeedBefore
      for index in 0..<inside where bytes[index] == 0x0A {
        line += 1
        lastLineFeed = offset + index
      }
      let at = offset + inside
      throw .syntax(
        JSONSyntaxError(line: line, column: at - lastLineFeed, offset: at, reason: error.reason))
    }
  }
}
