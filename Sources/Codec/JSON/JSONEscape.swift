/// JSON string escapes (`\" \\ \/ \b \f \n \r \t \uXXXX`), decoded for every reader of JSON
/// text in the project (`JSONParser`, the stores' fast body reader).
package enum JSONEscape {
  /// Why an escape could not be decoded.
  package enum Failure: Error, Equatable {
    /// The text ends inside the escape.
    case truncated
    /// A backslash followed by this byte, which starts no escape.
    case invalid(UInt8)
    /// `\u` not followed by four hexadecimal digits.
    case badHex
    /// A high surrogate followed by a `\u` escape that is not a low surrogate.
    case unpairedSurrogate
    /// A surrogate on its own: a low one, or a high one not followed by a `\u` escape.
    /// `scalarEnd` is where the escape ends.
    case loneSurrogate(scalarEnd: Int)
  }

  /// Decodes the escape whose letter (after the backslash) is at `index` in `bytes`,
  /// appends its UTF-8 bytes to `output` and moves `index` past it. A `\u` high surrogate
  /// followed by a `\u` low surrogate is one scalar.
  package static func decode<Bytes: RandomAccessCollection<UInt8>>(
    _ bytes: Bytes, at index: inout Int, into output: inout [UInt8]
  ) throws(Failure) where Bytes.Index == Int {
    guard index < bytes.endIndex else { throw .truncated }
    let letter = bytes[index]
    index += 1
    switch letter {
    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): output.append(letter)
    case UInt8(ascii: "b"): output.append(0x08)
    case UInt8(ascii: "f"): output.append(0x0C)
    case UInt8(ascii: "n"): output.append(0x0A)
    case UInt8(ascii: "r"): output.append(0x0D)
    case UInt8(ascii: "t"): output.append(0x09)
    case UInt8(ascii: "u"):
      var value = try hex4(bytes, at: &index)
      if (0xD800..<0xDC00).contains(value) {
        guard index + 1 < bytes.endIndex, bytes[index] == UInt8(ascii: "\\"),
          bytes[index + 1] == UInt8(ascii: "u")
        else { throw .loneSurrogate(scalarEnd: index) }
        index += 2
        let low = try hex4(bytes, at: &index)
        guard (0xDC00..<0xE000).contains(low) else { throw .unpairedSurrogate }
        value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
      }
      guard let scalar = Unicode.Scalar(value), let encoded = UTF8.encode(scalar) else {
        throw .loneSurrogate(scalarEnd: index)
      }
      output.append(contentsOf: encoded)
    default:
      throw .invalid(letter)
    }
  }

  /// Four hexadecimal digits at `index`, as a number.
  private static func hex4<Bytes: RandomAccessCollection<UInt8>>(
    _ bytes: Bytes, at index: inout Int
  ) throws(Failure) -> UInt32 where Bytes.Index == Int {
    var value: UInt32 = 0
    for _ in 0..<4 {
      // `index` stops at the first byte that is not a digit (or the end), for the error.
      guard index < bytes.endIndex else { throw .badHex }
      let byte = bytes[index]
      let digit: UInt8
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
      default: throw .badHex
      }
      value = value << 4 | UInt32(digit)
      index += 1
    }
    return value
  }
}
