import Codec
import Foundation

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// One XML element read by `XMLRecordReader`: its local name, namespace URI, attributes,
/// text and children.
///
/// Attributes are keyed by their local name (`xsi:type` as `type`, `xml:lang` as `lang`);
/// the value of a type attribute keeps its prefix (`sit:Accident`), see `typeName`.
struct XMLNode: Sendable {
  /// The local name, without prefix.
  var name: String
  /// The namespace URI, empty when none.
  var namespace: String
  /// Attribute values by local name.
  var attributes: [String: String]
  /// The character data directly inside the element (entities resolved), untrimmed.
  var text: String = ""
  /// Child elements in document order.
  var children: [XMLNode] = []
  /// The line of the start tag, 1-based.
  var line: Int

  /// The text without surrounding white space; `nil` when that is empty.
  var value: String? {
    let trimmed = text.trimmingWhitespaceAndNewlines
    return trimmed.isEmpty ? nil : trimmed
  }

  /// The local part of the `xsi:type` attribute (`Accident` for `sit:Accident`).
  var typeName: String? {
    guard let type = attributes["type"] else { return nil }
    return type.split(separator: ":").last.map(String.init)
  }

  /// The first child with local name `name`.
  func child(_ name: String) -> XMLNode? {
    children.first { $0.name == name }
  }

  /// All children with local name `name`.
  func children(_ name: String) -> [XMLNode] {
    children.filter { $0.name == name }
  }

  /// The trimmed text of the first child with local name `name`.
  func childValue(_ name: String) -> String? {
    child(name)?.value
  }

  /// The element at a path of child names below this one.
  func child(path names: [String]) -> XMLNode? {
    var node = self
    for name in names {
      guard let next = node.child(name) else { return nil }
      node = next
    }
    return node
  }

  /// The first element (this one or below, depth first, document order) with local name
  /// `name`, not descending into elements named in `excluding`.
  func first(_ name: String, excluding: Set<String> = []) -> XMLNode? {
    if self.name == name { return self }
    for child in children where !excluding.contains(child.name) {
      if let found = child.first(name, excluding: excluding) { return found }
    }
    return nil
  }

  /// Every element (this one or below, document order) with local name `name`, not
  /// descending into elements named in `excluding` nor into a match.
  func all(_ name: String, excluding: Set<String> = []) -> [XMLNode] {
    var result: [XMLNode] = []
    collect(name, excluding: excluding, into: &result)
    return result
  }

  private func collect(_ name: String, excluding: Set<String>, into result: inout [XMLNode]) {
    if self.name == name {
      result.append(self)
      return
    }
    for child in children where !excluding.contains(child.name) {
      child.collect(name, excluding: excluding, into: &result)
    }
  }
}

/// Streams an XML document through Codec's `GuardedXMLReader` (the guard, then
/// Foundation's SAX `XMLParser`), handing over one subtree per record (a DATEX II
/// `situation`, an Open511 `event`) so that memory stays bounded by the largest record, not
/// the document.
///
/// Elements outside records are reported one at a time, without their children, so that a
/// decoder can pick up header values (publication time, country). A DTD is refused
/// (`XMLGuard.dtdRefusal`), so no entity is declared and none resolved; nesting deeper
/// than `maximumDepth`, records with more than `maximumRecordElements` elements and texts
/// longer than `maximumTextLength` characters end the parse with an error.
struct XMLRecordReader {
  /// The format named in errors.
  var format: FeedFormat
  /// The deepest element nesting accepted.
  var maximumDepth = 256
  /// The most elements one record may hold.
  var maximumRecordElements = 100_000
  /// The longest text of one element, characters.
  var maximumTextLength = 4_000_000

  /// Reads `input` as it streams, calling `opening` and `header` for each element outside records (at its
  /// start with its attributes, and at its end with its text, without children) and `record`
  /// for each complete record subtree.
  ///
  /// - Parameters:
  ///   - input: The document.
  ///   - isRecord: Whether an element starts a record, given the local names of its
  ///     ancestors (root first) and the element itself (local name, namespace URI).
  ///   - opening: Called at the start of elements outside records, with the local names of
  ///     their ancestors.
  ///   - header: Called at the end of elements outside records, with the local names of
  ///     their ancestors.
  ///   - record: Called for each record, with the record's number (1-based) and the path of
  ///     its ancestors.
  /// - Throws: `FeedError` with the byte for a document the guard refuses (a DTD, a wrong
  ///   encoding), with the line and column for malformed XML (including truncated input)
  ///   and for the limits above.
  /// - Complexity: O(n) in the size of the document; memory O(largest record + depth).
  func read(
    _ input: FeedInput,
    isRecord: @escaping (_ ancestors: [String], _ name: String, _ namespace: String) -> Bool,
    opening: @escaping (_ ancestors: [String], _ node: XMLNode) -> Void = { _, _ in },
    header: @escaping (_ ancestors: [String], _ node: XMLNode) -> Void = { _, _ in },
    record: @escaping (_ node: XMLNode, _ number: Int, _ ancestors: [String]) -> Void
  ) throws(FeedError) {
    let chunks: FeedChunks
    do { chunks = try FeedChunks(input) } catch {
      throw FeedError(format: format, reason: error.description)
    }
    let delegate = Delegate(
      reader: self, isRecord: isRecord, opening: opening, header: header, record: record)
    do {
      _ = try GuardedXMLReader.parse(
        .chunks { try chunks.next() }, delegate: delegate, processNamespaces: true)
    } catch {
      // A parse the delegate stopped ends as malformed: the delegate's reason is the one.
      if case .malformed = error, let failure = delegate.failure { throw failure }
      throw FeedError(format: format, location: error.place, reason: error.reason)
    }
    if let failure = delegate.failure { throw failure }
    if !delegate.sawRoot {
      throw FeedError(format: format, location: "line 1", reason: "the document has no element")
    }
  }

