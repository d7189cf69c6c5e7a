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

  /// The definition of `--avoid`, which both commands list.
  static let avoidOption = OptionDefinition(
    "--avoid", "FEATURES",
    "never drive these, comma-separated: motorway, toll, ferry (OSRM's exclude classes)")

  /// Reads `--avoid motorway,toll,ferry` into `options` (``RouteOptions/avoidedFeatures``).
  static func avoid(
    _ arguments: inout ArgumentList, into options: inout RouteOptions
  ) throws(UsageError) {
    guard let text = try arguments.option("--avoid") else { return }
    var features = Set<RoadFeature>()
    for name in text.split(separator: ",", omittingEmptySubsequences: false) {
      guard let feature = RoadFeature(rawValue: String(name)) else {
        throw UsageError(
          "--avoid expects motorway, toll or ferry, comma-separated, got '\(name)'")
      }
      features.insert(feature)
    }
    options.avoidedFeatures = features
  }
}
