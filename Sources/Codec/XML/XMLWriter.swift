import Foundation

/// Writes XML text into a byte buffer: elements opened and closed in order, attributes and
/// text escaped, indented two spaces per level so that published documents read well.
///
/// The writer keeps the stack of open elements, so `close()` needs no name and a document
/// is well formed by construction once `finish()` returns. Text and attribute values are
/// escaped (`&`, `<`, `>`, `"`), and characters XML 1.0 does not allow (controls other than
/// tab, newline and carriage return, unpaired surrogates cannot occur in a `String`,
/// U+FFFE and U+FFFF) are dropped, so any `String` can be written.
package struct XMLWriter {
  /// The UTF-8 text written so far.
  package private(set) var bytes: [UInt8] = []
  private var open: [String] = []
  /// Whether the innermost open element has child elements (its end tag then goes on a
  /// line of its own).
  private var hasChildren: [Bool] = []

  /// Starts a document with the XML declaration.
  package init(capacity: Int = 0) {
    bytes.reserveCapacity(capacity)
    append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>")
  }

  /// Opens `name` with `attributes` (in the given order; a `nil` value is left out).
  package mutating func open(_ name: String, _ attributes: [(String, String?)] = []) {
    startLine()
    bytes.append(UInt8(ascii: "<"))
    append(name)
    appendAttributes(attributes)
    bytes.append(UInt8(ascii: ">"))
    if !hasChildren.isEmpty { hasChildren[hasChildren.count - 1] = true }
    open.append(name)
    hasChildren.append(false)
  }

  /// Closes the innermost open element.
  package mutating func close() {
    guard let name = open.popLast(), let children = hasChildren.popLast() else {
      preconditionFailure("XMLWriter.close() without an open element")
    }
    if children {
      newline(depth: open.count)
    }
    append("</")
    append(name)
    bytes.append(UInt8(ascii: ">"))
  }

  /// Writes `<name attributes>text</name>`.
  package mutating func element(
    _ name: String, _ text: String, attributes: [(String, String?)] = []
  ) {
    startLine()
    bytes.append(UInt8(ascii: "<"))
    append(name)
    appendAttributes(attributes)
    bytes.append(UInt8(ascii: ">"))
    appendEscaped(text, quotes: false)
    append("</")
    append(name)
    bytes.append(UInt8(ascii: ">"))
    if !hasChildren.isEmpty { hasChildren[hasChildren.count - 1] = true }
  }

  /// Writes the element when `text` is not `nil`.
  package mutating func element(_ name: String, _ text: String?) {
    if let text { element(name, text) }
  }

  /// Writes an empty element, `<name attributes/>`.
  package mutating func empty(_ name: String, _ attributes: [(String, String?)] = []) {
    startLine()
    bytes.append(UInt8(ascii: "<"))
    append(name)
    appendAttributes(attributes)
    append("/>")
    if !hasChildren.isEmpty { hasChildren[hasChildren.count - 1] = true }
  }

  /// Closes what is still open and returns the document.
  package mutating func finish() -> Data {
    Data(finishWritten())
  }

  /// Closes what is still open and takes the rest of the document.
  package mutating func finishWritten() -> [UInt8] {
    while !open.isEmpty { close() }
    bytes.append(UInt8(ascii: "\n"))
    return takeWritten()
  }

  /// Takes the text written so far, leaving the open elements open: the next piece of a
  /// document written piece by piece.
  package mutating func takeWritten() -> [UInt8] {
    let taken = bytes
    bytes = []
    bytes.reserveCapacity(taken.count)
    return taken
  }

  // MARK: Text

  private mutating func startLine() {
    newline(depth: open.count)
  }

  private mutating func newline(depth: Int) {
    bytes.append(UInt8(ascii: "\n"))
    bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * depth))
  }

  private mutating func appendAttributes(_ attributes: [(String, String?)]) {
    for (name, value) in attributes {
      guard let value else { continue }
      bytes.append(UInt8(ascii: " "))
      append(name)
      append("=\"")
      appendEscaped(value, quotes: true)
      bytes.append(UInt8(ascii: "\""))
    }
  }

  private mutating func append(_ text: String) {
    bytes.append(contentsOf: text.utf8)
  }

  /// Appends `text` escaped for content (`quotes: false`) or a double-quoted attribute:
  /// runs of plain bytes are copied whole, the few special ones replaced.
  private mutating func appendEscaped(_ text: String, quotes: Bool) {
    var text = text
    text.withUTF8 { utf8 in
      var start = 0
      var index = 0
      while index < utf8.count {
        let byte = utf8[index]
        var replacement: StaticString?
        var width = 1
        switch byte {
        case 0x26: replacement = "&amp;"
        case 0x3C: replacement = "&lt;"
        case 0x3E: replacement = "&gt;"
        case 0x22 where quotes: replacement = "&quot;"
        case 0x0A where quotes: replacement = "&#10;"
        case 0x09 where quotes: replacement = "&#9;"
        case 0x0D: replacement = "&#13;"
        case 0x09, 0x0A: break
        case 0x00..<0x20: replacement = ""  // not an XML character: dropped
        case 0xEF:
          // U+FFFE and U+FFFF (EF BF BE, EF BF BF) are not XML characters either.
          if index + 2 < utf8.count, utf8[index + 1] == 0xBF, utf8[index + 2] >= 0xBE {
            replacement = ""
            width = 3
          }
        default: break
        }
        if let replacement {
          bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
          replacement.withUTF8Buffer { bytes.append(contentsOf: $0) }
          index += width
          start = index
        } else {
          index += 1
        }
      }
      bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<utf8.count]))
    }
  }

}
