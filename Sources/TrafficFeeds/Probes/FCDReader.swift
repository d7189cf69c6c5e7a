import Codec
import Foundation

/// Reads SUMO floating-car data (`--fcd-output`, with `--fcd-output.geo true` for
/// degrees): a whole document (`traffic probes import`, `POST /v1/probes`) or the bytes
/// SUMO is still writing (the live demo), through `GuardedXMLReader`'s tag scanning.
///
/// The elements that matter are `<timestep time="12.00">` and, inside it, `<vehicle>`,
/// `<person>` and `<container>`, whose attributes (`id`, `x`/`lon`, `y`/`lat`, `speed`,
/// `angle`) the caller reads (probes are read from vehicles alone); everything else is
/// skipped.
package struct FCDReader {
  /// An element of the document.
  package enum Element: Equatable, Sendable {
    /// A new time step: simulation seconds, `nil` when the time cannot be read.
    case timestep(seconds: Double?, line: Int)
    /// A moving object (`vehicle`, `person` or `container`) with its attributes.
    case mover(kind: String, attributes: [String: String], line: Int)
  }

  /// The guarded tags of the bytes fed so far.
  private var tags = GuardedXMLReader.TagFeed()

  /// A reader for bytes fed as they are written.
  package init() {}

  /// Why the guard refused the bytes fed (a DTD, a wrong encoding); nothing more is read
  /// once it has.
  package var problem: XMLGuard.Problem? { tags.problem }

  /// Reads a whole document, handing each element to `body` in document order.
  ///
  /// - Throws: `ProbeDecodingError.malformed` for a document the guard refuses (a DTD, a
  ///   wrong encoding; nothing is handed over then) and naming the line of markup that is
  ///   not well formed or is cut off by the end of the document (the elements before it
  ///   have been handed over).
  /// - Complexity: O(n) in the bytes.
  package static func read(
    _ bytes: UnsafeRawBufferPointer, _ body: (Element) -> Void
  ) throws(ProbeDecodingError) {
    do {
      try GuardedXMLReader.scanTags(bytes) { tag in
        if let element = element(tag) { body(element) }
      }
    } catch {
      switch error {
      case .refused(let problem):
        let end = min(problem.offset ?? 0, bytes.count)
        let line = 1 + bytes[..<end].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
        throw .malformed(line: line, reason: problem.reason)
      case .malformed(let line, _, let reason):
        throw .malformed(line: line, reason: reason)
      case .unreadable(let error):
        throw .malformed(line: 1, reason: "\(error)")
      }
    }
  }

  /// Feeds bytes as they are written; returns the elements they complete. Markup cut off
  /// by the end waits for the next bytes; markup that is not well formed is skipped.
  ///
  /// - Complexity: O(n) in the bytes fed and pending.
  package mutating func feed(_ bytes: UnsafeRawBufferPointer) -> [Element] {
    tags.feed(bytes).compactMap(Self.element)
  }

  /// A time step's seconds: a number, or as SUMO's `--human-readable-time` writes them,
  /// `HH:MM:SS` with `D:` before it from the second day on (and fractions after it).
  package static func seconds(_ text: String) -> Double? {
    if let plain = ProbeDecoder.decimal(text) { return plain }
    let parts = text.split(separator: ":", omittingEmptySubsequences: false)
    guard parts.count == 3 || parts.count == 4 else { return nil }
    var total = 0.0
    for (index, part) in parts.enumerated() {
      let isLast = index == parts.count - 1
      // Whole numbers but the seconds; minutes and seconds below 60.
      guard !part.isEmpty, part.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || (isLast && $0 == 46) }),
        let value = Double(part), value.isFinite
      else { return nil }
      if index >= parts.count - 2, value >= 60 { return nil }
      if parts.count == 4, index == 1, value >= 24 { return nil }
      total = total * (index == 1 && parts.count == 4 ? 24 : index == 0 ? 1 : 60) + value
    }
    return total
  }

  private static func element(_ tag: XMLTagScanner.Tag) -> Element? {
    switch tag.name {
    case "timestep":
      return .timestep(seconds: tag.attributes["time"].flatMap(seconds), line: tag.line)
    case "vehicle", "person", "container":
      return .mover(kind: tag.name, attributes: tag.attributes, line: tag.line)
    default:
      return nil
    }
  }
}
