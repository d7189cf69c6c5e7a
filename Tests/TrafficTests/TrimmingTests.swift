import Foundation
import Testing

@testable import Traffic

/// The byte-wise trimming must give exactly what Foundation's trimming gives.
@Suite struct TrimmingTests {
  static let samples = [
    "", " ", "a", " a", "a ", "\ta\n", "Straße 1", " Straße ", "\u{00A0}x\u{00A0}", "x\u{2003}",
    "\u{3000}全角\u{3000}", "line\u{0085}", "\u{0085}line", "\r\n", "~", "!x!", "é", " é ",
    "2026-12-01T10:00:00Z", " 2026-12-01T10:00:00Z\n", "\u{FEFF}bom", "a\u{200B}",
    " \t 52.5 \t ", "\u{0B}a\u{0C}", "\r\n x \r\n", " \u{00A0} x \u{2003} ", "\t\u{0085}\t",
    " \u{301}x ", "   ", "\t", " a b ",
  ]

  @Test func sameAsFoundation() {
    for sample in Self.samples {
      #expect(
        sample.trimmingWhitespaceAndNewlines
          == sample.trimmingCharacters(in: .whitespacesAndNewlines), "\(sample.debugDescription)")
      #expect(
        sample.trimmingWhitespace == sample.trimmingCharacters(in: .whitespaces),
        "\(sample.debugDescription)")
      let sub = sample.dropFirst(0)
      #expect(sub.trimmingWhitespace == sub.trimmingCharacters(in: .whitespaces))
    }
  }
}
