import Roads
import Traffic

/// The segments of the avoided road features (``RouteOptions/avoidedFeatures``).
extension RoutingEngine {
  /// The segments of `view`'s network of any of `features`, found once per network and set
  /// of features (at most seven sets of three features: a bounded cache); `nil` for none, so
  /// that a search without avoidance reads nothing more per segment.
  ///
  /// - Complexity: O(s) for the s segments the first time, O(1) after.
  func excludedSegments(_ features: Set<RoadFeature>, view: RoutingView) -> ExcludedSegments? {
    guard !features.isEmpty else { return nil }
    let known = exclusionsState.withLock { state -> ExcludedSegments? in
      guard let state, state.graph === view.graph else { return nil }
      return state.masks[features]
    }
    if let known { return known }
    let made = ExcludedSegments(network: view.network, features: features)
    exclusionsState.withLock { state in
      if state == nil || state?.graph !== view.graph { state = (view.graph, [:]) }
      state?.masks[features] = made
    }
    return made
  }
}
