import Foundation

extension GuardedXMLReader {
  /// Reads the start tags of a whole document in memory, guarded: the fast path for flat
  /// formats such as SUMO's floating-car data, where everything lives in attributes.
  ///
  /// - Parameters:
  ///   - bytes: The document (not copied).
  ///   - body: Called with each start tag in document order.
  /// - Throws: `XMLReadFailure.refused` by the guard before any tag is handed over;
  ///   `.malformed` naming the line of markup that is not well formed or is cut off by the
  ///   end (the tags before it have been handed over).
  /// - Complexity: O(n) in the bytes.
  package static func scanTags(
    _ bytes: UnsafeRawBufferPointer, _ body: (XMLTagScanner.Tag) -> Void
  ) throws(XMLReadFailure) {
    do { try XMLGuard.check(bytes) } catch { throw .refused(error) }
    var scanner = XMLTagScanner(bytes: bytes)
    while let tag = try scanner.next() { body(tag) }
  }

  /// The start tags of a document read as it is written (a pipe from a running program),
  /// guarded as it comes: markup cut off by the end of the bytes fed waits for the next
  /// ones; markup that is not well formed is skipped. After the guard refuses the document,
  /// nothing more is read (`problem` says why).
  package struct TagFeed {
    private var check = XMLGuard.Scanner()
    /// Bytes that passed the guard but were not scanned yet: markup cut off by the end of
    /// the last feed.
    private var pending: [UInt8] = []
    /// The line of the first pending byte.
    private var line = 1
    /// Why the guard refused the document, once it has.
    package private(set) var problem: XMLGuard.Problem?

    /// Pending bytes beyond this are no markup that ends; they are dropped rather than
    /// kept growing.
    static let maximumPendingBytes = 1 << 20

    /// A reader for bytes fed as they are written.
    package init() {}

    /// Feeds bytes as they are written; returns the tags they complete.
    ///
    /// - Complexity: O(n) in the bytes fed and pending.
    package mutating func feed(_ bytes: UnsafeRawBufferPointer) -> [XMLTagScanner.Tag] {
      guard problem == nil else { return [] }
      do {
        pending.append(contentsOf: try check.feed(Data(bytes), atEnd: false))
      } catch {
        problem = error
        pending.removeAll()
        return []
      }
      var tags: [XMLTagScanner.Tag] = []
      var offset = 0
      pending.withUnsafeBytes { buffer in
        while true {
          var scanner = XMLTagScanner(
            bytes: UnsafeRawBufferPointer(rebasing: buffer[offset...]), line: line,
            isPartial: true)
          do {
            while let tag = try scanner.next() { tags.append(tag) }
            offset += scanner.index
            line = scanner.line
            return
          } catch {
            // Skip the broken markup, to after its `>`.
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
      return tags
    }
  }
}
