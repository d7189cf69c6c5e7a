import Foundation
import Testing

@testable import traffic_bench

/// The accuracy harness's table (`make accuracy`): what its flow columns count, and that
/// every row has a cell under every heading.
@Suite struct AccuracyReportTests {
  @Test("the oracle's pick counts an edge-interval where either source was within 15 %")
  func either() {
    var counts = AccuracyOutcome.FlowCounts()
    counts.add(ours: false, raw: false, typical: true, sampled: false, confidence: 0.6)
    counts.add(ours: true, raw: false, typical: false, sampled: true, confidence: 0.95)
    counts.add(ours: true, raw: true, typical: true, sampled: true, confidence: 0.85)
    counts.add(ours: true, raw: true, typical: false, sampled: false, confidence: 0.75)
    #expect(counts.judged == 4)
    #expect(counts.either == 3)
    #expect(counts.typical == 2 && counts.sampled == 2 && counts.ours == 3 && counts.raw == 2)
    #expect(counts.bands.map(\.judged) == [1, 1, 1, 1])
    #expect(counts.bands.map(\.within) == [0, 1, 1, 1])
  }

  @Test("every row of the table has as many cells as the heading")
  func cellsUnderHeadings() {
    var outcome = AccuracyOutcome()
    outcome.flow.add(ours: true, raw: false, typical: true, sampled: false, confidence: 0.8)
    var report = AccuracyReport()
    report.rows.append(
      AccuracyReport.Row(
        network: "Braunschweig", kind: "city", today: "busier", probes: "15 %",
        outcome: outcome))
    let lines = report.markdown.split(separator: "\n").filter { $0.hasPrefix("|") }
    #expect(lines.count == 3)
    let cells = lines.map { $0.split(separator: "|", omittingEmptySubsequences: false).count }
    #expect(Set(cells).count == 1, "cells per line: \(cells)")
    #expect(lines[2].contains("| 100.0 % | 1 |"), "the oracle's cell, then the count: \(lines[2])")
  }
}
