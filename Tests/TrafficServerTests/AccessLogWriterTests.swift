import Foundation
import Synchronization
import Testing
import TrafficTestSupport

@testable import TrafficServer

/// The access log is written in batches off the request path; it must still hold every
/// line, each whole and in order, after a flush or a stop.
@Suite struct AccessLogWriterTests {
  static func temporaryFile() -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent(
      "access-\(UUID().uuidString).log"
    ).path
  }

  @Test func linesFromManyThreadsArriveWholeAndInOrder() throws {
    let path = Self.temporaryFile()
    defer { try? FileManager.default.removeItem(atPath: path) }
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    try #require(descriptor >= 0)
    defer { close(descriptor) }
    let writer = BufferedLogWriter(fileDescriptor: descriptor)
    let threads = 4, perThread = 40_000
    DispatchQueue.concurrentPerform(iterations: threads) { thread in
      for number in 0..<perThread {
        // Long enough that the buffer passes its bounds many times over.
        writer.append(
          Array("thread=\(thread) line=\(number) \(String(repeating: "x", count: 40))".utf8))
      }
    }
    writer.flush()
    let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
    #expect(lines.count == threads * perThread)
    var next = [Int](repeating: 0, count: threads)
    for line in lines {
      let fields = line.split(separator: " ")
      let thread = try #require(Int(fields[0].dropFirst("thread=".count)))
      let number = try #require(Int(fields[1].dropFirst("line=".count)))
      #expect(number == next[thread], "\(line)")
      next[thread] = number + 1
    }
    #expect(next == [Int](repeating: perThread, count: threads))
  }

  @Test func theServerWritesEveryLineByItsStop() throws {
    let path = Self.temporaryFile()
    defer { try? FileManager.default.removeItem(atPath: path) }
    let server = try ServerFixtures.server(
      ServerConfiguration(accessLog: try AccessLogSink.file(atPath: path)))
    for number in 0..<500 {
      _ = server.handle(ServerFixtures.get("/healthz?n=\(number)"))
    }
    server.stop()
    let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
    #expect(lines.count == 500)
    #expect(lines.last?.contains("path=\"/healthz?n=499\" status=200") == true)
  }

  @Test func anAccessLogThatCannotBeOpenedIsAConfigurationError() {
    #expect(throws: ServerError.self) {
      try AccessLogSink.file(atPath: "/nonexistent-directory/access.log")
    }
  }

  @Test func quotingMatchesTheByteByByteForm() {
    for text in ["/v7/flow?in=circle:1,2;r=3", "a \"b\" c\\d", "tab\there", "Straße", ""] {
      var fast: [UInt8] = []
      AccessLogSink.appendQuoted(text, to: &fast)
      var expected = "\""
      for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": expected += "\\\""
        case "\\": expected += "\\\\"
        case _ where scalar.value < 0x20 || scalar.value == 0x7f:
          expected += "\\u{\(String(scalar.value, radix: 16))}"
        default: expected.unicodeScalars.append(scalar)
        }
      }
      expected += "\""
      #expect(String(decoding: fast, as: UTF8.self) == expected)
    }
  }
}