  /// Collects elements; a class because `XMLParser` requires an `NSObject` delegate. Used
  /// from one thread during one parse only.
  private final class Delegate: NSObject, XMLParserDelegate {
    let reader: XMLRecordReader
    let isRecord: ([String], String, String) -> Bool
    let opening: ([String], XMLNode) -> Void
    let header: ([String], XMLNode) -> Void
    let record: (XMLNode, Int, [String]) -> Void
    /// Local names of the open elements, root first.
    var names: [String] = []
    /// Open elements outside records (text only, children dropped) and inside one.
    var stack: [XMLNode] = []
    /// Index in `stack` of the open record's root, when inside a record.
    var recordBase: Int?
    var recordElements = 0
    var records = 0
    var failure: FeedError?
    var sawRoot = false

    init(
      reader: XMLRecordReader, isRecord: @escaping ([String], String, String) -> Bool,
      opening: @escaping ([String], XMLNode) -> Void,
      header: @escaping ([String], XMLNode) -> Void,
      record: @escaping (XMLNode, Int, [String]) -> Void
    ) {
      self.reader = reader
      self.isRecord = isRecord
      self.opening = opening
      self.header = header
      self.record = record
    }

    func fail(_ parser: XMLParser, _ reason: String) {
      guard failure == nil else { return }
      let path = names.suffix(6).joined(separator: "/")
      failure = FeedError(
        format: reader.format,
        location: "\(path) (line \(parser.lineNumber), column \(parser.columnNumber))",
        reason: reason)
      parser.abortParsing()
    }

    func parser(
      _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
      qualifiedName: String?, attributes: [String: String] = [:]
    ) {
      guard failure == nil else { return }
      sawRoot = true
      guard names.count < reader.maximumDepth else {
        fail(parser, "elements are nested deeper than \(reader.maximumDepth) levels")
        return
      }
      var localAttributes: [String: String] = [:]
      for (key, value) in attributes {
        let local = key.split(separator: ":").last.map(String.init) ?? key
        localAttributes[local] = value
      }
      let namespace = namespaceURI ?? ""
      let node = XMLNode(
        name: elementName, namespace: namespace, attributes: localAttributes,
        line: parser.lineNumber)
      if recordBase == nil, isRecord(names, elementName, namespace) {
        recordBase = stack.count
        recordElements = 0
      }
      if recordBase == nil {
        opening(names, node)
      } else {
        recordElements += 1
        guard recordElements <= reader.maximumRecordElements else {
          fail(parser, "a record has more than \(reader.maximumRecordElements) elements")
          return
        }
      }
      names.append(elementName)
      stack.append(node)
    }

    func parser(
      _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?,
      qualifiedName: String?
    ) {
      guard failure == nil, let node = stack.popLast() else { return }
      names.removeLast()
      if let base = recordBase {
        if stack.count == base {
          recordBase = nil
          records += 1
          record(node, records, names)
        } else if !stack.isEmpty {
          stack[stack.count - 1].children.append(node)
        }
      } else {
        header(names, node)
      }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
      guard failure == nil, !stack.isEmpty else { return }
      let last = stack.count - 1
      if recordBase == nil {
        // Outside records only short header values matter; drop the rest to bound memory.
        if stack[last].text.utf8.count < 4096 { stack[last].text += string }
        return
      }
      guard stack[last].text.utf8.count + string.utf8.count <= reader.maximumTextLength else {
        fail(parser, "an element's text is longer than \(reader.maximumTextLength) bytes")
        return
      }
      stack[last].text += string
    }

    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
      self.parser(parser, foundCharacters: String(decoding: CDATABlock, as: UTF8.self))
    }
  }
}

/// Why one record of a document was skipped; the decoder adds the record's place.
struct RecordProblem: Error {
  /// What was wrong with the record.
  var reason: String

  init(_ reason: String) {
    self.reason = reason
  }
}
