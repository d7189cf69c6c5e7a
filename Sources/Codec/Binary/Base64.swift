/// A base64 text that cannot be decoded: the byte position in the text and the reason.
package struct Base64Error: Error, Hashable, Sendable, CustomStringConvertible {
  /// The position (in UTF-8 bytes) of the offending character, or the text's length when
  /// it ends too early.
  package var position: Int
  /// What is wrong, for example `invalid base64 character '!'`.
  package var reason: String

  package var description: String { "byte \(position): \(reason)" }
}

/// RFC 4648 base64: encodes with the standard alphabet and padding; decodes the standard and
/// the URL-safe alphabets, padding optional, white space ignored.
package enum Base64 {
  private static let alphabet = Array(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

  /// The base64 text of `bytes` (standard alphabet, padded).
  ///
  /// - Complexity: O(n).
  package static func encode(_ bytes: [UInt8]) -> String {
    var output: [UInt8] = []
    output.reserveCapacity((bytes.count + 2) / 3 * 4)
    var index = 0
    while index < bytes.count {
      let count = min(3, bytes.count - index)
      var chunk = 0
      for offset in 0..<3 {
        chunk = chunk << 8 | (offset < count ? Int(bytes[index + offset]) : 0)
      }
      for offset in 0..<4 {
        output.append(
          offset <= count ? alphabet[chunk >> (18 - 6 * offset) & 0x3F] : UInt8(ascii: "="))
      }
      index += 3
    }
    return String(decoding: output, as: UTF8.self)
  }

  /// The bytes of a base64 text.
  ///
  /// - Throws: `Base64Error` naming the position of a character outside both alphabets,
  ///   data after padding, more than two padding characters, or a text ending inside a byte.
  /// - Complexity: O(n).
  package static func decode(_ text: String) throws(Base64Error) -> [UInt8] {
    var output: [UInt8] = []
    var buffer = 0
    var bits = 0
    var padding = 0
    for (position, character) in text.utf8.enumerated() {
      switch character {
      case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"):
        continue
      case UInt8(ascii: "="):
        padding += 1
        guard padding <= 2 else {
          throw Base64Error(position: position, reason: "invalid base64: too much padding")
        }
        continue
      default:
        guard padding == 0 else {
          throw Base64Error(position: position, reason: "invalid base64: data after padding")
        }
        guard let value = value(of: character) else {
          throw Base64Error(
            position: position, reason: "invalid base64 character \(describeByte(character))")
        }
        buffer = (buffer << 6 | value) & 0xFF_FFFF
        bits += 6
        if bits >= 8 {
          bits -= 8
          output.append(UInt8(truncatingIfNeeded: buffer >> bits))
        }
      }
    }
    guard bits < 6 else {
      throw Base64Error(
        position: text.utf8.count, reason: "invalid base64: the text ends inside a byte")
    }
    return output
  }

  private static func value(of character: UInt8) -> Int? {
    switch character {
    case UInt8(ascii: "A")...UInt8(ascii: "Z"): return Int(character - UInt8(ascii: "A"))
    case UInt8(ascii: "a")...UInt8(ascii: "z"): return Int(character - UInt8(ascii: "a")) + 26
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return Int(character - UInt8(ascii: "0")) + 52
    case UInt8(ascii: "+"), UInt8(ascii: "-"): return 62
    case UInt8(ascii: "/"), UInt8(ascii: "_"): return 63
    default: return nil
    }
  }
}
