import Foundation
import Testing

@testable import traffic_bench

/// The accuracy harness's settings from the environment (`traffic-bench --accuracy`).
@Suite struct AccuracySettingsTests {
  @Test("without TRAFFIC_ACCURACY_HISTORY_DAYS the harness learns its three history days")
  func defaultHistory() throws {
    #expect(try AccuracyHarness.historyDays(environment: [:]) == [0.9, 1.0, 1.1])
  }

  @Test("N history days spread their demand levels evenly over the default range")
  func spreadHistory() throws {
    let five = try AccuracyHarness.historyDays(
      environment: ["TRAFFIC_ACCURACY_HISTORY_DAYS": "5"])
    #expect(five.count == 5)
    for (level, expected) in zip(five, [0.9, 0.95, 1.0, 1.05, 1.1]) {
      #expect(abs(level - expected) < 1e-12)
    }
    #expect(
      try AccuracyHarness.historyDays(environment: ["TRAFFIC_ACCURACY_HISTORY_DAYS": " 1"])
        == [1.0])
  }

  @Test(
    "a history that is not a whole number of days from 1 to 12 is a usage error naming it",
    arguments: ["0", "13", "-2", "three", "2.5", ""])
  func badHistory(_ text: String) {
    do {
      let levels = try AccuracyHarness.historyDays(
        environment: ["TRAFFIC_ACCURACY_HISTORY_DAYS": text])
      Issue.record("\(text) gave \(levels)")
    } catch let error as AccuracyError {
      #expect(error.isUsage)
      #expect(error.description.contains("TRAFFIC_ACCURACY_HISTORY_DAYS=\(text)"))
    } catch {
      Issue.record("unexpected \(error)")
    }
  }
}
