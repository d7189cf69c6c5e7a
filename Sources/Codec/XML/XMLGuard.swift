import Foundation

/// The checks every XML document passes before anything parses it (`GuardedXMLReader`).
///
/// A document type declaration (`<!DOCTYPE`) is refused, whatever it holds: a DTD can
/// declare external entities (files, URLs) and entity bombs, and no format read here needs
/// one. The encoding is checked too: on Linux Foundation's `XMLParser` traps on an element
/// or attribute name holding invalid UTF-8, and on a processing instruction without data
/// (both found by the fuzzer), so such input must be refused first.
///
/// The checks run on the document as it streams (`Scanner`), holding back only the few
/// bytes of a construct that continues in the next chunk.
package enum XMLGuard {
  /// Why a document must not reach the parser: where, and what is wrong.
  package struct Problem: Error, Equatable, Sendable {
    /// Byte offset, when the problem is at one place.
    package var offset: Int?
    /// What is wrong.
    package var reason: String

    /// Creates a problem.
    package init(offset: Int?, reason: String) {
      self.offset = offset
      self.reason = reason
    }
  }

  /// The one message for a document with a DTD, whichever format and path read it.
  package static let dtdRefusal =
    "the document has a DTD (<!DOCTYPE ...>): DTDs and the entities they declare, "
    + "external ones included, are refused"

  /// The longest processing-instruction target looked at; longer ones are refused.
  package static let maximumTargetBytes = 4_096

  /// Checks a whole document (see `Scanner`).
  ///
  /// - Returns: The problem, or `nil` when the document may be parsed.
  /// - Complexity: O(n) in the size of the document.
  package static func problem(in data: Data) -> Problem? {
    data.withUnsafeBytes { bytes -> Problem? in
      do throws(Problem) {
        try check(bytes)
        return nil
      } catch {
        return error
      }
    }
  }

  /// Checks a whole document in place, without copying it.
  ///
  /// - Throws: `Problem` with the offset of the first problem found.
  /// - Complexity: O(n) in the size of the document.
  package static func check(_ bytes: UnsafeRawBufferPointer) throws(Problem) {
    var scanner = Scanner()
    _ = try scanner.scan(bytes, atEnd: true)
  }

  /// The offset of the first byte that does not start a valid UTF-8 sequence (overlong
  /// forms, surrogates and values over U+10FFFF are invalid), or `nil`.
  ///
  /// - Complexity: O(n) in the size of `data`.
  package static func firstInvalidUTF8Offset(_ data: Data) -> Int? {
    data.withUnsafeBytes { bytes in
      switch scanUTF8(bytes, from: 0, atEnd: true) {
      case .invalid(let offset): return offset
      case .valid: return nil
      }
    }
  }

  /// Checks a document chunk by chunk, handing on the bytes that are safe to parse.
  ///
  /// UTF-8 (declared or by default) must be valid UTF-8, US-ASCII must be 7-bit; ISO-8859-1
  /// and UTF-16 (with a byte-order mark) are converted by libxml2 itself and always yield
  /// valid UTF-8. Any other encoding is refused: libxml2 falls back to passing raw bytes for
  /// names it does not know, and guesses UTF-16 or UCS-4 without a byte-order mark.
  /// Processing instructions with a target but no data (`<?x?>`) are refused in every
  /// encoding, and so is a `<!DOCTYPE` before the root element (see `dtdRefusal`).
  package struct Scanner {
    private enum Rule {
      case utf8, ascii, none
    }

    private var rule: Rule?
    /// The prolog's reader: how its characters are stored, and what it is inside.
    private var prolog = XMLGuard.PrologScanner()
    /// Bytes received and not yet handed on.
    private var pending: [UInt8] = []
    /// Absolute offset of `pending[0]`.
    private var base = 0
    /// Where in `pending` each scan continues.
    private var encodingResume = 0
    private var instructionResume = 0
    private var prologResume = 0

    package init() {}

    /// Adds the next chunk.
    ///
    /// - Parameters:
    ///   - chunk: The next bytes of the document.
    ///   - atEnd: Whether no bytes follow (constructs still open are then judged as they are).
    /// - Returns: The bytes that may be parsed now (possibly none).
    /// - Throws: `Problem` with the absolute offset of the first problem.
    /// - Complexity: O(n) in the size of the chunk (plus held-back bytes).
    package mutating func feed(_ chunk: Data, atEnd: Bool) throws(Problem) -> [UInt8] {
      pending.append(contentsOf: chunk)
      let release: Int
      do {
        // A copy to scan while `scan` updates the scanner; it ends here, before `pending`
        // changes, so that no bytes are copied.
        let bytes = pending
        let scanned: Result<Int, Problem> = bytes.withUnsafeBytes { buffer in
          Result { () throws(Problem) in try scan(buffer, atEnd: atEnd) }
        }
        release = try scanned.get()
      }
      let ready = Array(pending[..<release])
      pending.removeFirst(release)
      base += release
      encodingResume -= release
      instructionResume -= release
      prologResume -= release
      return ready
    }

    /// Scans `bytes` (the pending bytes, or a whole document) from where each check left
    /// off; returns how many of them may be handed on.
    fileprivate mutating func scan(
      _ bytes: UnsafeRawBufferPointer, atEnd: Bool
    ) throws(Problem) -> Int {
      if rule == nil {
        guard atEnd || Self.headIsComplete(bytes) else { return 0 }
        (rule, prolog.encoding) = try Self.rule(forHead: bytes)
        if prolog.encoding != .bytes { prologResume = 2 }
      }
      let prologHold = try prolog.scan(
        bytes, from: prologResume, base: base, atEnd: atEnd)
      let instructionHold = try scanInstructions(bytes, atEnd: atEnd)
      var encodingHold = bytes.count
      switch rule {
      case .utf8?:
        switch XMLGuard.scanUTF8(bytes, from: encodingResume, atEnd: atEnd) {
        case .invalid(let index):
          throw Problem(offset: base + index, reason: "the document is not valid UTF-8")
        case .valid(let complete): encodingHold = complete
        }
      case .ascii?:
        if let index = bytes[encodingResume...].firstIndex(where: { $0 >= 0x80 }) {
          throw Problem(offset: base + index, reason: "the document declares US-ASCII but is not")
        }
      case .none?, nil: break
      }
      encodingResume = encodingHold
      instructionResume = instructionHold
      prologResume = prologHold
      return min(encodingHold, instructionHold, prologHold)
    }

    /// Whether the first bytes say enough to choose the rule: 256 of them, a declaration
    /// up to its `>`, or a start that is no declaration.
    private static func headIsComplete(_ bytes: UnsafeRawBufferPointer) -> Bool {
      if bytes.count >= 256 { return true }
      let declaration = Array("<?xml".utf8)
      guard bytes.count >= declaration.count else { return false }
      guard bytes.starts(with: declaration) else { return true }
      return bytes.contains(UInt8(ascii: ">"))
    }

    private static func rule(
      forHead bytes: UnsafeRawBufferPointer
    ) throws(Problem) -> (Rule, XMLGuard.PrologScanner.Encoding) {
      let head = bytes.prefix(256)
      // UCS-4, or UTF-16 without a byte-order mark: libxml2 would guess it from the zeros.
      let unmarked = Problem(
        offset: 0,
        reason: "the document is not UTF-8, ISO-8859-1 or UTF-16 with a byte-order mark")
      if head.starts(with: [0xFF, 0xFE, 0x00, 0x00]) { throw unmarked }
      if head.starts(with: [0xFE, 0xFF]) { return (.none, .utf16BigEndian) }
      if head.starts(with: [0xFF, 0xFE]) { return (.none, .utf16LittleEndian) }
      if head.prefix(4).contains(0) { throw unmarked }
      switch XMLGuard.declaredEncoding(Data(head)) {
      case nil, "utf-8", "utf8": return (.utf8, .bytes)
      case "iso-8859-1", "latin1", "iso_8859-1", "l1": return (.none, .bytes)
      case "us-ascii", "ascii": return (.ascii, .bytes)
      case "utf-16", "utf16":
        throw Problem(offset: 0, reason: "a UTF-16 document needs a byte-order mark")
      case let other?:
        throw Problem(
          offset: nil,
          reason: "unsupported encoding \"\(other)\" (use UTF-8, ISO-8859-1 or UTF-16)")
      }
    }

    /// Finds empty processing instructions from `instructionResume`; returns the index of an
    /// instruction that continues past the received bytes (or the count).
    private func scanInstructions(
      _ bytes: UnsafeRawBufferPointer, atEnd: Bool
    ) throws(Problem) -> Int {
      var index = instructionResume
      while index < bytes.count, let start = bytes.baseAddress {
        guard let found = memchr(start + index, Int32(UInt8(ascii: "<")), bytes.count - index)
        else { return bytes.count }
        index = start.distance(to: UnsafeRawPointer(found))
        guard index + 1 < bytes.count else { return atEnd ? bytes.count : index }
        guard bytes[index + 1] == UInt8(ascii: "?") else {
          index += 1
          continue
        }
        var cursor = index + 2
        while cursor < bytes.count, !XMLGuard.isSpace(bytes[cursor]),
          bytes[cursor] != UInt8(ascii: "?")
        {
          cursor += 1
        }
        if cursor - index > XMLGuard.maximumTargetBytes {
          throw Problem(
            offset: base + index,
            reason: "a processing instruction target is longer than "
              + "\(XMLGuard.maximumTargetBytes) bytes")
        }
        while cursor < bytes.count, XMLGuard.isSpace(bytes[cursor]) { cursor += 1 }
        if cursor + 1 >= bytes.count, !atEnd { return index }
        if cursor + 1 < bytes.count, bytes[cursor] == UInt8(ascii: "?"),
          bytes[cursor + 1] == UInt8(ascii: ">")
        {
          throw Problem(offset: base + index, reason: "a processing instruction without data")
        }
        index += 1
      }
      return bytes.count
    }
  }

  fileprivate static func isSpace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
  }

  fileprivate enum UTF8Scan {
    /// Valid up to the index where an incomplete sequence starts (the count when none).
    case valid(completeUpTo: Int)
    case invalid(Int)
  }

  /// Validates UTF-8 from `start`; an incomplete sequence at the end is invalid only at the
  /// end of the document.
  fileprivate static func scanUTF8(
    _ bytes: UnsafeRawBufferPointer, from start: Int, atEnd: Bool
  ) -> UTF8Scan {
    var index = start
    let count = bytes.count
    while index < count {
      // Eight ASCII bytes at a time.
      while index + 8 <= count,
        bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0
      {
        index += 8
      }
      guard index < count else { break }
      let lead = bytes[index]
      if lead < 0x80 {
        index += 1
        continue
      }
      let length: Int
      let minimum: UInt32
      var scalar: UInt32
      switch lead {
      case 0xC2...0xDF: (length, minimum, scalar) = (2, 0x80, UInt32(lead & 0x1F))
      case 0xE0...0xEF: (length, minimum, scalar) = (3, 0x800, UInt32(lead & 0x0F))
      case 0xF0...0xF4: (length, minimum, scalar) = (4, 0x10000, UInt32(lead & 0x07))
      default: return .invalid(index)
      }
      guard index + length <= count else {
        // Judge what is there; a valid prefix waits for the next chunk.
        for offset in 1..<(count - index) where bytes[index + offset] & 0xC0 != 0x80 {
          return .invalid(index)
        }
        return atEnd ? .invalid(index) : .valid(completeUpTo: index)
      }
      for offset in 1..<length {
        let next = bytes[index + offset]
        guard next & 0xC0 == 0x80 else { return .invalid(index) }
        scalar = scalar << 6 | UInt32(next & 0x3F)
      }
      guard scalar >= minimum, scalar <= 0x10FFFF, !(0xD800...0xDFFF).contains(scalar) else {
        return .invalid(index)
      }
      index += length
    }
    return .valid(completeUpTo: count)
  }

  /// The encoding named by the XML declaration, lowercased; `nil` when the document has no
  /// well-formed `encoding="NAME"` in its declaration (it is then UTF-8).
  package static func declaredEncoding(_ head: Data) -> String? {
    guard head.starts(with: Array("<?xml".utf8)) else { return nil }
    let declaration = String(decoding: head.prefix { $0 != UInt8(ascii: ">") }, as: UTF8.self)
      .lowercased()
    guard let range = declaration.range(of: " encoding") else { return nil }
    var rest = declaration[range.upperBound...].drop { $0 == " " }
    guard rest.first == "=" else { return nil }
    rest = rest.dropFirst().drop { $0 == " " }
    guard let quote = rest.first, quote == "\"" || quote == "'" else { return nil }
    rest = rest.dropFirst()
    guard let close = rest.firstIndex(of: quote) else { return nil }
    return String(rest[..<close])
  }
}
