import Foundation

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// Reads OpenStreetMap data into a ``RoadNetwork``: XML (`.osm`), bzip2-compressed XML
/// (`.osm.bz2`) and PBF (`.osm.pbf`).
///
/// Only `highway=*` ways open to motor traffic are kept (rules in ``OSMImportOptions`` and
/// the importer's way profile: road classes, access, `area=yes`, oneway), and they are split
/// into directed segments at every node shared by two or more kept ways and at way ends.
/// Files are streamed: XML through Foundation's event-driven `XMLParser` (bzip2 through a
/// `bzip2 -dc` subprocess), PBF block by block in two passes, so memory grows with the road
/// network rather than with the file.
public enum OSMImporter {
  /// The file formats the importer reads.
  public enum Format: String, Sendable, CaseIterable {
    /// OpenStreetMap XML, API 0.6 (`.osm`).
    case xml
    /// OpenStreetMap XML compressed with bzip2 (`.osm.bz2`).
    case bzip2XML
    /// OpenStreetMap PBF (`.osm.pbf`).
    case pbf

    /// The format a file name's extension announces: `.pbf` is PBF, `.bz2` is bzip2 XML,
    /// anything else XML.
    public init(fileName: String) {
      let lower = fileName.lowercased()
      if lower.hasSuffix(".pbf") {
        self = .pbf
      } else if lower.hasSuffix(".bz2") {
        self = .bzip2XML
      } else {
        self = .xml
      }
    }
  }

  /// Imports a file, choosing the format from its name.
  ///
  /// - Parameters:
  ///   - url: a local file.
  ///   - options: country for default speed limits, service roads.
  /// - Returns: the network.
  /// - Throws: ``RoadsError/unreadable(file:reason:)`` when the file cannot be opened,
  ///   ``RoadsError/malformed(file:position:reason:)`` naming the byte offset and block (PBF)
  ///   or line and column (XML) of a defect, ``RoadsError/unsupported(file:reason:)`` for
  ///   PBF features other than dense nodes and zlib, and ``RoadsError/missingTool(name:reason:)``
  ///   when a `.bz2` file needs the absent `bzip2` command.
  /// - Complexity: O(r log n) for r way-node references and n distinct road nodes, after one
  ///   pass over the file (two for PBF).
  public static func importNetwork(
    from url: URL, options: OSMImportOptions = OSMImportOptions()
  ) throws(RoadsError) -> RoadNetwork {
    guard FileManager.default.isReadableFile(atPath: url.path) else {
      throw .unreadable(file: url.path, reason: "no such readable file")
    }
    switch Format(fileName: url.lastPathComponent) {
    case .pbf:
      return try PBFReader(url: url, options: options).read()
    case .xml:
      guard let stream = InputStream(url: url) else {
        throw .unreadable(file: url.path, reason: "cannot open a stream")
      }
      let reader = OSMXMLReader(fileName: url.lastPathComponent, options: options)
      return try reader.read(XMLParser(stream: stream))
    case .bzip2XML:
      return try importBzip2(url, options: options)
    }
  }

  /// Imports OpenStreetMap XML held in memory.
  ///
  /// - Parameters:
  ///   - data: the XML document.
  ///   - name: a name for the data in error messages.
  ///   - options: country for default speed limits, service roads.
  /// - Returns: the network.
  /// - Throws: ``RoadsError/malformed(file:position:reason:)`` naming the line and column.
  /// - Complexity: O(r log n), as ``importNetwork(from:options:)``.
  public static func importNetwork(
    xml data: Data, name: String = "OSM XML", options: OSMImportOptions = OSMImportOptions()
  ) throws(RoadsError) -> RoadNetwork {
    try OSMXMLReader(fileName: name, options: options).read(XMLParser(data: data))
  }

  /// The path of an executable found in `PATH` (or the usual system folders).
  static func executable(named name: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
    let folders = path.split(separator: ":").map(String.init) + ["/usr/bin", "/bin"]
    for folder in folders {
      let candidate = folder + "/" + name
      if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    return nil
  }

  /// Streams a `.bz2` file through `bzip2 -dc` into the XML reader.
  private static func importBzip2(
    _ url: URL, options: OSMImportOptions
  ) throws(RoadsError)
    -> RoadNetwork
  {
    guard let bzip2 = executable(named: "bzip2") else {
      throw .missingTool(
        name: "bzip2", reason: "install it (Debian: apt-get install bzip2) to read \(url.path)")
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: bzip2)
    process.arguments = ["-dc", url.path]
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    do {
      try process.run()
    } catch {
      throw .missingTool(name: "bzip2", reason: "\(error.localizedDescription)")
    }
    let descriptor = output.fileHandleForReading.fileDescriptor
    guard let stream = InputStream(fileAtPath: "/dev/fd/\(descriptor)") else {
      process.terminate()
      throw .unreadable(file: url.path, reason: "cannot stream the output of bzip2")
    }
    let reader = OSMXMLReader(fileName: url.lastPathComponent, options: options)
    let result: Result<RoadNetwork, RoadsError>
    do {
      result = .success(try reader.read(XMLParser(stream: stream)))
    } catch {
      result = .failure(error)
    }
    if process.isRunning {
      // The parser stopped early: stop bzip2 rather than wait for it to fill the pipe.
      process.terminate()
    }
    try? output.fileHandleForReading.close()
    let message = String(
      decoding: (try? errors.fileHandleForReading.readToEnd()) ?? Data(), as: UTF8.self)
    process.waitUntilExit()
    if case .success = result, process.terminationStatus != 0 {
      throw .malformed(
        file: url.lastPathComponent, position: nil,
        reason:
          "bzip2 failed (status \(process.terminationStatus)): \(message.trimmingWhitespace())")
    }
    if case .failure(let error) = result, process.terminationStatus != 0, !message.isEmpty {
      throw .malformed(
        file: url.lastPathComponent, position: nil,
        reason: "bzip2: \(message.trimmingWhitespace()); then \(error)")
    }
    return try result.get()
  }
}
