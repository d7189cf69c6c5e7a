import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Shows how long work is getting on, for people waiting on a command or reading its log.
///
/// Work runs as steps (`begin`), each with an optional total and a unit; the code doing it
/// reports how far it got (`update`, `advance`), as often as it likes — reporting only
/// stores numbers. What is shown depends on the mode:
/// - ``Mode/terminal`` (standard error is a terminal): one line redrawn in place
///   (`\r`, erase to the end of the line) at most every ``terminalInterval`` seconds, erased
///   by ``finish()`` before the command prints its summary;
/// - ``Mode/log`` (a file, a pipe, CI): no carriage returns; one plain line per
///   ``logInterval`` seconds for a step still running;
/// - ``Mode/quiet``: nothing.
///
/// A line reads `network import: ways · 41 % of 77.4 MB · 12.3 MB/s · ~38 s left · 21 s`:
/// the step, its detail, the share of the total when the total is known (else the count),
/// the rate over the step, an estimate of the time left, and the step's time so far. A
/// background timer draws while the work reports nothing (a long silent phase still shows
/// its time).
package final class ProgressReporter: Sendable {
  /// Where the lines go.
  package enum Mode: Sendable {
    case terminal, log, quiet
  }

  /// What a step counts.
  package enum Unit: Sendable {
    /// Bytes, shown as kB, MB, GB.
    case bytes
    /// Things with a name (`"probes"`, `"ways"`).
    case items(String)
  }

  package let mode: Mode
  /// Least seconds between two redraws on a terminal.
  package let terminalInterval: Double
  /// Seconds between two lines in a log.
  package let logInterval: Double
  private let write: @Sendable (String) -> Void
  private let clock: @Sendable () -> Double
  private let state = Mutex(State())
  /// The timer that draws while the work reports nothing (thread-safe by itself).
  private nonisolated(unsafe) let timer: (any DispatchSourceTimer)?

  private struct State {
    var task: String?
    var detail = ""
    var total: Int64?
    var done: Int64 = 0
    var unit = Unit.items("")
    var started = 0.0
    var lastDrawn = -Double.infinity
    var drawnOnTerminal = false
    /// The text on the terminal, not drawn again unchanged.
    var lastLine = ""
  }

  /// A reporter writing through `write`.
  ///
  /// - Parameters:
  ///   - mode: terminal, log or quiet.
  ///   - write: receives the text to put on standard error.
  ///   - clock: seconds on a monotonic clock (tests pass their own).
  ///   - ticks: whether a background timer draws while the work reports nothing.
  package init(
    mode: Mode, terminalInterval: Double = 0.25, logInterval: Double = 10,
    ticks: Bool = true, write: @escaping @Sendable (String) -> Void,
    clock: @escaping @Sendable () -> Double = ProgressReporter.monotonicSeconds
  ) {
    self.mode = mode
    self.terminalInterval = terminalInterval
    self.logInterval = logInterval
    self.write = write
    self.clock = clock
    if ticks, mode != .quiet {
      let source = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
      let interval = max(0.05, mode == .terminal ? terminalInterval : min(logInterval, 1))
      source.schedule(deadline: .now() + interval, repeating: interval)
      timer = source
    } else {
      timer = nil
    }
    timer?.setEventHandler { [weak self] in self?.drawIfDue() }
    timer?.resume()
  }

  deinit {
    timer?.cancel()
  }

  /// A reporter on the process's standard error: a terminal line when standard error is a
  /// terminal, log lines otherwise; nothing when `quiet`.
  package static func standardError(quiet: Bool) -> ProgressReporter {
    let mode: Mode = quiet ? .quiet : (isatty(2) == 1 ? .terminal : .log)
    return ProgressReporter(mode: mode) { StandardStream.error.write($0) }
  }

  /// Seconds on the system's monotonic clock.
  package static func monotonicSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
  }

  // MARK: Reporting

  /// Starts a step (ending the one before).
  ///
  /// - Parameters:
  ///   - task: what runs (`"network import"`).
  ///   - detail: the phase within it (`"ways"`), shown after the task.
  ///   - total: how many units the step has, when known.
  ///   - unit: what it counts.
  package func begin(_ task: String, detail: String = "", total: Int64? = nil, unit: Unit) {
    let now = clock()
    state.withLock {
      $0.task = task
      $0.detail = detail
      $0.total = total
      $0.done = 0
      $0.unit = unit
      $0.started = now
      // On a terminal the first line of a step waits one interval (short steps show
      // nothing); a log gets a line every interval of the whole run, whatever its steps.
      if mode == .terminal || $0.lastDrawn == -.infinity { $0.lastDrawn = now }
    }
  }

  /// Sets how many units are done (and, optionally, the phase).
  package func update(done: Int64, detail: String? = nil) {
    state.withLock {
      $0.done = done
      if let detail { $0.detail = detail }
    }
    drawIfDue()
  }

  /// Adds `units` to those done.
  package func advance(by units: Int64) {
    state.withLock { $0.done += units }
    drawIfDue()
  }

  /// Ends the step: the terminal line is erased, so that the command's summary line
  /// stands alone.
  package func finish() {
    let erase = state.withLock { state -> Bool in
      defer {
        state.task = nil
        state.drawnOnTerminal = false
      }
      return state.drawnOnTerminal
    }
    if erase, mode == .terminal { write("\r\u{1B}[K") }
  }

  /// Erases the terminal line without ending the step (before another line is written to
  /// standard error); the next draw shows it again.
  package func clear() {
    let erase = state.withLock { state -> Bool in
      defer { state.drawnOnTerminal = false }
      return state.drawnOnTerminal
    }
    if erase, mode == .terminal { write("\r\u{1B}[K") }
  }

  /// Stops the background timer (a reporter that is done for good).
  package func stop() {
    finish()
    timer?.cancel()
  }

  // MARK: Drawing

  /// Draws the line when the interval since the last one has passed.
  package func drawIfDue() {
    guard mode != .quiet else { return }
    let now = clock()
    let interval = mode == .terminal ? terminalInterval : logInterval
    let line = state.withLock { state -> String? in
      guard let task = state.task, now - state.lastDrawn >= interval else { return nil }
      state.lastDrawn = now
      let line = ProgressReporter.line(
        task: task, detail: state.detail, done: state.done, total: state.total,
        unit: state.unit, elapsed: now - state.started)
      if mode == .terminal {
        if state.drawnOnTerminal, line == state.lastLine { return nil }
        state.drawnOnTerminal = true
        state.lastLine = line
      }
      return line
    }
    guard let line else { return }
    write(mode == .terminal ? "\r\(line)\u{1B}[K" : "progress: \(line)\n")
  }

  /// The text of a progress line.
  package static func line(
    task: String, detail: String, done: Int64, total: Int64?, unit: Unit, elapsed: Double
  ) -> String {
    var parts = [detail.isEmpty ? task : "\(task): \(detail)"]
    if let total, total > 0 {
      let share = min(100, Int((Double(done) / Double(total) * 100).rounded(.down)))
      parts.append("\(share) % of \(amount(total, unit))")
    } else if done > 0 {
      parts.append(amount(done, unit))
    }
    if elapsed >= 1, done > 0 {
      let rate = Double(done) / elapsed
      parts.append("\(amount(Int64(rate.rounded()), unit))/s")
      if let total, total > done, rate > 0 {
        parts.append("~\(duration(Double(total - done) / rate)) left")
      }
    }
    parts.append(duration(elapsed))
    return parts.joined(separator: " · ")
  }

  /// A count in its unit: `12,345 probes`, `77.4 MB`.
  package static func amount(_ value: Int64, _ unit: Unit) -> String {
    switch unit {
    case .bytes:
      let units = [("GB", 1e9), ("MB", 1e6), ("kB", 1e3)]
      for (name, size) in units where Double(value) >= size {
        return String(format: "%.1f %@", Double(value) / size, name)
      }
      return "\(value) B"
    case .items(let name):
      var digits = String(value)
      var grouped = ""
      while digits.count > 3 {
        grouped = "," + digits.suffix(3) + grouped
        digits.removeLast(3)
      }
      let number = digits + grouped
      return name.isEmpty ? number : "\(number) \(name)"
    }
  }

  /// Seconds as `8 s`, `3 min 12 s`, `1 h 4 min`.
  package static func duration(_ seconds: Double) -> String {
    let whole = Int(max(0, seconds).rounded(.down))
    if whole < 60 { return "\(whole) s" }
    if whole < 3_600 { return "\(whole / 60) min \(whole % 60) s" }
    return "\(whole / 3_600) h \(whole % 3_600 / 60) min"
  }
}
