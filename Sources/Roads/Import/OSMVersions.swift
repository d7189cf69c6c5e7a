/// Which definition of an OpenStreetMap object a file holds more than once is the object,
/// and which are deleted.
///
/// A history file (`.osh`, or PBF with the `HistoricalInformation` feature) holds every
/// version of an object; its current state is the highest version, and none when that
/// version is deleted (as `osmium time-filter` makes a file of the present). A file that
/// defines an object twice without versions, or with the same version twice, does not say
/// which is current: the later definition is taken, and the import counts the object as a
/// duplicate.
enum OSMVersions {
  /// Whether a later definition of an object replaces the one kept so far, and whether the
  /// file left that to its order: the higher version wins; without a version on both (0) or
  /// with the same one, the later definition does, ambiguously.
  static func replaces(_ kept: Int64, by later: Int64) -> (replaces: Bool, ambiguous: Bool) {
    guard kept > 0, later > 0, kept != later else { return (true, true) }
    return (later > kept, false)
  }

  /// A version as compared: 0 for none (`nil`, or 0 and below, which libosmium also reads as
  /// unset; PBF's `Info.version` defaults to -1).
  static func normalized(_ version: Int64?) -> Int64 {
    guard let version, version > 0 else { return 0 }
    return version
  }

  /// Whether an XML element's attributes mark it deleted: `visible="false"` (a history
  /// file's deleted version, as libosmium reads it) or JOSM's `action="delete"` (deleted in
  /// the edit the file holds).
  static func isDeleted(_ attributes: [String: String]) -> Bool {
    attributes["visible"] == "false" || attributes["action"] == "delete"
  }

  /// An XML element's `version`, 0 without one.
  static func version(_ attributes: [String: String]) -> Int64 {
    normalized(attributes["version"].flatMap { Int64($0) })
  }
}
