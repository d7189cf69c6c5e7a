import Foundation
import Testing

/// Every Swift file in `Sources/` stays under 500 lines, so that each reads as one concern
/// (issue 53): a file growing past it is split along its parts.
@Suite struct SourceFileSizeTests {
  static let maximumLines = 500

  @Test func noSourceFileIsOverTheLimit() throws {
    let root = URL(fileURLWithPath: #filePath)
      .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    let sources = root.appendingPathComponent("Sources")
    let files = try #require(FileManager.default.enumerator(atPath: sources.path))
      .compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
    #expect(files.count > 100, "the Sources folder was not found at \(sources.path)")
    var over: [String] = []
    for file in files {
      let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
      let lines = text.split(separator: "\n", omittingEmptySubsequences: false).count - 1
      if lines > Self.maximumLines { over.append("\(file): \(lines) lines") }
    }
    #expect(over.isEmpty, "over \(Self.maximumLines) lines: \(over.sorted())")
  }
}
