import Foundation

extension ServerConfiguration {
  /// Where Linux tells a process's CPU affinity (`Cpus_allowed:`, a hexadecimal mask).
  static let processStatusPath = "/proc/self/status"

  /// The cores this process may run on: its CPU affinity (`taskset`, cpusets), not the
  /// machine's core count that `ProcessInfo.activeProcessorCount` reports. Two serving
  /// threads on one allowed core only take turns and contend for locks.
  public static var availableCores: Int {
    let machine = ProcessInfo.processInfo.activeProcessorCount
    // `sched_getaffinity` is not imported into Swift (it needs _GNU_SOURCE); the kernel
    // reports the same mask here.
    guard let status = try? String(contentsOfFile: processStatusPath, encoding: .utf8),
      let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed:") })
    else { return machine }
    let allowed = line.dropFirst("Cpus_allowed:".count).reduce(0) { count, character in
      count + (character.hexDigitValue?.nonzeroBitCount ?? 0)
    }
    return max(1, min(allowed, machine))
  }
}
