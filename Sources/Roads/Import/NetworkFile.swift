import Codec
import Foundation
import Zlib

/// Road network files, recognised by their first bytes, else by name: OpenStreetMap XML
/// (`.osm`, `.osm.bz2`), PBF (`.osm.pbf`) or SUMO (`.net.xml`, `.net.xml.gz`).
public enum NetworkFile {
  /// Imports the network in a file, with what an OpenStreetMap import left out.
  ///
  /// - Parameters:
  ///   - url: The file.
  ///   - countryCode: The ISO country of an OpenStreetMap extract, for default speed limits.
  /// - Returns: The network, and the import report of an OpenStreetMap file (`nil` for SUMO).
  /// - Throws: `RoadsError` naming the file and what is wrong with it;
  ///   ``RoadsError/unrecognized(file:reason:)`` for a file of none of the formats.
  public static func load(
    _ url: URL, countryCode: String? = nil
  ) throws(RoadsError) -> (network: RoadNetwork, report: OSMImportReport?) {
    try load(url, countryCode: countryCode, progress: nil)
  }

  /// ``load(_:countryCode:)`` telling `progress` how far the reading got.
  package static func load(
    _ url: URL, countryCode: String?, progress: ProgressReporter?
  ) throws(RoadsError) -> (network: RoadNetwork, report: OSMImportReport?) {
    let name = url.lastPathComponent
    if let size = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? Int,
      size == 0
    {
      throw .malformed(
        file: name, position: nil,
        reason: "the file is empty: expects OpenStreetMap (XML, .osm.bz2, PBF) or a SUMO .net.xml")
    }
    let kind = Kind(contentOf: url)
    if kind == .osmGzip {
      throw .unsupported(
        file: name,
        reason: "it is OpenStreetMap XML compressed with gzip, which is not read: decompress "
          + "it (gunzip), or give the extract as .osm.bz2 or .osm.pbf")
    }
    if kind == .sumo
      || (kind == nil && (name.hasSuffix(".net.xml") || name.hasSuffix(".net.xml.gz")))
    {
      return (try SUMONetworkImporter.importNetwork(from: url, progress: progress), nil)
    }
    var options = OSMImportOptions()
    options.countryCode = countryCode
    let format: OSMImporter.Format? =
      switch kind {
      case .osmXML: .xml
      case .osmBzip2: .bzip2XML
      case .osmPBF: .pbf
      case .sumo, .osmGzip, nil: nil
      }
    do {
      let result = try OSMImporter.importNetworkReporting(
        from: url, format: format, options: options, progress: progress)
      return (result.network, result.report)
    } catch .malformed(_, let position, let reason) where kind == nil {
      // Read as its name said, for the first bytes told nothing: the file is likely none
      // of the formats (a passwd file, a feed), which "malformed NAME" would not say.
      throw .unrecognized(
        file: name, reason: position.map { "\($0): \(reason)" } ?? reason)
    }
  }

  /// The kinds of network file, told by their first bytes: a name may say nothing (standard
  /// input, a download) or the wrong thing. A gzip file by the first bytes it inflates to (a
  /// SUMO network, which SUMO's importer inflates, or OpenStreetMap XML, which is not read).
  /// `nil` when the bytes do not tell (other text), and the name decides.
  enum Kind: Equatable {
    case osmXML, osmBzip2, osmPBF, sumo, osmGzip

    init?(contentOf url: URL) {
      guard let file = FileHandle(forReadingAtPath: url.path) else { return nil }
      defer { try? file.close() }
      guard let head = try? file.read(upToCount: 4_096), head.count >= 4 else { return nil }
      if StreamingInflater.isGzip(head) {
        guard let inflater = try? StreamingInflater(maxOutputBytes: 1 << 20),
          let start = try? inflater.inflate(head), let inner = Kind(head: start)
        else { return nil }
        self = inner == .osmXML ? .osmGzip : inner
        return
      }
      guard let kind = Kind(head: head) else { return nil }
      self = kind
    }

    /// The kind the first bytes of a file (or of what it inflates to) tell.
    init?(head: Data) {
      guard head.count >= 4 else { return nil }
      let bytes = [UInt8](head.prefix(4_096))
      if bytes.starts(with: Array("BZh".utf8)) {
        self = .osmBzip2
      } else if bytes.count > 8,
        Data(bytes[4..<min(bytes.count, 40)]).range(of: Data("OSMHeader".utf8)) != nil
      {
        self = .osmPBF
      } else if let text = String(bytes: bytes, encoding: .utf8)
        ?? String(bytes: bytes.prefix(4_000), encoding: .isoLatin1)
      {
        if text.contains("<net ") || text.contains("<net>") {
          self = .sumo
        } else if text.contains("<osm ") || text.contains("<osm>") {
          self = .osmXML
        } else {
          return nil
        }
      } else {
        return nil
      }
    }
  }
}
