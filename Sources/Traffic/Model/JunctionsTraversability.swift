/// Whether the junctions along an incident's or a flow item's road can be passed, as in the
/// HERE SDK and v7 `junctionTraversability`.
///
/// The Swift case names are the v7 wire names.
public enum JunctionsTraversability: String, CaseIterable, Hashable, Sendable, Codable {
  /// Every junction can be used to enter and leave the affected stretch.
  case allOpen
  /// No junction along the stretch can be used.
  case allClosed
  /// The junctions inside the stretch are closed; the first and the last are open.
  case intermediateClosedEdgeOpen
  /// Only the first junction is open (the stretch can be left there), the others are closed.
  case startOpenOthersClosed
  /// Only the last junction is open, the others are closed.
  case endOpenOthersClosed
}
