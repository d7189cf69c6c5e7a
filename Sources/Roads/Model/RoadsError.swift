import Codec

/// What went wrong while reading or building a road network.
///
/// File errors name the file and where in it the problem was found (a byte offset and block
/// for binary files, a line and column for XML), so that a bad download can be located.
public enum RoadsError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The file does not exist or cannot be opened.
  case unreadable(file: String, reason: String)
  /// The file's content breaks its format: truncated, corrupt, or out of bounds.
  case malformed(file: String, position: String?, reason: String)
  /// The file is well formed but uses a feature this importer does not handle (an unknown
  /// projection, a PBF compression other than zlib, LZ4 and Zstandard, a required PBF
  /// feature).
  case unsupported(file: String, reason: String)
  /// The file is none of the formats a road network is read from: its first bytes are not
  /// OpenStreetMap's nor SUMO's, and reading it as its name suggests failed for `reason`.
  case unrecognized(file: String, reason: String)
  /// A value passed by the caller is out of range or inconsistent.
  case invalidArgument(String)

  /// The error in one sentence, naming the file and position.
  public var description: String {
    switch self {
    case .unreadable(let file, let reason):
      return "cannot read \(file): \(reason)"
    case .malformed(let file, let position, let reason):
      if let position { return "malformed \(file) at \(position): \(reason)" }
      return "malformed \(file): \(reason)"
    case .unsupported(let file, let reason):
      return "unsupported content in \(file): \(reason)"
    case .unrecognized(let file, let reason):
      return "\(file): \(Self.unrecognizedFormat): \(reason)"
    case .invalidArgument(let reason):
      return "invalid argument: \(reason)"
    }
  }
}

extension RoadsError {
  /// What ``unrecognized(file:reason:)`` says of the file, after its name.
  public static let unrecognizedFormat =
    "not an OpenStreetMap (XML, .osm.bz2, PBF) or SUMO .net.xml file"

  /// Binary data (a stored network, flow state or probe batch) that cannot be read, as a
  /// malformed file.
  package init(_ error: BinaryDataError) {
    self = .malformed(file: error.name, position: "byte \(error.offset)", reason: error.reason)
  }
}
