import Codec
import Foundation
import Traffic

/// Encodes the traffic of a tile as a Mapbox Vector Tile 2.1
/// (https://github.com/mapbox/vector-tile-spec/tree/master/2.1), with the project's own
/// Protocol Buffers writer.
///
/// Two layers, version 2, extent 4096:
/// - `flow`: one LineString (or MultiLineString) per directed road segment, in the direction
///   of travel, with `jamFactor` (double, 0...10), `speed` and `freeFlow` (double, meters per
///   second), `functionalClass` (uint, 1...5) and `traversability` (string).
/// - `incidents`: one LineString per incident (its polylines), or a Point for an incident at
///   one place, with `type`, `impact` and `originalId` (strings; the v7 wire names for
///   type and impact, `unknown` when there is none).
///
/// Geometry is clipped to the tile grown by a buffer of 64 units on each side (Liang–Barsky
/// per segment), so that lines continue cleanly across tile edges; coordinates are rounded
/// to the grid and repeated points dropped. Roads of the functional classes hidden at the
/// tile's zoom (see the map's style) are left out, which keeps low-zoom tiles small.
public enum VectorTileEncoder {
  /// Grid units per tile side.
  public static let extent = 4096
  /// Units beyond each tile edge that geometry is kept for.
  public static let buffer = 64

  /// The vector tile of a tile from the engine's current snapshots.
  ///
  /// - Parameters:
  ///   - tile: The tile.
  ///   - engine: Where flow and incidents come from.
  /// - Returns: The tile's bytes (uncompressed protobuf; gzip is the server's business).
  /// - Complexity: O(s + i) in the segment and incident vertices meeting the tile.
  public static func encode(tile: TileID, engine: TrafficEngine) -> Data {
    let projection = ViewProjection(tile: tile, pixels: Double(extent))
    let box = projection.coveringBox(marginInPixels: Double(buffer))
    let content = TrafficContent.fetch(
      engine: engine, box: box, zoom: Double(tile.zoom), flowMode: .trafficFlowWithFreeFlow,
      incidents: true, incidentTypes: [])
    return encode(content, projection: projection)
  }

  /// The vector tile of content already read.
  static func encode(_ content: TrafficContent, projection: ViewProjection) -> Data {
    var flow = LayerBuilder(name: "flow")
    for item in content.flows {
      let lines = clippedLines(projection.points(item.flow.location))
      guard !lines.isEmpty else { continue }
      flow.addFeature(
        id: UInt64(item.flow.segmentID), type: 2, geometry: lineGeometry(lines),
        attributes: [
          ("jamFactor", .double(item.flow.jamFactor)),
          ("speed", .double(item.flow.speedInMetersPerSecond)),
          ("freeFlow", .double(item.flow.freeFlowSpeedInMetersPerSecond)),
          ("functionalClass", .uint(UInt64(max(0, item.flow.functionalClass)))),
          ("traversability", .string(item.flow.traversability.rawValue)),
        ])
    }
    var incidents = LayerBuilder(name: "incidents")
    for (index, incident) in content.incidents.enumerated() {
      let attributes: [(String, LayerBuilder.Value)] = [
        ("type", .string(incident.type.wireName ?? "unknown")),
        ("impact", .string(incident.impact.wireName ?? "unknown")),
        ("originalId", .string(incident.originalId)),
      ]
      let lines = incident.location.allPolylines.filter { $0.lengthInMeters > 0 }
        .flatMap { clippedLines(projection.points($0)) }
      if !lines.isEmpty {
        incidents.addFeature(
          id: UInt64(index + 1), type: 2, geometry: lineGeometry(lines), attributes: attributes)
      } else if let point = gridPoint(projection.point(incident.location.polyline.vertices[0])),
        abs(point.x - extent / 2) <= extent / 2 + buffer,
        abs(point.y - extent / 2) <= extent / 2 + buffer
      {
        incidents.addFeature(
          id: UInt64(index + 1), type: 1, geometry: pointGeometry(point), attributes: attributes)
      }
    }
    var tile = ProtobufWriter()
    for layer in [flow, incidents] where !layer.isEmpty { tile.bytes(3, layer.encoded()) }
    return Data(tile.bytes)
  }

  struct GridPoint: Hashable {
    var x: Int
    var y: Int
  }

  private static func gridPoint(_ point: Point2D) -> GridPoint? {
    guard point.x.isFinite, point.y.isFinite, abs(point.x) < 1e9, abs(point.y) < 1e9 else {
      return nil
    }
    return GridPoint(x: Int(point.x.rounded()), y: Int(point.y.rounded()))
  }

