import Codec
import Foundation

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// Streams OpenStreetMap XML (API 0.6 format) through Codec's `GuardedXMLReader` (the
/// guard, then Foundation's event-driven `XMLParser`), feeding ways and node coordinates to
/// an ``OSMNetworkBuilder``.
///
/// XML files list all nodes before the ways, so this reader keeps every node's coordinates
/// (about 50 bytes per node in a dictionary, with its version) until the ways are known; PBF
/// files are read in two passes instead (see ``PBFReader``). Deleted objects and several
/// versions of one (history files, `.osh`) are read as ``OSMVersions`` says.
final class OSMXMLReader: NSObject, XMLParserDelegate {
  /// The definition of a node kept: its coordinates (NaN when deleted or off the globe),
  /// version (0: none), and whether another definition tied with it.
  private struct NodeDefinition {
    var latitude: Double
    var longitude: Double
    var version: Int32
    var duplicated = false
  }

  private let fileName: String
  private let options: OSMImportOptions
  private var nodes: [Int64: NodeDefinition] = [:]
  private(set) var builder = OSMNetworkBuilder()
  private var wayID: Int64?
  private var wayVersion: Int64 = 0
  private var wayDeleted = false
  private var wayRefs: [Int64] = []
  private var wayTags: [String: String] = [:]
  private(set) var failure: RoadsError?
  private var sawRoot = false
  private var closedRoot = false

  /// Told the nodes and ways read.
  private let progress: ProgressReporter?
  private var elements: Int64 = 0

  init(fileName: String, options: OSMImportOptions, progress: ProgressReporter? = nil) {
    self.fileName = fileName
    self.options = options
    self.progress = progress
  }

  /// Parses the document and returns the finished network.
  ///
  /// - Throws: ``RoadsError/malformed(file:position:reason:)`` naming the line and column
  ///   (the byte for a document the guard refuses, such as one with a DTD), also for a file
  ///   that ends before `</osm>` (truncated); ``RoadsError/unreadable(file:reason:)`` when
  ///   the stream fails.
  func read(
    _ source: GuardedXMLReader.Source
  ) throws(RoadsError) -> (
    network: RoadNetwork, report: OSMImportReport
  ) {
    try NetworkXML.parse(
      source, delegate: self, fileName: fileName, root: "osm",
      delegateFailure: { failure }, rootState: { (sawRoot, closedRoot) })
    return finish()
  }

  private func finish() -> (network: RoadNetwork, report: OSMImportReport) {
    builder.finishWays()
    for (index, id) in builder.nodeIDs.enumerated() {
      guard let node = nodes[id] else { continue }
      if node.duplicated { builder.duplicateNodes += 1 }
      if !node.latitude.isNaN {
        builder.setCoordinates(index: index, latitude: node.latitude, longitude: node.longitude)
      }
    }
    nodes = [:]
    return builder.build()
  }

  /// Keeps a node's definition, or the one before, as ``OSMVersions`` says.
  private func define(_ id: Int64, _ definition: NodeDefinition) {
    guard let kept = nodes[id] else {
      nodes[id] = definition
      return
    }
    let (replaces, ambiguous) = OSMVersions.replaces(
      Int64(kept.version), by: Int64(definition.version))
    guard replaces else { return }
    var later = definition
    later.duplicated = ambiguous
    nodes[id] = later
  }

  private func fail(_ parser: XMLParser, _ reason: String) {
    guard failure == nil else { return }
    failure = .malformed(
      file: fileName, position: "line \(parser.lineNumber), column \(parser.columnNumber)",
      reason: reason)
    parser.abortParsing()
  }

  func parser(
    _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
    qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]
  ) {
    if progress != nil, elementName == "node" || elementName == "way" {
      elements += 1
      if elements & 0x3FF == 0 { progress?.update(done: elements) }
    }
    switch elementName {
    case "osm":
      sawRoot = true
    case "node":
      guard let id = attributeDict["id"].flatMap({ Int64($0) }) else {
        return fail(parser, "node without a valid id")
      }
      var definition = NodeDefinition(
        latitude: .nan, longitude: .nan,
        version: Int32(clamping: OSMVersions.version(attributeDict)))
      // A deleted node (whose position, if any, is its last before the deletion) and one
      // without a position leave the node out.
      if !OSMVersions.isDeleted(attributeDict), let latText = attributeDict["lat"],
        let lonText = attributeDict["lon"]
      {
        // A node off the globe is left out (and counted); ways through it are cut there.
        if let lat = Double(latText), let lon = Double(lonText), (-90...90).contains(lat),
          (-180...180).contains(lon)
        {
          definition.latitude = lat
          definition.longitude = lon
        } else {
          builder.invalidNodes += 1
        }
      }
      define(id, definition)
    case "way":
      guard let id = attributeDict["id"].flatMap({ Int64($0) }) else {
        return fail(parser, "way without a valid id")
      }
      wayID = id
      wayVersion = OSMVersions.version(attributeDict)
      wayDeleted = OSMVersions.isDeleted(attributeDict)
      wayRefs.removeAll(keepingCapacity: true)
      wayTags.removeAll(keepingCapacity: true)
    case "nd":
      guard wayID != nil else { return }
      guard let ref = attributeDict["ref"].flatMap({ Int64($0) }) else {
        return fail(parser, "way node reference without a valid ref")
      }
      wayRefs.append(ref)
    case "tag":
      guard wayID != nil, let key = attributeDict["k"], let value = attributeDict["v"] else {
        return
      }
      wayTags[key] = value
    default:
      break
    }
  }

  func parser(
    _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?,
    qualifiedName qName: String?
  ) {
    if elementName == "osm" { closedRoot = true }
    guard elementName == "way", let id = wayID else { return }
    builder.addWay(
      id: id, version: wayVersion, deleted: wayDeleted, nodeIDs: wayRefs, tags: wayTags,
      options: options)
    wayID = nil
  }
}
