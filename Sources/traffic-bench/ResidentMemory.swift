import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The process's resident set size (RSS), from Linux's `/proc/self/status`; on other
/// systems every reading is `nil` and peak growth is not reported.
enum ResidentMemory {
  /// Starts measuring a peak: hands freed heap back to the system (`malloc_trim`), resets
  /// the kernel's high-water mark to the current RSS (writing `5` to
  /// `/proc/self/clear_refs`, Linux 4.0+) and returns the current RSS in kibibytes.
  ///
  /// Without the reset the mark would still hold the peak of earlier benchmarks.
  /// - Returns: The current RSS, or `nil` when it cannot be read or the mark not reset.
  static func startPeak() -> Int? {
    trimHeap()
    guard let file = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return nil }
    defer { try? file.close() }
    do { try file.write(contentsOf: Data("5".utf8)) } catch { return nil }
    return kibibytes("VmRSS")
  }

  /// How far the peak RSS rose above `baseline` (from `startPeak()`), in mebibytes.
  ///
  /// - Parameter baseline: The RSS when the peak was reset, kibibytes.
  /// - Returns: The growth, or `nil` when the peak cannot be read.
  static func peakGrowthInMegabytes(since baseline: Int?) -> Double? {
    guard let baseline, let peak = kibibytes("VmHWM") else { return nil }
    return Double(max(0, peak - baseline)) / 1024
  }

  /// glibc's `malloc_trim(0)`, looked up at run time (the Glibc module does not export
  /// `<malloc.h>`); nothing on other C libraries.
  private static func trimHeap() {
    #if canImport(Glibc)
      typealias Trim = @convention(c) (Int) -> Int32
      // A null handle is RTLD_DEFAULT: the symbol as the program links it.
      guard let symbol = dlsym(nil, "malloc_trim") else { return }
      _ = unsafeBitCast(symbol, to: Trim.self)(0)
    #endif
  }

  /// A `kB` line of `/proc/self/status` (`VmRSS`, `VmHWM`).
  private static func kibibytes(_ key: String) -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else {
      return nil
    }
    for line in status.split(separator: "\n") where line.hasPrefix(key + ":") {
      let number = line.dropFirst(key.count + 1).trimmingCharacters(in: .whitespaces)
        .split(separator: " ").first
      return number.flatMap { Int($0) }
    }
    return nil
  }
}
