import Foundation

/// The demo's time: the wall clock, or a clock running `speedFactor` times faster from the
/// moment the demo starts.
///
/// Flow estimation measures speeds as distance over the time between a vehicle's probes, and
/// averages over a window of minutes, so a simulation replayed faster than real time must
/// keep its own seconds: probes carry simulated time and the engine must read the same
/// clock. At 1× this clock is the wall clock; at 10× a five-minute flow window passes in 30
/// wall seconds and a 20-minute jam cycle in 2 minutes. Give the engine
/// `clock: demoClock.now` when it serves a sped-up demo (incident times are then in demo
/// time too, which is what a sped-up demo means).
package struct DemoClock: Sendable {
  /// The wall time the clock started at; demo time and wall time agree there.
  package let origin: Date
  /// Demo seconds per wall second, 1...60.
  package let speedFactor: Double

  /// Creates a clock.
  ///
  /// - Parameters:
  ///   - speedFactor: demo seconds per wall second, 1...60.
  ///   - origin: when demo time and wall time agree; now by default.
  /// - Throws: ``DemoError/invalidArgument(_:)`` for a factor outside 1...60.
  package init(speedFactor: Double = 1, origin: Date = Date()) throws(DemoError) {
    guard speedFactor.isFinite, speedFactor >= 1, speedFactor <= 60 else {
      throw .invalidArgument("the demo speed factor \(speedFactor) must be within 1...60")
    }
    self.speedFactor = speedFactor
    self.origin = origin
  }

  /// The demo time now.
  package func now() -> Date { demoTime(atWallTime: Date()) }

  /// The demo time at a wall time.
  ///
  /// - Parameter wall: a wall-clock time.
  /// - Returns: `origin + (wall − origin) × speedFactor`.
  package func demoTime(atWallTime wall: Date) -> Date {
    origin.addingTimeInterval(wall.timeIntervalSince(origin) * speedFactor)
  }

  /// The wall time at which the demo clock shows `demoTime`.
  ///
  /// - Parameter demoTime: a demo time.
  /// - Returns: `origin + (demoTime − origin) / speedFactor`.
  package func wallTime(atDemoTime demoTime: Date) -> Date {
    origin.addingTimeInterval(demoTime.timeIntervalSince(origin) / speedFactor)
  }
}
