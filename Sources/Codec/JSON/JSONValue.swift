import Foundation

/// A parsed JSON value (RFC 8259), shared by the v7 wire codec and the feed decoders.
///
/// Numbers keep their source text, so that identifiers written as large integers (Waze jam
/// uuids) survive exactly and conversion to `Double` is correctly rounded (Swift's
/// `Double(String)`), unlike swift-corelibs Foundation's JSON reader, which can be one ulp off.
package enum JSONValue: Hashable, Sendable {
  /// `null`.
  case null
  /// `true` or `false`.
  case bool(Bool)
  /// A number, as written in the text (already validated as JSON number syntax).
  case number(String)
  /// A string.
  case string(String)
  /// An array.
  case array([JSONValue])
  /// An object; with duplicate member names the last one wins.
  case object([String: JSONValue])

  /// The member `key` of an object; `nil` for other values or a missing member.
  package subscript(key: String) -> JSONValue? {
    if case .object(let members) = self { return members[key] }
    return nil
  }

  /// The string, or `nil` when the value is not a string.
  package var string: String? {
    if case .string(let text) = self { return text }
    return nil
  }

  /// A string, or a number's text (feeds write identifiers either way); `nil` otherwise and
  /// for empty strings.
  package var identifier: String? {
    switch self {
    case .string(let text): return text.isEmpty ? nil : text
    case .number(let text): return text
    default: return nil
    }
  }

  /// The number as a finite `Double`; `nil` when not a number (or out of range).
  package var double: Double? {
    if case .number(let text) = self, let value = Double(text), value.isFinite { return value }
    return nil
  }

  /// The number as an `Int` when it is integral and in range; `nil` otherwise.
  package var int: Int? {
    guard let value = double, value.rounded() == value, abs(value) < 9.0e15 else { return nil }
    return Int(value)
  }

  /// The Boolean, or `nil` when the value is not `true` or `false`.
  package var bool: Bool? {
    if case .bool(let flag) = self { return flag }
    return nil
  }

  /// The elements, or `nil` when the value is not an array.
  package var array: [JSONValue]? {
    if case .array(let elements) = self { return elements }
    return nil
  }

  /// The members, or `nil` when the value is not an object.
  package var object: [String: JSONValue]? {
    if case .object(let members) = self { return members }
    return nil
  }

  /// Whether the value is `null`.
  package var isNull: Bool {
    if case .null = self { return true }
    return false
  }

  /// The JSON type's name, for error messages (`"a string"`, `"an object"`).
  package var kindName: String {
    switch self {
    case .null: return "null"
    case .bool: return "a boolean"
    case .number: return "a number"
    case .string: return "a string"
    case .array: return "an array"
    case .object: return "an object"
    }
  }
}
