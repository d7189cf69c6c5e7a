import TrafficRouting

/// The options `traffic route` and `traffic table` share.
enum RouteArguments {
  /// Reads `--depart TIME|any` into `options`: a time (RFC 3339, or relative such as +2h),
  /// or `any`, v8's planning mode (long-term closures only). `traffic route` and
  /// `traffic table` share it.
  static func departure(
    _ arguments: inout ArgumentList, into options: inout RouteOptions
  ) throws(UsageError) {
    guard let text = try arguments.option("--depart") else { return }
    if text == "any" {
      options.trafficOptimization = .longTermClosuresOnly
      return
    }
    do { options.departureTime = try IncidentOptions.time(text, option: "--depart") } catch {
      throw UsageError("\(error), or any (planning mode)")
    }
  }
}
