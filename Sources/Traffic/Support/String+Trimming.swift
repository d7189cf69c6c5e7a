import Foundation

extension StringProtocol where UTF8View: BidirectionalCollection {
  /// `trimmingCharacters(in: .whitespacesAndNewlines)`, without Foundation's work for the
  /// ASCII members of the set (see `trimmed(newlines:)`).
  package var trimmingWhitespaceAndNewlines: String { trimmed(newlines: true) }

  /// `trimmingCharacters(in: .whitespaces)`, the same way.
  package var trimmingWhitespace: String { trimmed(newlines: false) }

  /// The ASCII members of Foundation's set (space and tab; with `newlines` also LF, VT, FF
  /// and CR) cut byte-wise from both ends; only when an end left is not ASCII — Foundation's
  /// sets also hold Unicode spaces and newlines — does Foundation trim the rest. Feed texts
  /// and CSV fields mostly end in printable ASCII, where no call to Foundation is made.
  private func trimmed(newlines: Bool) -> String {
    func isTrimmed(_ byte: UInt8) -> Bool {
      byte == 0x20 || byte == 0x09 || (newlines && byte >= 0x0A && byte <= 0x0D)
    }
    let bytes = utf8
    var first = bytes.startIndex
    var last = bytes.endIndex
    while first != last, isTrimmed(bytes[first]) { bytes.formIndex(after: &first) }
    while first != last {
      let before = bytes.index(before: last)
      guard isTrimmed(bytes[before]) else { break }
      last = before
    }
    let core = self[first..<last]
    if first != last, bytes[first] >= 0x80 || bytes[bytes.index(before: last)] >= 0x80 {
      return core.trimmingCharacters(in: newlines ? .whitespacesAndNewlines : .whitespaces)
    }
    return String(core)
  }
}
