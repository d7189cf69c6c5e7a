import Foundation

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// Turns a failed `XMLParser` run into an error that says where and what in words, rather
/// than Foundation's "NSXMLParserErrorDomain error N".
enum XMLParseFailure {
  /// The error for a parse that returned `false`, or that ended without closing the root
  /// element `root` (a truncated file: Foundation's stream parser reports no error then).
  ///
  /// - Parameters:
  ///   - parser: the parser, after `parse()`.
  ///   - fileName: the file's name for the message.
  ///   - root: the document element the format requires, e.g. `net` or `osm`.
  ///   - sawRoot: whether `root` was opened; `closedRoot` whether it was closed.
  /// - Returns: the error, or `nil` when the document was read to its end.
  static func error(
    _ parser: XMLParser, succeeded: Bool, fileName: String, root: String, sawRoot: Bool,
    closedRoot: Bool
  ) -> RoadsError? {
    let position = "line \(parser.lineNumber), column \(parser.columnNumber)"
    if !succeeded {
      let code = (parser.parserError as NSError?)?.code ?? -1
      return .malformed(file: fileName, position: position, reason: reason(code: code))
    }
    if !sawRoot {
      return .malformed(
        file: fileName, position: position,
        reason:
          "no <\(root)> element: not \(root == "net" ? "a SUMO network" : "an OpenStreetMap") file")
    }
    if !closedRoot {
      return .malformed(
        file: fileName, position: position,
        reason: "the file ends before </\(root)>: it is truncated")
    }
    return nil
  }

  /// Words for libxml2's error codes as Foundation passes them on.
  static func reason(code: Int) -> String {
    switch code {
    case 4: return "the document is empty or is not XML (XML error 4)"
    case 5: return "the document ends in the middle of the XML: it is truncated (XML error 5)"
    case 9: return "an invalid character (XML error 9): the file is corrupt or not UTF-8 XML"
    case 76: return "a closing tag does not match its opening tag (XML error 76)"
    case 77: return "a tag is not closed before the end (XML error 77): the file is truncated"
    case -1: return "XML parse error"
    default: return "XML error \(code): the file is not well-formed XML"
    }
  }
}
