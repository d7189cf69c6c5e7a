import Foundation

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// Why an XML document could not be read.
package enum XMLReadFailure: Error, CustomStringConvertible {
  /// The guard refused the document before it was parsed (`XMLGuard`): a DTD, a wrong
  /// encoding, an empty processing instruction. The offset is in bytes.
  case refused(XMLGuard.Problem)
  /// The bytes could not be read: the source's error.
  case unreadable(any Error)
  /// The document is not well formed: where (the column when the reader knows it) and why.
  case malformed(line: Int, column: Int?, reason: String)

  /// The reason in words, without the place.
  package var reason: String {
    switch self {
    case .refused(let problem): return problem.reason
    case .unreadable(let error): return "\(error)"
    case .malformed(_, _, let reason): return reason
    }
  }

  /// The place, as messages give it: `byte 22`, `line 3, column 7`, `line 3`; `nil` when
  /// there is none.
  package var place: String? {
    switch self {
    case .refused(let problem): return problem.offset.map { "byte \($0)" }
    case .unreadable: return nil
    case .malformed(let line, let column?, _): return "line \(line), column \(column)"
    case .malformed(let line, nil, _): return "line \(line)"
    }
  }

  /// `"<place>: <reason>"`.
  package var description: String {
    place.map { "\($0): \(reason)" } ?? reason
  }
}

