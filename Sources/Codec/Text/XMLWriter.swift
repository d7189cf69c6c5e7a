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
    while !open.isEmpty { close() }
    bytes.append(UInt8(ascii: "\n"))
    return Data(bytes)
  }

  // MARK: Text

  private mutating func startLine() {
    newline(depth: open.count)
  }

  private mutating func newline(depth: Int) {
    bytes.append(UInt8(ascii: "\n"))
    for _ in 0..<depth { append("  ") }
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

  /// Appends `text` escaped for content (`quotes: false`) or a double-quoted attribute.
  private mutating func appendEscaped(_ text: String, quotes: Bool) {
    for scalar in text.unicodeScalars {
      switch scalar {
      case "&": append("&amp;")
      case "<": append("&lt;")
      case ">": append("&gt;")
      case "\"" where quotes: append("&quot;")
      case "\n" where quotes: append("&#10;")
      case "\r": append("&#13;")
      case "\t" where quotes: append("&#9;")
      default:
        guard Self.isAllowed(scalar) else { continue }
        bytes.append(contentsOf: String(scalar).utf8)
      }
    }
  }

  /// Whether XML 1.0 allows the character (its `Char` production).
  private static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x9, 0xA, 0xD: return true
    case 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: return true
    default: return false
    }
  }
}
