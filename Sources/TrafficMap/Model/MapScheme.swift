/// The look of the basemap a scene loads (HERE SDK `MapScheme`).
public enum MapScheme: String, CaseIterable, Hashable, Sendable {
  /// Light background, white streets with grey casings, coloured major roads.
  case normalDay
  /// Light grey background and pale roads, so that traffic layers stand out.
  case liteDay
}
