import Foundation

/// Reads SUMO floating-car data (`--fcd-output`, with `--fcd-output.geo true` for
/// degrees): a whole document (`traffic probes import`, `POST /v1/probes`) or the bytes
/// SUMO is still writing (the live demo), with one `XMLTagScanner`.
///
/// The elements that matter are `<timestep time="12.00">` and, inside it, `<vehicle>`,
/// `<person>` and `<container>`, whose attributes (`id`, `x`/`lon`, `y`/`lat`, `speed`,
/// `angle`) the caller reads; everything else is skipped.
package struct FCDReader {
  /// An element of the document.
  package enum Element: Equatable, Sendable {
    /// A new time step: simulation seconds, `nil` when the time cannot be read.
    case timestep(seconds: Double?, line: Int)
    /// A moving object (`vehicle`, `person` or `container`) with its attributes.
    case mover(kind: String, attributes: [String: String], line: Int)
  }

  /// Bytes fed but not read yet: markup cut off by the end of the last feed.
  private var pending: [UInt8] = []
  /// The line of the first pending byte.
  private var line = 1

  /// Pending bytes beyond this are not FCD; they are dropped rather than kept growing.
  static let maximumPendingBytes = 1 << 20

  /// A reader for bytes fed as they are written.
  package init() {}

  /// Reads a whole document, handing each element to `body` in document order.
  ///
  /// - Throws: `ProbeDecodingError.malformed` naming the line of markup that is not well
  ///   formed or is cut off by the end of the document (the elements before it have been
  ///   handed over).
  /// - Complexity: O(n) in the bytes.
  package static func read(
    _ bytes: UnsafeRawBufferPointer, _ body: (Element) -> Void
  ) throws(ProbeDecodingError) {
    var scanner = XMLTagScanner(bytes: bytes)
    while let tag = try scanner.next() {
      if let element = element(tag) { body(element) }
    }
  }

  /// Feeds bytes as they are written; returns the elements they complete. Markup cut off
  /// by the end waits for the next bytes; markup that is not well formed is skipped.
  ///
  /// - Complexity: O(n) in the bytes fed and pending.
  package mutating func feed(_ bytes: UnsafeRawBufferPointer) -> [Element] {
    pending.append(contentsOf: bytes)
    var elements: [Element] = []
    var offset = 0
    pending.withUnsafeBytes { buffer in
      while true {
        var scanner = XMLTagScanner(
          bytes: UnsafeRawBufferPointer(rebasing: buffer[offset...]), line: line, isPartial: true)
        do {
          while let tag = try scanner.next() {
            if let element = Self.element(tag) { elements.append(element) }
          }
          offset += scanner.index
          line = scanner.line
          return
        } catch {
          // Not FCD as SUMO writes it: skip the broken markup, to after its `>`.
          let from = offset + scanner.index
          guard let close = buffer[from...].firstIndex(of: UInt8(ascii: ">")) else {
            line = scanner.line + buffer[from...].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
            offset = buffer.count
            return
          }
          line = scanner.line + buffer[from...close].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
          offset = close + 1
        }
      }
    }
    pending.removeFirst(offset)
    if pending.count > Self.maximumPendingBytes { pending.removeAll() }
    return elements
  }

  private static func element(_ tag: XMLTagScanner.Tag) -> Element? {
    switch tag.name {
    case "timestep":
      return .timestep(
        seconds: tag.attributes["time"].flatMap { ProbeDecoder.decimal($0) }, line: tag.line)
    case "vehicle", "person", "container":
      return .mover(kind: tag.name, attributes: tag.attributes, line: tag.line)
    default:
      return nil
    }
  }
}