/// The one reader of XML in this package: feeds, probes and road networks alike.
///
/// Every document first passes `XMLGuard` as it streams (a DTD is refused with
/// `XMLGuard.dtdRefusal`, wrong encodings and empty processing instructions too), and only
/// the bytes that passed reach the parser: Foundation's event-driven `XMLParser` (this
/// type's `parse`), or, for flat formats read for speed, `XMLTagScanner` (`scanTags`,
/// `TagFeed`). External entities are never resolved.
package enum GuardedXMLReader {
  /// Where the bytes come from.
  package enum Source {
    /// A document in memory, handed to the parser in chunks.
    case data(Data)
    /// A stream (a file, a pipe), read in chunks.
    case stream(InputStream)
    /// The next chunk each call, `nil` at the end; a thrown error ends the parse.
    case chunks(() throws -> Data?)
  }

  /// Bytes read per chunk from a stream or document in memory.
  package static let chunkBytes = 1 << 20

  /// Parses a document with `XMLParser`, handing its events to `delegate`.
  ///
  /// The document streams through the guard and the parser: a document in memory is not
  /// copied whole, and a stream is never held whole. A parse the delegate aborts ends as
  /// malformed; the caller then reports the delegate's own reason.
  ///
  /// - Parameters:
  ///   - source: The document.
  ///   - delegate: The parser's delegate; held for the parse.
  ///   - processNamespaces: Whether element names arrive as local names with their
  ///     namespace URI (attributes keep their prefixes).
  /// - Returns: The line and column where the parse ended.
  /// - Throws: `XMLReadFailure`: `refused` by the guard (which comes first: the parser saw
  ///   the document only up to that place), `unreadable` source, or `malformed` with the
  ///   parser's line, column and error in words (`describe(code:)`).
  /// - Complexity: O(n) in the size of the document.
  package static func parse(
    _ source: Source, delegate: any XMLParserDelegate, processNamespaces: Bool = false
  ) throws(XMLReadFailure) -> (line: Int, column: Int) {
    let stream = CheckedStream(source)
    let parser = XMLParser(stream: stream)
    parser.shouldProcessNamespaces = processNamespaces
    parser.shouldReportNamespacePrefixes = false
    parser.shouldResolveExternalEntities = false
    let forwarder = PlaceKeepingDelegate(delegate)
    parser.delegate = forwarder
    let succeeded = withExtendedLifetime(forwarder) { parser.parse() }
    if let problem = stream.problem { throw .refused(problem) }
    if let error = stream.readError { throw .unreadable(error) }
    if !succeeded || parser.parserError != nil {
      let first = forwarder.firstError
      throw .malformed(
        line: first?.line ?? parser.lineNumber, column: first?.column ?? parser.columnNumber,
        reason: describe(code: (parser.parserError as NSError?)?.code ?? first?.code))
    }
    return (parser.lineNumber, parser.columnNumber)
  }

  /// A sentence for the libxml2 error codes that `XMLParser` passes on.
  package static func describe(code: Int?) -> String {
    guard let code else { return "malformed XML" }
    switch code {
    case 4: return "the document is empty or is not XML (XML error 4)"
    case 5:
      return "the document ends early: an element is not closed, it is truncated (XML error 5)"
    case 9:
      return
        "a character XML 1.0 does not allow: a control character other than tab, line feed "
        + "and carriage return, written as is or as a reference such as &#x1; (XML error 9)"
    case 26, 27: return "an undeclared entity is referenced (XML error \(code))"
    case 32: return "an encoding declaration is not supported (XML error 32)"
    case 73, 76: return "a start tag is not matched by its end tag (XML error \(code))"
    case 77: return "a tag is not closed before the end: the document is truncated (XML error 77)"
    default: return "malformed XML (XML error \(code))"
    }
  }

  /// The delegate `XMLParser` calls: it hands the events this package's readers use
  /// (elements, characters, CDATA, errors) to the reader's delegate and keeps the place of
  /// the first error. libxml2 goes on reading the chunk after a fatal error, so the parser's
  /// place when `parse()` returns lies later in the document (at its end for a small one).
  /// The reason stays the parser's: at a truncation its last error, "premature end", says
  /// more than the first.
  private final class PlaceKeepingDelegate: NSObject, XMLParserDelegate {
    private let inner: any XMLParserDelegate
    private(set) var firstError: (line: Int, column: Int, code: Int)?

    init(_ inner: any XMLParserDelegate) { self.inner = inner }

    func parser(
      _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
      qualifiedName qName: String?, attributes attributeDict: [String: String]
    ) {
      inner.parser(
        parser, didStartElement: elementName, namespaceURI: namespaceURI, qualifiedName: qName,
        attributes: attributeDict)
    }

    func parser(
      _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?,
      qualifiedName qName: String?
    ) {
      inner.parser(
        parser, didEndElement: elementName, namespaceURI: namespaceURI, qualifiedName: qName)
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
      inner.parser(parser, foundCharacters: string)
    }

    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
      inner.parser(parser, foundCDATA: CDATABlock)
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
      if firstError == nil {
        firstError = (parser.lineNumber, parser.columnNumber, (parseError as NSError).code)
      }
      inner.parser(parser, parseErrorOccurred: parseError)
    }
  }

  /// The stream `XMLParser` reads: chunks of the source that passed `XMLGuard`. It ends
  /// early (as if the document ended) at a problem, which `parse` then reports.
  /// `XMLParser` calls only `open`, `read(_:maxLength:)` and `close`, from the parsing thread.
  private final class CheckedStream: InputStream {
    private let next: () throws -> Data?
    /// The stream read, closed when the parser closes this one.
    private var underlying: InputStream?
    private var scanner = XMLGuard.Scanner()
    private var ready: [UInt8] = []
    private var readyIndex = 0
    private var finished = false
    private(set) var problem: XMLGuard.Problem?
    private(set) var readError: (any Error)?

    init(_ source: Source) {
      switch source {
      case .data(let data):
        var rest = data[...]
        next = {
          guard !rest.isEmpty else { return nil }
          let chunk = rest.prefix(GuardedXMLReader.chunkBytes)
          rest = rest.dropFirst(chunk.count)
          return Data(chunk)
        }
      case .stream(let stream):
        next = Self.chunks(of: stream)
        underlying = stream
      case .chunks(let chunks):
        next = chunks
      }
      super.init(data: Data())
    }

    /// Reads `stream` a chunk at a time.
    private static func chunks(of stream: InputStream) -> () throws -> Data? {
      var opened = false
      var buffer = [UInt8](repeating: 0, count: GuardedXMLReader.chunkBytes)
      return {
        if !opened {
          stream.open()
          opened = true
        }
        let count = buffer.withUnsafeMutableBufferPointer { pointer in
          pointer.baseAddress.map { stream.read($0, maxLength: pointer.count) } ?? 0
        }
        if count < 0 {
          throw stream.streamError ?? CocoaError(.fileReadUnknown)
        }
        return count == 0 ? nil : Data(buffer[..<count])
      }
    }

    override func open() {}
    override func close() { underlying?.close() }
    override var hasBytesAvailable: Bool { readyIndex < ready.count || !finished }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength length: Int) -> Int {
      while readyIndex >= ready.count {
        guard !finished else { return 0 }
        let chunk: Data?
        do { chunk = try next() } catch {
          readError = error
          finished = true
          return 0
        }
        do {
          ready = try scanner.feed(chunk ?? Data(), atEnd: chunk == nil)
        } catch {
          problem = error
          finished = true
          return 0
        }
        readyIndex = 0
        if chunk == nil { finished = true }
      }
      let count = min(length, ready.count - readyIndex)
      ready.withUnsafeBufferPointer { source in
        if let start = source.baseAddress {
          buffer.update(from: start + readyIndex, count: count)
        }
      }
      readyIndex += count
      return count
    }
  }
}
