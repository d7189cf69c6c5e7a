import Traffic

/// What went wrong in a map view, a scene, a tile or an image.
public enum MapError: Error, Hashable, Sendable {
  /// Features were set, or a pick or render asked for, before `loadScene` finished once.
  case sceneNotLoaded
  /// The task loading a scene was cancelled before the load finished; the scene that was
  /// loaded before (if any) stays.
  case loadCancelled
  /// Features were set while a scene was loading (as in the HERE SDK, wait for the load's
  /// completion first).
  case sceneLoading
  /// The mode given does not belong to the feature (`trafficIncidents` with
  /// `trafficFlowWithFreeFlow`, say).
  case unsupportedFeatureMode(feature: String, mode: String)
  /// A traffic refresh period outside 60...300 seconds.
  case invalidRefreshPeriod(seconds: Double)
  /// A view size that is not a positive number of pixels up to 8192 per side.
  case invalidSize(String)
  /// Image bytes that are not a PNG Cairo can read, or a drawn image with bad dimensions.
  case invalidImage(String)
  /// A tile outside the pyramid, or a scale other than 1 or 2.
  case invalidTile(String)
  /// Cairo failed (out of memory, usually); the message is Cairo's status.
  case renderingFailed(String)
  /// Fetching the view's traffic failed; the engine's error says why (for a remote engine,
  /// the server's: `serverUnreachable`, `authenticationFailed`, `httpError`...).
  case trafficQueryFailed(TrafficQueryError)
  /// A view of a remote engine was drawn with traffic layers on, but its traffic — for this
  /// camera, these features and this filter — was not fetched: call
  /// `MapView.refreshTraffic()` first (a server answers only asynchronously).
  case trafficNotFetched
}
