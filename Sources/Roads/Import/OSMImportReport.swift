/// What an OpenStreetMap import kept and left out, for telling the user about clipped
/// extracts and bad data.
public struct OSMImportReport: Hashable, Sendable, CustomStringConvertible {
  /// Ways whose tags make them roads for motor traffic.
  public var roadWays = 0
  /// Road ways imported only in part: some of their nodes are missing from the file (an
  /// extract clipped at its border) or had invalid coordinates; the complete stretches
  /// between such nodes are kept.
  public var clippedWays = 0
  /// Road ways that gave no segment at all: fewer than two of their nodes are present, or
  /// no two present nodes are consecutive.
  public var droppedWays = 0
  /// Way node references whose node the file lacks or gave invalid coordinates.
  public var missingNodeReferences = 0
  /// Nodes left out for coordinates outside -90...90, -180...180.
  public var invalidNodes = 0
  /// Nodes of the roads defined more than once in the file without versions that tell which
  /// definition is current (no `version`, or the same one twice): the last definition in the
  /// file is used. Several versions of a node (a history file) are no duplicate: the highest
  /// is the node.
  public var duplicateNodes = 0
  /// Road ways defined more than once without versions that tell which definition is
  /// current, as ``duplicateNodes``: the last definition in the file is used.
  public var duplicateWays = 0

  /// An empty report.
  public init() {}

  /// Every count by the name of its property, in declaration order (for summaries such as
  /// `traffic network import --json`).
  public var counts: KeyValuePairs<String, Int> {
    [
      "roadWays": roadWays, "clippedWays": clippedWays, "droppedWays": droppedWays,
      "missingNodeReferences": missingNodeReferences, "invalidNodes": invalidNodes,
      "duplicateNodes": duplicateNodes, "duplicateWays": duplicateWays,
    ]
  }

  /// Whether the import left something out or had to guess: ways clipped or dropped, nodes
  /// invalid, ways or nodes defined twice.
  public var hasFindings: Bool {
    clippedWays + droppedWays + invalidNodes + duplicateNodes + duplicateWays > 0
  }

  /// One line: ways kept, clipped and dropped, and bad nodes.
  public var description: String {
    var parts = ["\(roadWays) road ways"]
    if clippedWays > 0 { parts.append("\(clippedWays) clipped (nodes missing from the file)") }
    if droppedWays > 0 { parts.append("\(droppedWays) dropped (fewer than 2 nodes present)") }
    if missingNodeReferences > 0 {
      parts.append("\(missingNodeReferences) references to missing nodes")
    }
    if invalidNodes > 0 { parts.append("\(invalidNodes) nodes with invalid coordinates left out") }
    if duplicateNodes > 0 {
      parts.append("\(duplicateNodes) nodes defined twice without versions (the last one used)")
    }
    if duplicateWays > 0 {
      parts.append("\(duplicateWays) ways defined twice without versions (the last one used)")
    }
    return parts.joined(separator: ", ")
  }
}
