import Foundation

/// Checks that an XML document which is (or claims to be) UTF-8 really is, before it reaches
/// Foundation's `XMLParser`: on Linux that parser traps on an element or attribute name
/// holding invalid UTF-8 (found by the fuzzer), so such input must be refused first.
enum XMLEncodingCheck {
  /// Why a document must not reach the parser: where, and what is wrong.
  struct Problem: Error, Equatable {
    /// Byte offset, when the problem is at one place.
    var offset: Int?
    /// What is wrong.
    var reason: String
  }

  /// Checks the document's encoding: UTF-8 (declared or by default) must be valid UTF-8,
  /// US-ASCII must be 7-bit; ISO-8859-1 and UTF-16 (with a byte-order mark) are converted by
  /// libxml2 itself and always yield valid UTF-8. Any other declared encoding is refused:
  /// libxml2 falls back to passing raw bytes for names it does not know.
  ///
  /// - Returns: The problem, or `nil` when the document may be parsed.
  /// - Complexity: O(n) in the size of the document.
  static func problem(in data: Data) -> Problem? {
    if let offset = emptyProcessingInstructionOffset(data) {
      return Problem(offset: offset, reason: "a processing instruction without data")
    }
    let head = data.prefix(256)
    if head.starts(with: [0xFE, 0xFF]) || head.starts(with: [0xFF, 0xFE]) { return nil }
    switch declaredEncoding(head) {
    case nil, "utf-8", "utf8":
      return firstInvalidUTF8Offset(data).map {
        Problem(offset: $0, reason: "the document is not valid UTF-8")
      }
    case "iso-8859-1", "latin1", "iso_8859-1", "l1":
      return nil
    case "us-ascii", "ascii":
      return data.firstIndex { $0 >= 0x80 }.map {
        Problem(offset: $0 - data.startIndex, reason: "the document declares US-ASCII but is not")
      }
    case "utf-16", "utf16":
      return Problem(offset: 0, reason: "a UTF-16 document needs a byte-order mark")
    case let other?:
      return Problem(
        offset: nil, reason: "unsupported encoding \"\(other)\" (use UTF-8, ISO-8859-1 or UTF-16)")
    }
  }

  /// The offset of a processing instruction with a target but no data (`<?x?>`), which
  /// Foundation's XMLParser on Linux dereferences as a null string (found by the fuzzer).
  ///
  /// - Complexity: O(n) in the size of the document.
  static func emptyProcessingInstructionOffset(_ data: Data) -> Int? {
    data.withUnsafeBytes { raw -> Int? in
      let bytes = raw.bindMemory(to: UInt8.self)
      var index = 0
      while index + 1 < bytes.count {
        defer { index += 1 }
        guard bytes[index] == UInt8(ascii: "<"), bytes[index + 1] == UInt8(ascii: "?") else {
          continue
        }
        var cursor = index + 2
        while cursor < bytes.count, !isSpace(bytes[cursor]), bytes[cursor] != UInt8(ascii: "?") {
          cursor += 1
        }
        while cursor < bytes.count, isSpace(bytes[cursor]) { cursor += 1 }
        if cursor + 1 < bytes.count, bytes[cursor] == UInt8(ascii: "?"),
          bytes[cursor + 1] == UInt8(ascii: ">")
        {
          return index
        }
      }
      return nil
    }
  }

  private static func isSpace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
  }

  /// The byte offset of the first invalid UTF-8 sequence, or `nil` when there is none.
  ///
  /// - Complexity: O(n) in the size of the document.
  static func firstInvalidUTF8Offset(_ data: Data) -> Int? {
    data.withUnsafeBytes { raw -> Int? in
      let bytes = raw.bindMemory(to: UInt8.self)
      var index = 0
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
        default: return index
        }
        guard index + length <= count else { return index }
        for offset in 1..<length {
          let next = bytes[index + offset]
          guard next & 0xC0 == 0x80 else { return index }
          scalar = scalar << 6 | UInt32(next & 0x3F)
        }
        guard scalar >= minimum, scalar <= 0x10FFFF, !(0xD800...0xDFFF).contains(scalar) else {
          return index
        }
        index += length
      }
      return nil
    }
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
