import Foundation

/// Checks that an XML document which is (or claims to be) UTF-8 really is, before it reaches
/// Foundation's `XMLParser`: on Linux that parser traps on an element or attribute name
/// holding invalid UTF-8, and on a processing instruction without data (both found by the
/// fuzzer), so such input must be refused first.
///
/// The check runs on the document as it streams (`Scanner`), holding back only the few bytes
/// of a construct that continues in the next chunk.
enum XMLEncodingCheck {
  /// Why a document must not reach the parser: where, and what is wrong.
  struct Problem: Error, Equatable {
    /// Byte offset, when the problem is at one place.
    var offset: Int?
    /// What is wrong.
    var reason: String
  }

  /// The longest processing-instruction target looked at; longer ones are refused.
  static let maximumTargetBytes = 4_096

  /// Checks a whole document (see `Scanner`).
  ///
  /// - Returns: The problem, or `nil` when the document may be parsed.
  /// - Complexity: O(n) in the size of the document.
  static func problem(in data: Data) -> Problem? {
    var scanner = Scanner()
    do {
      _ = try scanner.feed(data, atEnd: true)
      return nil
    } catch {
      return error
    }
  }

  /// The offset of the first byte that does not start a valid UTF-8 sequence (overlong
  /// forms, surrogates and values over U+10FFFF are invalid), or `nil`.
  ///
  /// - Complexity: O(n) in the size of `data`.
  static func firstInvalidUTF8Offset(_ data: Data) -> Int? {
    let bytes = [UInt8](data)
    switch scanUTF8(bytes, from: 0, atEnd: true) {
    case .invalid(let offset): return offset
    case .valid: return nil
    }
  }

  /// Checks a document chunk by chunk, handing on the bytes that are safe to parse.
  ///
  /// UTF-8 (declared or by default) must be valid UTF-8, US-ASCII must be 7-bit; ISO-8859-1
  /// and UTF-16 (with a byte-order mark) are converted by libxml2 itself and always yield
  /// valid UTF-8. Any other declared encoding is refused: libxml2 falls back to passing raw
  /// bytes for names it does not know. Processing instructions with a target but no data
  /// (`<?x?>`) are refused in every encoding.
  struct Scanner {
    private enum Rule {
      case utf8, ascii, none
    }

    private var rule: Rule?
    /// Bytes received and not yet handed on.
    private var pending: [UInt8] = []
    /// Absolute offset of `pending[0]`.
    private var base = 0
    /// Where in `pending` each scan continues.
    private var encodingResume = 0
    private var instructionResume = 0

    /// Adds the next chunk.
    ///
    /// - Parameters:
    ///   - chunk: The next bytes of the document.
    ///   - atEnd: Whether no bytes follow (constructs still open are then judged as they are).
    /// - Returns: The bytes that may be parsed now (possibly none).
    /// - Throws: `Problem` with the absolute offset of the first problem.
    /// - Complexity: O(n) in the size of the chunk (plus held-back bytes).
    mutating func feed(_ chunk: Data, atEnd: Bool) throws(Problem) -> [UInt8] {
      pending.append(contentsOf: chunk)
      if rule == nil {
        guard pending.count >= 256 || atEnd else { return [] }
        rule = try Self.rule(forHead: pending.prefix(256))
      }
      let instructionHold = try scanInstructions(atEnd: atEnd)
      var encodingHold = pending.count
      switch rule {
      case .utf8?:
        switch XMLEncodingCheck.scanUTF8(pending, from: encodingResume, atEnd: atEnd) {
        case .invalid(let index):
          throw Problem(offset: base + index, reason: "the document is not valid UTF-8")
        case .valid(let complete): encodingHold = complete
        }
      case .ascii?:
        if let index = pending[encodingResume...].firstIndex(where: { $0 >= 0x80 }) {
          throw Problem(offset: base + index, reason: "the document declares US-ASCII but is not")
        }
      case .none?, nil: break
      }
      let release = min(encodingHold, instructionHold)
      let ready = Array(pending[..<release])
      pending.removeFirst(release)
      base += release
      encodingResume = encodingHold - release
      instructionResume = instructionHold - release
      return ready
    }

    private static func rule(forHead head: ArraySlice<UInt8>) throws(Problem) -> Rule {
      if head.starts(with: [0xFE, 0xFF]) || head.starts(with: [0xFF, 0xFE]) { return .none }
      switch XMLEncodingCheck.declaredEncoding(Data(head)) {
      case nil, "utf-8", "utf8": return .utf8
      case "iso-8859-1", "latin1", "iso_8859-1", "l1": return .none
      case "us-ascii", "ascii": return .ascii
      case "utf-16", "utf16":
        throw Problem(offset: 0, reason: "a UTF-16 document needs a byte-order mark")
      case let other?:
        throw Problem(
          offset: nil,
          reason: "unsupported encoding \"\(other)\" (use UTF-8, ISO-8859-1 or UTF-16)")
      }
    }

    /// Finds empty processing instructions from `instructionResume`; returns the index of an
    /// instruction that continues past the received bytes (or `pending.count`).
    private func scanInstructions(atEnd: Bool) throws(Problem) -> Int {
      let bytes = pending
      var index = instructionResume
      while index < bytes.count {
        guard bytes[index] == UInt8(ascii: "<") else {
          index += 1
          continue
        }
        guard index + 1 < bytes.count else { return atEnd ? bytes.count : index }
        guard bytes[index + 1] == UInt8(ascii: "?") else {
          index += 1
          continue
        }
        var cursor = index + 2
        while cursor < bytes.count, !isSpace(bytes[cursor]), bytes[cursor] != UInt8(ascii: "?") {
          cursor += 1
        }
        if cursor - index > XMLEncodingCheck.maximumTargetBytes {
          throw Problem(
            offset: base + index,
            reason: "a processing instruction target is longer than "
              + "\(XMLEncodingCheck.maximumTargetBytes) bytes")
        }
        while cursor < bytes.count, isSpace(bytes[cursor]) { cursor += 1 }
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

    private func isSpace(_ byte: UInt8) -> Bool {
      byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
  }

  fileprivate enum UTF8Scan {
    /// Valid up to the index where an incomplete sequence starts (the count when none).
    case valid(completeUpTo: Int)
    case invalid(Int)
  }

  /// Validates UTF-8 from `start`; an incomplete sequence at the end is invalid only at the
  /// end of the document.
  fileprivate static func scanUTF8(_ bytes: [UInt8], from start: Int, atEnd: Bool) -> UTF8Scan {
    var index = start
    let count = bytes.count
    while index < count {
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
  static func declaredEncoding(_ head: Data) -> String? {
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
