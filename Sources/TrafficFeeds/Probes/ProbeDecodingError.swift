/// Why a probe document could not be read at all (single bad rows are rejected instead).
public enum ProbeDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The format could not be recognised from the content: the document is empty or holds
  /// only blanks (any other first character is read as CSV, `{` as NDJSON, `<` as FCD).
  case unknownFormat
  /// A CSV header lacks required columns; the names are listed.
  case missingColumns([String])
  /// The document's structure is broken at a line: XML that is not well formed, or that
  /// the XML guard refuses (a DTD, a wrong encoding).
  case malformed(line: Int, reason: String)
  /// A gzip-compressed document cannot be inflated (corrupt, cut off, or larger than the
  /// decoder's limit once inflated).
  case compressed(String)
  /// A gzip-compressed document inflates to more than the decoder's limit, bytes (HTTP 413,
  /// as a body over the limit).
  case inflatesBeyond(limit: Int)

  /// The error in one sentence.
  public var description: String {
    switch self {
    case .unknownFormat:
      return "the document is empty: expected CSV with a header, NDJSON or SUMO FCD XML"
    case .missingColumns(let names):
      return "the CSV header lacks the column(s) \(names.joined(separator: ", "))"
    case .malformed(let line, let reason):
      return "malformed probe document at line \(line): \(reason)"
    case .compressed(let reason):
      return "the gzip-compressed probe document cannot be inflated: \(reason)"
    case .inflatesBeyond(let limit):
      return "the gzip-compressed probe document inflates to more than \(limit) bytes"
    }
  }
}
