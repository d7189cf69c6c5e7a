import Foundation

/// Why a traffic model value (an incident, its details, a language tag) was rejected.
///
/// Every case names the offending field or input, so that a message shown to a user or
/// written to a feed log says what to fix.
public enum TrafficModelError: Error, Hashable, Sendable, CustomStringConvertible {
  /// A string that is not a well-formed BCP 47 language tag (RFC 5646); `reason` says why.
  case malformedLanguageTag(String, reason: String)
  /// A field that must not be empty (an identifier) was empty.
  case emptyField(String)
  /// An incident whose end time lies before its start time.
  case endBeforeStart(start: Date, end: Date)
  /// A numeric field outside its valid range (negative, not finite, or inconsistent).
  case invalidValue(field: String, value: Double, reason: String)
  /// A country code that is not two ASCII letters (ISO 3166-1 alpha-2).
  case invalidCountryCode(String)

  /// A sentence naming the field or input and what is wrong with it.
  public var description: String {
    switch self {
    case .malformedLanguageTag(let tag, let reason):
      return "malformed language tag \"\(tag)\": \(reason)"
    case .emptyField(let field):
      return "\(field) must not be empty"
    case .endBeforeStart(let start, let end):
      return "end time \(end) lies before start time \(start)"
    case .invalidValue(let field, let value, let reason):
      return "\(field) \(value) is invalid: \(reason)"
    case .invalidCountryCode(let code):
      return "country code \"\(code)\" is not an ISO 3166-1 alpha-2 code (two letters)"
    }
  }
}
