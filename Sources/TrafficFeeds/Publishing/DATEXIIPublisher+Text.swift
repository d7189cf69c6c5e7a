import Foundation

/// Texts within the lengths the DATEX II v3 schema allows.
extension DATEXIIPublisher {
  /// The most characters a DATEX II text holds: `com:String` and a multilingual string's
  /// `com:value` are restricted to 1024 (XML Schema counts characters as Unicode scalars).
  static let maximumTextLength = 1024

  /// `text` cut to at most `limit` Unicode scalars at a grapheme boundary (a user-perceived
  /// character is never split; a single one longer than the limit is cut between scalars).
  ///
  /// - Complexity: O(n) in the length of `text`.
  static func limited(_ text: String, to limit: Int = maximumTextLength) -> String {
    guard text.unicodeScalars.count > limit else { return text }
    return String(firstPiece(Substring(text), limit: limit).piece)
  }

  /// `limited(_:)` for an optional text.
  static func limited(_ text: String?) -> String? { text.map { limited($0) } }

  /// `text` as pieces of at most `limit` Unicode scalars each: cut at a line break where
  /// there is one within the limit (the line break is dropped, so that the values of one
  /// language joined by line breaks, as `DATEXIIDecoder` reads them, give `text` back),
  /// else at a space (dropped too: it reads back as a line break), else at the last
  /// grapheme boundary within it.
  ///
  /// - Complexity: O(n) in the length of `text`.
  static func pieces(_ text: String, limit: Int = maximumTextLength) -> [String] {
    var pieces: [String] = []
    var rest = Substring(text)
    while rest.unicodeScalars.count > limit {
      let (piece, next) = firstPiece(rest, limit: limit)
      pieces.append(String(piece))
      rest = next
    }
    pieces.append(String(rest))
    return pieces
  }

  /// The first piece of `text` within `limit` scalars and what follows it (after the line
  /// break the piece was cut at, if it was).
  private static func firstPiece(
    _ text: Substring, limit: Int
  ) -> (piece: Substring, rest: Substring) {
    var count = 0
    var end = text.startIndex
    var lineBreak: Substring.Index?
    var space: Substring.Index?
    var index = text.startIndex
    while index < text.endIndex {
      let character = text[index]
      let size = character.unicodeScalars.count
      guard count + size <= limit else { break }
      if character == "\n" { lineBreak = index }
      if character == " ", index > text.startIndex { space = index }
      count += size
      index = text.index(after: index)
      end = index
    }
    if let cut = lineBreak ?? space {
      return (text[..<cut], text[text.index(after: cut)...])
    }
    if end == text.startIndex {
      // One grapheme longer than the limit: cut between its scalars.
      let scalars = text.unicodeScalars
      let cut = scalars.index(scalars.startIndex, offsetBy: limit)
      return (Substring(scalars[..<cut]), Substring(scalars[cut...]))
    }
    return (text[..<end], text[end...])
  }
}
