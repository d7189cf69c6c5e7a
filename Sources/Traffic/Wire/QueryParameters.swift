import Foundation

/// The parameters of a request: the query string's name/value pairs, percent-decoded, in
/// order, with repeated names kept so that duplicates can be refused.
///
/// The v7 query codecs (``V7IncidentQuery``, ``V7FlowQuery``) read their parameters from
/// it; the server builds it from a query string and a `POST` body.
package struct QueryParameters: Sendable {
  /// The pairs in order.
  package private(set) var pairs: [(name: String, value: String)]

  /// Parameters of these pairs, in order.
  package init(_ pairs: [(name: String, value: String)] = []) {
    self.pairs = pairs
  }

  /// Parses a raw query string (`in=circle:52.5,13.4;r=500&lang=de-DE`).
  ///
  /// `%XX` escapes are decoded; `+` stays a plus sign (RFC 3986 gives it no meaning in a
  /// query, and RFC 3339 offsets such as `+02:00` are often sent unescaped). A pair without
  /// `=` has an empty value; empty pairs (`&&`) are skipped.
  /// - Throws: `TrafficQueryError.badRequest` for a broken escape or text that is not UTF-8,
  ///   naming the parameter.
  /// - Complexity: O(n) in the length of the query.
  package static func parse(_ raw: Substring) throws(TrafficQueryError) -> QueryParameters {
    var pairs: [(name: String, value: String)] = []
    // Split on the bytes: `&` and `=` are ASCII, and byte offsets are valid indices of
    // `raw` at those positions.
    for piece in raw.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
      let rawName: Substring
      let rawValue: Substring
      if let equals = piece.firstIndex(of: UInt8(ascii: "=")) {
        rawName = Substring(piece[..<equals])
        rawValue = Substring(piece[piece.index(after: equals)...])
      } else {
        rawName = Substring(piece)
        rawValue = ""
      }
      guard let name = percentDecoded(rawName) else {
        throw .badRequest("a query parameter name is not valid percent-encoded UTF-8")
      }
      guard let value = percentDecoded(rawValue) else {
        throw .badRequest("the value of \(name) is not valid percent-encoded UTF-8")
      }
      pairs.append((name: name, value: value))
    }
    return QueryParameters(pairs)
  }

  /// Decodes `%XX` escapes; `nil` for a broken escape or bytes that are not UTF-8.
  package static func percentDecoded(_ text: Substring) -> String? {
    guard text.utf8.contains(UInt8(ascii: "%")) else { return String(text) }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(text.utf8.count)
    var iterator = text.utf8.makeIterator()
    while let byte = iterator.next() {
      guard byte == UInt8(ascii: "%") else {
        bytes.append(byte)
        continue
      }
      guard let high = iterator.next().flatMap(hexValue),
        let low = iterator.next().flatMap(hexValue)
      else { return nil }
      bytes.append(high << 4 | low)
    }
    return String(validating: bytes, as: UTF8.self)
  }

  private static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
    default: return nil
    }
  }

  /// Appends a pair.
  package mutating func append(_ name: String, _ value: String) {
    pairs.append((name: name, value: value))
  }

  /// Whether a parameter is present.
  package func contains(_ name: String) -> Bool {
    pairs.contains { $0.name == name }
  }

  /// The value of a parameter that may appear at most once.
  ///
  /// - Parameters:
  ///   - name: The parameter name (exact case, as v7 names are).
  ///   - error: The error case for this parameter, given a detail.
  /// - Returns: The value, or `nil` when the parameter is absent.
  /// - Throws: `error` when the parameter is given more than once.
  package func single(
    _ name: String, error: (String) -> TrafficQueryError
  ) throws(TrafficQueryError) -> String? {
    var found: String?
    var count = 0
    for pair in pairs where pair.name == name {
      count += 1
      if found == nil { found = pair.value }
    }
    guard count <= 1 else {
      throw error("parameter \(name) is given \(count) times; give it once")
    }
    return found
  }

  /// A Boolean parameter that may appear at most once, read by the one rule of the API
  /// (docs/api.md, "Boolean parameters"): `true` or `1` is true, and so is the name
  /// without a value (`?flush`, `?flush=`); `false` or `0` is false; absent is `false`.
  ///
  /// - Parameter name: The parameter name.
  /// - Returns: The value.
  /// - Throws: `TrafficQueryError.invalidParameter` for any other value or a duplicate,
  ///   naming the parameter and the values accepted.
  package func boolean(_ name: String) throws(TrafficQueryError) -> Bool {
    guard let text = try single(name, error: TrafficQueryError.invalidParameter) else {
      return false
    }
    switch text {
    case "true", "1", "": return true
    case "false", "0": return false
    default:
      throw .invalidParameter(
        "\(name) \"\(Self.excerpt(text))\" must be true or false (or 1 or 0; the name"
          + " alone is true)")
    }
  }

  /// The items of a comma-separated list parameter that may appear at most once (empty
  /// items are refused).
  ///
  /// - Returns: The items, or `nil` when the parameter is absent.
  /// - Throws: `error` for a duplicate parameter or an empty item.
  package func list(
    _ name: String, error: (String) -> TrafficQueryError
  ) throws(TrafficQueryError) -> [String]? {
    guard let value = try single(name, error: error) else { return nil }
    let items = value.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    guard !items.contains(where: \.isEmpty) else {
      throw error(
        "\(name) \"\(Self.excerpt(value))\" has an empty item; give a comma-separated list"
      )
    }
    return items
  }

  /// The `lang` parameter, which v7 queries, publications and feed pushes take.
  ///
  /// - Returns: The language, or `nil` when the parameter is absent.
  /// - Throws: `TrafficQueryError.invalidParameter` for a repeated parameter or a tag that
  ///   is not a language.
  package func language() throws(TrafficQueryError) -> LanguageCode? {
    guard let tag = try single("lang", error: TrafficQueryError.invalidParameter) else {
      return nil
    }
    do {
      return try LanguageCode(tag)
    } catch {
      throw .invalidParameter("lang: \(error)")
    }
  }

  /// At most 40 characters of untrusted text, for error details.
  package static func excerpt(_ text: String) -> String {
    text.count <= 40 ? text : text.prefix(40) + "..."
  }

  /// A finite decimal number (`-12.5`, `1e3`); not `nan`, `inf` or hexadecimal, which
  /// `Double(_:)` would accept.
  package static func decimal(_ text: Substring) -> Double? {
    guard !text.isEmpty, text.utf8.count <= 64,
      text.utf8.allSatisfy({
        ($0 >= 48 && $0 <= 57) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-")
          || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E")
      }), let value = Double(text), value.isFinite
    else { return nil }
    return value
  }
}
