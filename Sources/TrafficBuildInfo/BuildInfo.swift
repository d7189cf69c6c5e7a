/// What was built: the release version and the git revision of the source tree, written
/// into the build by `Plugins/BuildInfoPlugin` (the version from the repository's `VERSION`
/// file). `traffic --version`, `/healthz` and the `traffic_build_info` metric show them.
public enum BuildInfo {
  /// The release version, such as `0.9.0`.
  public static let version: String = generatedVersion
  /// The git revision built (12 hex digits, `-dirty` when the tree had uncommitted changes),
  /// or `unknown` outside a git checkout.
  public static let revision: String = generatedRevision

  /// One line naming both: `0.9.0 (abcdef123456)`.
  public static var description: String { "\(version) (\(revision))" }
}