  /// The pieces of a line inside the buffered tile, on the grid, without repeated points.
  static func clippedLines(_ points: [Point2D]) -> [[GridPoint]] {
    let low = Double(-buffer), high = Double(extent + buffer)
    var lines: [[GridPoint]] = []
    var current: [GridPoint] = []
    func append(_ point: Point2D) {
      guard let grid = gridPoint(point) else { return }
      if current.last != grid { current.append(grid) }
    }
    func finish() {
      if current.count >= 2 { lines.append(current) }
      current = []
    }
    guard points.count >= 2 else { return [] }
    for i in 0..<(points.count - 1) {
      let a = points[i], b = points[i + 1]
      guard let (t0, t1) = ScreenGeometry.clip(a, b, minX: low, minY: low, maxX: high, maxY: high)
      else {
        finish()
        continue
      }
      let start = Point2D(x: a.x + t0 * (b.x - a.x), y: a.y + t0 * (b.y - a.y))
      let end = Point2D(x: a.x + t1 * (b.x - a.x), y: a.y + t1 * (b.y - a.y))
      if t0 > 0 { finish() }
      append(start)
      append(end)
      if t1 < 1 { finish() }
    }
    finish()
    return lines
  }

  private static func command(_ id: UInt32, count: Int) -> UInt32 {
    (id & 0x7) | (UInt32(count) << 3)
  }

  /// MoveTo / LineTo commands with zigzag deltas from a cursor that starts at (0, 0) and
  /// carries across the parts of a MultiLineString (spec 4.3).
  static func lineGeometry(_ lines: [[GridPoint]]) -> [UInt32] {
    var commands: [UInt32] = []
    var cursor = GridPoint(x: 0, y: 0)
    func delta(_ point: GridPoint) {
      commands.append(Varint.zigzag32(Int32(truncatingIfNeeded: point.x - cursor.x)))
      commands.append(Varint.zigzag32(Int32(truncatingIfNeeded: point.y - cursor.y)))
      cursor = point
    }
    for line in lines {
      commands.append(command(1, count: 1))
      delta(line[0])
      commands.append(command(2, count: line.count - 1))
      for point in line.dropFirst() { delta(point) }
    }
    return commands
  }

  static func pointGeometry(_ point: GridPoint) -> [UInt32] {
    [
      command(1, count: 1), Varint.zigzag32(Int32(truncatingIfNeeded: point.x)),
      Varint.zigzag32(Int32(truncatingIfNeeded: point.y)),
    ]
  }
}

/// One layer of a vector tile: features with attributes as indices into shared key and
/// value tables (spec 4.2, 4.4).
struct LayerBuilder {
  enum Value: Hashable {
    case string(String)
    case double(Double)
    case uint(UInt64)
  }

  let name: String
  private var keys: [String] = []
  private var keyIndex: [String: Int] = [:]
  private var values: [Value] = []
  private var valueIndex: [Value: Int] = [:]
  private var features: [[UInt8]] = []

  init(name: String) { self.name = name }

  var isEmpty: Bool { features.isEmpty }

  /// The position of `item` in a layer's key or value table, added at the end when new.
  private static func intern<Item: Hashable>(
    _ item: Item, in table: inout [Item], _ positions: inout [Item: Int]
  ) -> Int {
    if let position = positions[item] { return position }
    table.append(item)
    positions[item] = table.count - 1
    return table.count - 1
  }

  mutating func addFeature(
    id: UInt64, type: UInt64, geometry: [UInt32], attributes: [(String, Value)]
  ) {
    var tags: [UInt32] = []
    for (key, value) in attributes {
      tags.append(UInt32(Self.intern(key, in: &keys, &keyIndex)))
      tags.append(UInt32(Self.intern(value, in: &values, &valueIndex)))
    }
    var feature = ProtobufWriter()
    feature.uint(1, id)
    feature.packed(2, tags)
    feature.uint(3, type)
    feature.packed(4, geometry)
    features.append(feature.bytes)
  }

  /// The layer message: version 2, name, features, keys, values, extent.
  func encoded() -> [UInt8] {
    var layer = ProtobufWriter()
    layer.uint(15, 2)
    layer.string(1, name)
    for feature in features { layer.bytes(2, feature) }
    for key in keys { layer.string(3, key) }
    for value in values {
      var message = ProtobufWriter()
      switch value {
      case .string(let text): message.string(1, text)
      case .double(let number): message.double(3, number)
      case .uint(let number): message.uint(5, number)
      }
      layer.bytes(4, message.bytes)
    }
    layer.uint(5, UInt64(VectorTileEncoder.extent))
    return layer.bytes
  }
}
