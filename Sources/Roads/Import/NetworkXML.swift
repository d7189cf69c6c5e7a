import Codec
import Foundation

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// Reads a network file's XML through Codec's `GuardedXMLReader` (so that a DTD is refused
/// with the message every XML input gives) and turns what went wrong into a ``RoadsError``
/// that says where and what in words.
enum NetworkXML {
  /// Parses `source` with `delegate`, which reports its own failure (`delegateFailure`,
  /// read after the parse) and whether it opened and closed the root element `root`.
  ///
  /// - Parameters:
  ///   - source: the document.
  ///   - delegate: the format's event handler.
  ///   - fileName: the file's name for messages.
  ///   - root: the document element the format requires, e.g. `net` or `osm`.
  ///   - delegateFailure: the delegate's own failure, after the parse.
  ///   - rootState: whether `root` was opened and closed, after the parse.
  /// - Throws: ``RoadsError/malformed(file:position:reason:)``: the guard's refusal (with its
  ///   byte), the delegate's failure, the parser's error (line and column), a missing root
  ///   element, or one not closed (a truncated file: Foundation's stream parser reports no
  ///   error then); ``RoadsError/unreadable(file:reason:)`` when the bytes cannot be read.
  static func parse(
    _ source: GuardedXMLReader.Source, delegate: any XMLParserDelegate, fileName: String,
    root: String, delegateFailure: () -> RoadsError?,
    rootState: () -> (opened: Bool, closed: Bool)
  ) throws(RoadsError) {
    let end: (line: Int, column: Int)
    do {
      end = try GuardedXMLReader.parse(source, delegate: delegate)
    } catch {
      // A parse the delegate stopped ends as malformed: the delegate's reason is the one.
      if case .malformed = error, let failure = delegateFailure() { throw failure }
      if case .unreadable(let error) = error {
        throw .unreadable(file: fileName, reason: SystemErrorText.reason(error))
      }
      throw .malformed(file: fileName, position: error.place, reason: error.reason)
    }
    if let failure = delegateFailure() { throw failure }
    let position = "line \(end.line), column \(end.column)"
    let (opened, closed) = rootState()
    if !opened {
      throw .malformed(
        file: fileName, position: position,
        reason:
          "no <\(root)> element: not \(root == "net" ? "a SUMO network" : "an OpenStreetMap") file")
    }
    if !closed {
      throw .malformed(
        file: fileName, position: position,
        reason: "the file ends before </\(root)>: it is truncated")
    }
  }
}
