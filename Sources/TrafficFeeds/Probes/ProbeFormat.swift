import Codec
import Foundation
import Traffic

/// The document formats of vehicle probes (API.md, "Probe formats").
public enum ProbeFormat: String, CaseIterable, Hashable, Sendable {
  /// Comma-separated values with a header naming at least `id,time,lat,lng`; optional
  /// `speed` (m/s), `heading` (degrees from north), `accuracy` (m).
  case csv
  /// One JSON object per line with the keys of the CSV format.
  case ndjson
  /// SUMO floating-car data written with `--fcd-output.geo true`:
  /// `<timestep time=..><vehicle id x=lng y=lat speed angle .../>`.
  case sumoFCD = "fcd"

  /// The format's name in messages.
  public var name: String {
    switch self {
    case .csv: "CSV"
    case .ndjson: "NDJSON"
    case .sumoFCD: "SUMO FCD XML"
    }
  }

  /// Guesses the format from the first non-blank byte: `<` is FCD XML, `{` NDJSON (and `[`,
  /// a JSON array, which NDJSON's reader then names as such), anything else CSV.
  ///
  /// - Complexity: O(n) in the leading blanks.
  public static func detect(_ data: Data) -> ProbeFormat? {
    guard let first = data.first(where: { !ProbeDecoder.isBlank($0) }) else { return nil }
    switch first {
    case UInt8(ascii: "<"): return .sumoFCD
    case UInt8(ascii: "{"), UInt8(ascii: "["): return .ndjson
    default: return .csv
    }
  }
}
