import Foundation

/// Checks that an XML document which is (or claims to be) UTF-8 really is, before it reaches
/// Foundation's `XMLParser`: on Linux that parser traps on an element or attribute name
/// holding invalid UTF-8 (found by the fuzzer), so such input must be refused first.
enum XMLEncodingCheck {
  /// The byte offset of the first invalid UTF-8 sequence, or `nil` when the document is
  /// valid UTF-8 or declares another encoding (which libxml2 converts to UTF-8 itself).
  ///
  /// - Complexity: O(n) in the size of the document.
  static func firstInvalidUTF8Offset(_ data: Data) -> Int? {
    if declaresOtherEncoding(data) { return nil }
    return data.withUnsafeBytes { raw -> Int? in
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

  /// Whether the document starts with a byte-order mark of UTF-16/32 or an XML declaration
  /// naming an encoding other than UTF-8.
  private static func declaresOtherEncoding(_ data: Data) -> Bool {
    let head = data.prefix(256)
    if head.starts(with: [0xFE, 0xFF]) || head.starts(with: [0xFF, 0xFE]) { return true }
    guard head.starts(with: Array("<?xml".utf8)) else { return false }
    let declaration = String(decoding: head.prefix { $0 != UInt8(ascii: ">") }, as: UTF8.self)
      .lowercased()
    guard let range = declaration.range(of: "encoding") else { return false }
    let rest = declaration[range.upperBound...].drop { $0 == " " || $0 == "=" }
    let name = rest.dropFirst().prefix { $0 != "\"" && $0 != "'" }
    return !name.isEmpty && name != "utf-8" && name != "utf8"
  }
}
