import Foundation
import Synchronization
import Testing

@testable import Codec

/// The progress reporter: what a line says, how often it is drawn on a terminal and in a
/// log, and that the terminal line is erased before the summary.
@Suite struct ProgressReporterTests {
  final class Capture: Sendable {
    let text = Mutex("")
    let writes = Mutex(0)
    let now = Mutex(100.0)

    func reporter(_ mode: ProgressReporter.Mode) -> ProgressReporter {
      ProgressReporter(
        mode: mode, ticks: false,
        write: { text in
          self.text.withLock { $0 += text }
          self.writes.withLock { $0 += 1 }
        }, clock: { self.now.withLock { $0 } })
    }

    func at(_ seconds: Double) { now.withLock { $0 = 100 + seconds } }
    var output: String { text.withLock { $0 } }
    var count: Int { writes.withLock { $0 } }
  }

  @Test("a line tells the step, the share of the total, the rate and the time left")
  func lineText() {
    #expect(
      ProgressReporter.line(
        task: "probes import", detail: "matching", done: 500, total: 1_000,
        unit: .items("probes"), elapsed: 10)
        == "probes import: matching · 50 % of 1,000 probes · 50 probes/s · ~10 s left · 10 s")
    #expect(
      ProgressReporter.line(
        task: "network import", detail: "", done: 30_000_000, total: 77_400_000,
        unit: .bytes, elapsed: 75)
        == "network import · 38 % of 77.4 MB · 400.0 kB/s · ~1 min 58 s left · 1 min 15 s")
    // Without a total: the count; before a second has passed: no rate yet.
    #expect(
      ProgressReporter.line(
        task: "import", detail: "", done: 1_234_567, total: nil, unit: .items("records"),
        elapsed: 0.5) == "import · 1,234,567 records · 0 s")
    #expect(ProgressReporter.duration(3_725) == "1 h 2 min")
  }

  @Test("on a terminal: redrawn in place at most four times a second, erased at the end")
  func terminal() {
    let capture = Capture()
    let reporter = capture.reporter(.terminal)
    reporter.begin("network import", total: 1_000, unit: .items("ways"))
    for step in 1...20 {
      capture.at(Double(step) * 0.05)
      reporter.update(done: Int64(step * 50))
    }
    // One second of updates every 50 ms: drawn at 0.25, 0.5, 0.75 and 1.0 s.
    #expect(capture.count == 4)
    #expect(capture.output.hasPrefix("\rnetwork import · 25 % of 1,000 ways"))
    #expect(!capture.output.contains("\n"))
    #expect(capture.output.components(separatedBy: "\u{1B}[K").count == 5)
    reporter.finish()
    #expect(capture.output.hasSuffix("\r\u{1B}[K"))
    // A step too short to be drawn leaves nothing to erase.
    reporter.begin("quick", unit: .items(""))
    reporter.finish()
    #expect(capture.count == 5)
  }

  @Test("in a log: a plain line every ten seconds, no carriage returns")
  func log() {
    let capture = Capture()
    let reporter = capture.reporter(.log)
    reporter.begin("probes import", total: 25_000, unit: .items("probes"))
    for second in 1...25 {
      capture.at(Double(second))
      reporter.advance(by: 1_000)
    }
    let lines = capture.output.split(separator: "\n")
    #expect(lines.count == 2)
    #expect(lines.first?.hasPrefix("progress: probes import · 40 % of 25,000 probes") == true)
    #expect(!capture.output.contains("\r"))
    reporter.finish()
    #expect(capture.output.split(separator: "\n").count == 2)
    // Steps of 6 s each, one after another: still a line every ten seconds of the run.
    for step in 0..<4 {
      reporter.begin("import", detail: "file \(step)", unit: .items("records"))
      for second in 1...6 {
        capture.at(25 + Double(step * 6 + second))
        reporter.advance(by: 10)
      }
    }
    #expect(capture.output.split(separator: "\n").count == 4)
  }

  @Test("quiet shows nothing")
  func quiet() {
    let capture = Capture()
    let reporter = capture.reporter(.quiet)
    reporter.begin("x", total: 10, unit: .bytes)
    capture.at(60)
    reporter.update(done: 5)
    reporter.finish()
    #expect(capture.output.isEmpty)
  }
}
