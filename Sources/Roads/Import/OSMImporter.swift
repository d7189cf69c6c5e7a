import Codec
import Foundation
import Synchronization
import Zlib

/// Reads OpenStreetMap data into a ``RoadNetwork``: XML (`.osm`), bzip2-compressed XML
/// (`.osm.bz2`) and PBF (`.osm.pbf`).
///
/// Only `highway=*` ways open to motor traffic are kept (rules in ``OSMImportOptions`` and
/// the importer's way profile: road classes, access, `area=yes`, oneway), and they are split
/// into directed segments at every node shared by two or more kept ways and at way ends.
/// Deleted objects (`visible="false"`, JOSM's `action="delete"`, PBF's `visible` flag) are
/// left out; of several versions of one object (history files: `.osh`, PBF with
/// `HistoricalInformation`) the highest is the object, and none when it is deleted.
/// Files are streamed: XML through Codec's `GuardedXMLReader`, which refuses a DTD with the
/// message every XML input gives and then drives Foundation's event-driven `XMLParser`
/// (bzip2 decompressed by libbz2 as it is read), PBF block by block in two passes (zlib,
/// LZ4 or Zstandard blobs), so memory grows with the road network rather than with the file.
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
  /// - Throws: as ``importNetworkReporting(from:options:)``.
  /// - Complexity: O(r log n) for r way-node references and n distinct road nodes, after one
  ///   pass over the file (two for PBF).
  public static func importNetwork(
    from url: URL, options: OSMImportOptions = OSMImportOptions()
  ) throws(RoadsError) -> RoadNetwork {
    try importNetworkReporting(from: url, options: options).network
  }

  /// Imports a file, choosing the format from its name, and tells what was left out.
  ///
  /// Extracts clipped at a border reference nodes they do not contain: the complete
  /// stretches of such ways are imported, and the report counts the ways clipped and those
  /// dropped entirely. Nodes with coordinates off the globe are left out and counted, and so
  /// are road nodes and ways defined twice without versions that tell which is current (the
  /// last definition is used).
  ///
  /// - Parameters:
  ///   - url: a local file.
  ///   - options: country for default speed limits, service roads.
  /// - Returns: the network and the import report.
  /// - Throws: ``RoadsError/unreadable(file:reason:)`` when the file cannot be opened,
  ///   ``RoadsError/malformed(file:position:reason:)`` naming the byte offset and block (PBF)
  ///   or line and column (XML) of a defect, including XML that ends before `</osm>`;
  ///   ``RoadsError/unsupported(file:reason:)`` for PBF features other than dense nodes,
  ///   history and zlib, LZ4 or Zstandard blobs, and for a file without a single road for
  ///   motor traffic.
  /// - Complexity: as ``importNetwork(from:options:)``.
  public static func importNetworkReporting(
    from url: URL, options: OSMImportOptions = OSMImportOptions()
  ) throws(RoadsError) -> (network: RoadNetwork, report: OSMImportReport) {
    try importNetworkReporting(from: url, options: options, progress: nil)
  }

  /// ``importNetworkReporting(from:options:)`` telling `progress` how far it got: bytes of
  /// each pass of a PBF file, nodes and ways read of an XML one.
  package static func importNetworkReporting(
    from url: URL, format: Format? = nil, options: OSMImportOptions, progress: ProgressReporter?
  ) throws(RoadsError) -> (network: RoadNetwork, report: OSMImportReport) {
    guard FileManager.default.isReadableFile(atPath: url.path) else {
      throw .unreadable(file: url.path, reason: "no such readable file")
    }
    let result: (network: RoadNetwork, report: OSMImportReport)
    switch format ?? Format(fileName: url.lastPathComponent) {
    case .pbf:
      var reader = PBFReader(url: url, options: options)
      reader.progress = progress
      result = try reader.read()
    case .xml:
      guard let stream = InputStream(url: url) else {
        throw .unreadable(file: url.path, reason: "cannot open a stream")
      }
      progress?.begin("network import", detail: "nodes and ways", unit: .items("elements"))
      let reader = OSMXMLReader(
        fileName: url.lastPathComponent, options: options, progress: progress)
      result = try reader.read(.stream(stream))
    case .bzip2XML:
      progress?.begin("network import", detail: "nodes and ways", unit: .items("elements"))
      result = try importBzip2(url, options: options, progress: progress)
    }
    try requireRoads(result, fileName: url.lastPathComponent)
    return result
  }

  /// Imports OpenStreetMap XML held in memory.
  ///
  /// - Parameters:
  ///   - data: the XML document.
  ///   - name: a name for the data in error messages.
  ///   - options: country for default speed limits, service roads.
  /// - Returns: the network (empty when the data holds no road).
  /// - Throws: ``RoadsError/malformed(file:position:reason:)`` naming the line and column.
  /// - Complexity: O(r log n), as ``importNetwork(from:options:)``.
  public static func importNetwork(
    xml data: Data, name: String = "OSM XML", options: OSMImportOptions = OSMImportOptions()
  ) throws(RoadsError) -> RoadNetwork {
    try importNetworkReporting(xml: data, name: name, options: options).network
  }

  /// Imports OpenStreetMap XML held in memory, and tells what was left out.
  ///
  /// - Parameters:
  ///   - data: the XML document.
  ///   - name: a name for the data in error messages.
  ///   - options: country for default speed limits, service roads.
  /// - Returns: the network (empty when the data holds no road) and the import report.
  /// - Throws: ``RoadsError/malformed(file:position:reason:)`` naming the line and column.
  /// - Complexity: O(r log n), as ``importNetwork(from:options:)``.
  public static func importNetworkReporting(
    xml data: Data, name: String = "OSM XML", options: OSMImportOptions = OSMImportOptions()
  ) throws(RoadsError) -> (network: RoadNetwork, report: OSMImportReport) {
    try OSMXMLReader(fileName: name, options: options).read(.data(data))
  }

  /// Refuses a file that gave no road, saying why.
  private static func requireRoads(
    _ result: (network: RoadNetwork, report: OSMImportReport), fileName: String
  ) throws(RoadsError) {
    guard result.network.segments.isEmpty else { return }
    throw .unsupported(
      file: fileName,
      reason: result.report.roadWays == 0
        ? "no way is a road open to motor vehicles (highway=* with motor access)"
        : "none of its \(result.report.roadWays) road ways has two nodes present (\(result.report))"
    )
  }

  /// Streams a `.bz2` file into the XML reader: libbz2 decompresses it on a thread of its
  /// own into a pipe that the parser reads, so that memory stays flat whatever the size.
  private static func importBzip2(
    _ url: URL, options: OSMImportOptions, progress: ProgressReporter?
  ) throws(RoadsError)
    -> (network: RoadNetwork, report: OSMImportReport)
  {
    let pipe = Pipe()
    // The write end is closed through its FileHandle only (which then owns no descriptor),
    // never with close(2) behind its back: the handle would close the number again when it
    // goes, by then perhaps another file's.
    let writeHandle = pipe.fileHandleForWriting
    let writer = writeHandle.fileDescriptor
    guard
      let stream = InputStream(fileAtPath: "/dev/fd/\(pipe.fileHandleForReading.fileDescriptor)")
    else {
      throw .unreadable(file: url.path, reason: "cannot stream the decompressed data")
    }
    let failure = Mutex<(any Error)?>(nil)
    let done = DispatchSemaphore(value: 0)
    let path = url.path
    let thread = Thread {
      // A reader that stops early closes the pipe: the write then fails with EPIPE instead
      // of raising SIGPIPE, which is blocked on this thread only.
      var blocked = sigset_t()
      sigemptyset(&blocked)
      sigaddset(&blocked, SIGPIPE)
      pthread_sigmask(SIG_BLOCK, &blocked, nil)
      do {
        try Bzip2File.decompress(path: path) { bytes in
          guard let base = bytes.baseAddress else { return true }
          var offset = 0
          while offset < bytes.count {
            let written = write(writer, base + offset, bytes.count - offset)
            if written < 0 {
              if errno == EINTR { continue }
              return false  // the parser stopped reading
            }
            offset += written
          }
          return true
        }
      } catch {
        failure.withLock { $0 = error }
      }
      // A SIGPIPE left pending on this thread is dropped with it; take it anyway.
      var timeout = timespec(tv_sec: 0, tv_nsec: 0)
      _ = sigtimedwait(&blocked, nil, &timeout)
      try? writeHandle.close()
      done.signal()
    }
    thread.stackSize = 1 << 20
    thread.start()
    let reader = OSMXMLReader(
      fileName: url.lastPathComponent, options: options, progress: progress)
    let result: Result<(network: RoadNetwork, report: OSMImportReport), RoadsError>
    do {
      result = .success(try reader.read(.stream(stream)))
    } catch {
      result = .failure(error)
    }
    stream.close()
    try? pipe.fileHandleForReading.close()
    done.wait()
    // A bzip2 defect explains a parse error that follows from it, so it comes first.
    if let error = failure.withLock({ $0 }) {
      throw .malformed(
        file: url.lastPathComponent, position: nil,
        reason: "bzip2: \(error)")
    }
    return try result.get()
  }
}
