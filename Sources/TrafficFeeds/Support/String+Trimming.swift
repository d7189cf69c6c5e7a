import Foundation

extension StringProtocol where UTF8View: BidirectionalCollection {
  /// `trimmingCharacters(in: .whitespacesAndNewlines)`, without Foundation's work when
  /// both ends are printable ASCII other than space (most feed texts): nothing to trim then.
  var trimmingWhitespaceAndNewlines: String {
    hasPrintableASCIIEnds ? String(self) : trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// `trimmingCharacters(in: .whitespaces)`, with the same shortcut.
  var trimmingWhitespace: String {
    hasPrintableASCIIEnds ? String(self) : trimmingCharacters(in: .whitespaces)
  }

  /// Whether the first and the last byte are printable ASCII other than space (no
  /// character in Foundation's whitespace or newline sets is).
  private var hasPrintableASCIIEnds: Bool {
    guard let first = utf8.first, let last = utf8.last else { return false }
    return (0x21...0x7E).contains(first) && (0x21...0x7E).contains(last)
  }
}
