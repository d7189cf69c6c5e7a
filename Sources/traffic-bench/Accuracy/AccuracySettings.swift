import Foundation
import Traffic

/// The harness's settings from the environment (`traffic-bench --help` lists them).
extension AccuracyHarness {
  /// The history days' levels TRAFFIC_ACCURACY_HISTORY_DAYS=N asks for: N days (1...12)
  /// spread evenly over the default levels' range (one day: the usual one), else the default.
  ///
  /// - Throws: `AccuracyError` (a usage error) for anything but a whole number 1...12.
  static func historyDays(
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws -> [Double] {
    guard let text = environment["TRAFFIC_ACCURACY_HISTORY_DAYS"] else {
      return historyLevels
    }
    guard let days = Int(text.trimmingCharacters(in: .whitespaces)), (1...12).contains(days)
    else {
      throw AccuracyError(
        "TRAFFIC_ACCURACY_HISTORY_DAYS=\(text) is not a whole number of days from 1 to 12",
        isUsage: true)
    }
    guard days > 1, let low = historyLevels.min(), let high = historyLevels.max() else {
      return [1.0]
    }
    return (0..<days).map { low + (high - low) * Double($0) / Double(days - 1) }
  }

  /// The flow configuration TRAFFIC_ACCURACY_SPREADS="typical,vehicle,unusual share,unusual"
  /// (and optionally ",far share,far") asks for (tuning only: the table is of the defaults),
  /// `nil` without it.
  ///
  /// - Throws: `AccuracyError` (a usage error) for anything but four or six numbers the
  ///   configuration accepts.
  static func tuning() throws -> FlowConfiguration? {
    guard let text = ProcessInfo.processInfo.environment["TRAFFIC_ACCURACY_SPREADS"] else {
      return nil
    }
    let values = text.split(separator: ",", omittingEmptySubsequences: false).map {
      Double($0.trimmingCharacters(in: .whitespaces))
    }
    let numbers = values.compactMap { $0 }
    guard values.count == 4 || values.count == 6, numbers.count == values.count
    else {
      throw AccuracyError(
        "TRAFFIC_ACCURACY_SPREADS=\(text) is not four or six numbers "
          + "\"typical,vehicle,unusual share,unusual[,far share,far]\"", isUsage: true)
    }
    var configuration = FlowConfiguration()
    configuration.typicalSpreadInLogSpeed = numbers[0]
    configuration.vehicleSpreadInLogSpeed = numbers[1]
    configuration.unusualShare = numbers[2]
    configuration.unusualSpreadInLogSpeed = numbers[3]
    if numbers.count == 6 {
      configuration.farShare = numbers[4]
      configuration.farSpreadInLogSpeed = numbers[5]
    }
    do { try configuration.validate() } catch {
      throw AccuracyError("TRAFFIC_ACCURACY_SPREADS=\(text): \(error)", isUsage: true)
    }
    return configuration
  }
}
