import Foundation

/// A minimal scanner of XML start tags and their attributes — enough for SUMO's flat
/// floating-car data and outputs, where everything lives in attributes. Comments,
/// processing instructions, declarations and end tags are skipped; the five predefined
/// entities in values are decoded. Documents reach it through `GuardedXMLReader`
/// (`scanTags`, `TagFeed`), which refuses a DTD first.
///
/// Over a whole document, markup cut off by the end is an error. Over bytes still being
/// written (`isPartial`), it is not: `next()` stops before it, and `index` is where the
/// caller resumes once more bytes have come.
package struct XMLTagScanner {
  /// A start or empty-element tag.
  package struct Tag: Equatable, Sendable {
    /// The element name.
    package var name: String
    /// The attributes, entities decoded.
    package var attributes: [String: String]
    /// The line the tag opens on (1-based).
    package var line: Int
  }

  /// Why scanning stopped.
  private enum Failure: Error {
    /// Markup that is not well formed.
    case malformed(line: Int, reason: String)
    /// Markup cut off by the end of the bytes.
    case cutOff(line: Int, reason: String)
  }

  let bytes: UnsafeRawBufferPointer
  /// Whether more bytes may follow (markup cut off at the end waits for them).
  let isPartial: Bool
  /// The offset of the next byte to scan.
  package private(set) var index = 0
  /// The line of `index` (1-based).
  package private(set) var line: Int

  /// A scanner over `bytes`, whose first byte is on line `line`.
  package init(bytes: UnsafeRawBufferPointer, line: Int = 1, isPartial: Bool = false) {
    self.bytes = bytes
    self.line = line
    self.isPartial = isPartial
  }

  /// The first tag of a text (a line of a SUMO file), or `nil` when it has none or it is
  /// broken.
  package static func firstTag(in text: some StringProtocol) -> Tag? {
    var text = String(text)
    return text.withUTF8 { utf8 in
      var scanner = XMLTagScanner(bytes: UnsafeRawBufferPointer(utf8))
      return try? scanner.next()
    }
  }

  /// The next start (or empty-element) tag, or `nil` at the end (of a partial input: before
  /// markup cut off by the end).
  ///
  /// - Throws: `XMLReadFailure.malformed` naming the line of markup that is not well
  ///   formed, or (of a whole document) cut off by its end.
  package mutating func next() throws(XMLReadFailure) -> Tag? {
    while index < bytes.count {
      guard bytes[index] == UInt8(ascii: "<") else {
        advance()
        continue
      }
      let (start, startLine) = (index, line)
      do throws(Failure) {
        if let tag = try markup() { return tag }
      } catch {
        switch error {
        case .cutOff where isPartial:
          index = start
          line = startLine
          return nil
        case .cutOff(let line, let reason), .malformed(let line, let reason):
          throw .malformed(line: line, column: nil, reason: reason)
        }
      }
    }
    return nil
  }

  /// Reads the markup at `index` (a `<`): a tag, or `nil` for markup that is skipped.
  private mutating func markup() throws(Failure) -> Tag? {
    let opened = line
    if isPartial, bytes.count - index < 4 {
      throw .cutOff(line: opened, reason: "markup cut off")
    }
    if starts(with: "<!--", at: index) {
      try skip(past: "-->", opened: opened)
      return nil
    }
    if starts(with: "<?", at: index) || starts(with: "<!", at: index)
      || starts(with: "</", at: index)
    {
      try skip(past: ">", opened: opened)
      return nil
    }
    advance()
    let nameStart = index
    while index < bytes.count, !isNameEnd(bytes[index]) { advance() }
    let name = string(nameStart..<index)
    guard !name.isEmpty else { throw .malformed(line: opened, reason: "a tag without a name") }
    var attributes: [String: String] = [:]
    while true {
      while index < bytes.count, isSpace(bytes[index]) { advance() }
      guard index < bytes.count else {
        throw .cutOff(line: opened, reason: "the document ends inside <\(name)>")
      }
      if bytes[index] == UInt8(ascii: ">") {
        advance()
        break
      }
      if starts(with: "/>", at: index) {
        advance()
        advance()
        break
      }
      let keyStart = index
      while index < bytes.count, bytes[index] != UInt8(ascii: "="), !isNameEnd(bytes[index]) {
        advance()
      }
      let key = string(keyStart..<index)
      while index < bytes.count, isSpace(bytes[index]) { advance() }
      guard index < bytes.count else {
        throw .cutOff(line: opened, reason: "the document ends inside <\(name)>")
      }
      guard bytes[index] == UInt8(ascii: "="), !key.isEmpty else {
        throw .malformed(line: line, reason: "attribute without a value in <\(name)>")
      }
      advance()
      while index < bytes.count, isSpace(bytes[index]) { advance() }
      guard index < bytes.count else {
        throw .cutOff(line: opened, reason: "the document ends inside <\(name)>")
      }
      guard bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") else {
        throw .malformed(line: line, reason: "unquoted attribute \(key) in <\(name)>")
      }
      let quote = bytes[index]
      advance()
      let valueStart = index
      while index < bytes.count, bytes[index] != quote { advance() }
      guard index < bytes.count else {
        throw .cutOff(line: opened, reason: "the document ends inside an attribute")
      }
      attributes[key] = XMLTagScanner.decodeEntities(string(valueStart..<index))
      advance()
    }
    return Tag(name: name, attributes: attributes, line: opened)
  }

  private mutating func advance() {
    if bytes[index] == 0x0A { line += 1 }
    index += 1
  }

  private func starts(with text: StaticString, at position: Int) -> Bool {
    text.withUTF8Buffer { prefix in
      guard position + prefix.count <= bytes.count else { return false }
      for k in 0..<prefix.count where bytes[position + k] != prefix[k] { return false }
      return true
    }
  }

  /// Skips to just after `terminator`.
  private mutating func skip(past terminator: StaticString, opened: Int) throws(Failure) {
    while index < bytes.count {
      if starts(with: terminator, at: index) {
        for _ in 0..<terminator.utf8CodeUnitCount { advance() }
        return
      }
      advance()
    }
    throw .cutOff(line: opened, reason: "unterminated markup (expected \"\(terminator)\")")
  }

  private func isSpace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
  }

  private func isNameEnd(_ byte: UInt8) -> Bool {
    isSpace(byte) || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "/")
  }

  private func string(_ range: Range<Int>) -> String {
    String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
  }

  /// An attribute value with the five predefined entities decoded (`&amp;` last).
  static func decodeEntities(_ text: String) -> String {
    guard text.contains("&") else { return text }
    return text.replacingOccurrences(of: "&lt;", with: "<")
      .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&quot;", with: "\"")
      .replacingOccurrences(of: "&apos;", with: "'").replacingOccurrences(of: "&amp;", with: "&")
  }
}
