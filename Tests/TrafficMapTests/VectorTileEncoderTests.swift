import Codec
import Foundation
import Testing
import Traffic

@testable import TrafficMap

@Suite struct VectorTileEncoderTests {
  @Test func roundTripThroughAnIndependentDecoder() throws {
    let engine = try SyntheticCity.engine()
    // A zoom 14 tile holds the whole town.
    let tile = try TileID(containing: SyntheticCity.center, zoom: 14)
    let layers = try VectorTileDecoder.decode(VectorTileEncoder.encode(tile: tile, engine: engine))
    #expect(layers.map(\.name) == ["flow", "incidents"])
    #expect(layers.allSatisfy { $0.version == 2 && $0.extent == 4096 })
    let flow = try #require(layers.first)
    // Nine directed segments, all of classes visible at zoom 14.
    #expect(flow.features.count == 9)
    #expect(Set(flow.features.map(\.id)) == Set(0...8))
    let jam = try #require(flow.features.first { $0.id == UInt64(SyntheticCity.jammedEastbound) })
    #expect(jam.type == 2)
    #expect(jam.attributes["jamFactor"] == .double(9))
    #expect(jam.attributes["functionalClass"] == .uint(2))
    #expect(jam.attributes["freeFlow"] == .double(13.9))
    #expect(jam.attributes["traversability"] == .string("open"))
    if case .double(let speed) = jam.attributes["speed"] {
      #expect(abs(speed - 13.9 * 0.1) < 1e-9)
    } else {
      Issue.record("speed is not a double")
    }
    let blocked = try #require(flow.features.first { $0.id == UInt64(SyntheticCity.blockedBypass) })
    #expect(blocked.attributes["jamFactor"] == .double(10))
    #expect(blocked.attributes["traversability"] == .string("closed"))
    // Geometry: the segment's ends, projected into the tile's 4096 grid.
    let projection = ViewProjection(tile: tile, pixels: 4096)
    let start = projection.point(SyntheticCity.point(47.000, 9.500))
    let end = projection.point(SyntheticCity.point(47.000, 9.510))
    #expect(jam.parts.count == 1 && jam.parts[0].count == 2)
    #expect(
      jam.parts[0][0].x == Int(start.x.rounded()) && jam.parts[0][0].y == Int(start.y.rounded()))
    #expect(jam.parts[0][1].x == Int(end.x.rounded()) && jam.parts[0][1].y == Int(end.y.rounded()))

    let incidents = layers[1]
    #expect(incidents.features.count == 3)
    let byId = Dictionary(
      uniqueKeysWithValues: incidents.features.compactMap {
        feature -> (String, VectorTileDecoder.Feature)? in
        guard case .string(let id) = feature.attributes["originalId"] else { return nil }
        return (id, feature)
      })
    #expect(Set(byId.keys) == ["accident", "closure", "works"])
    #expect(byId["accident"]?.type == 1)
    #expect(byId["accident"]?.attributes["type"] == .string("accident"))
    #expect(byId["accident"]?.attributes["impact"] == .string("critical"))
    #expect(byId["closure"]?.type == 2)
    #expect(byId["closure"]?.attributes["type"] == .string("roadClosure"))
    #expect(byId["works"]?.attributes["impact"] == .string("minor"))
  }

  @Test func aTileOverMoreIncidentsThanOneAnswerHoldsShowsTheMostSevereNotNone() throws {
    // The engine's answers hold at most two incidents; the town has three. The tile's query
    // once failed on that limit and the tile showed no incident at all.
    let store = InMemoryTrafficStore()
    try store.apply(IncidentBatch(upserts: try SyntheticCity.incidents()))
    let engine = try TrafficEngine(
      store: store, limits: TrafficQueryLimits(maxResults: 2), clock: { SyntheticCity.now },
      network: try SyntheticCity.network())
    let tile = try TileID(containing: SyntheticCity.center, zoom: 14)
    let layers = try VectorTileDecoder.decode(VectorTileEncoder.encode(tile: tile, engine: engine))
    let incidents = try #require(layers.first { $0.name == "incidents" })
    #expect(incidents.features.count == 2)
    let ids = incidents.features.compactMap { feature -> String? in
      if case .string(let id)? = feature.attributes["originalId"] { return id }
      return nil
    }
    #expect(Set(ids) == ["accident", "closure"])
  }

  @Test func linesAreClippedToTheBufferedTile() throws {
    let engine = try SyntheticCity.engine(incidents: false)
    // At zoom 18 a tile is about 114 m wide: Main Street's 760 m blocks cross it.
    let tile = try TileID(containing: SyntheticCity.point(47.000, 9.5045), zoom: 18)
    let layers = try VectorTileDecoder.decode(VectorTileEncoder.encode(tile: tile, engine: engine))
    let flow = try #require(layers.first { $0.name == "flow" })
    #expect(Set(flow.features.map(\.id)) == [0, 1])
    for feature in flow.features {
      for part in feature.parts {
        for point in part {
          #expect((-64...4160).contains(point.x) && (-64...4160).contains(point.y))
        }
      }
      // Eastbound runs from the west edge of the buffer to the east edge.
      let xs = feature.parts.flatMap { $0.map(\.x) }
      #expect(xs.min() == -64 && xs.max() == 4160)
    }
  }

  @Test func anEmptyTileHasNoLayers() throws {
    let engine = try SyntheticCity.engine()
    let far = try TileID(
      containing: try GeoCoordinates(latitude: -33.9, longitude: 151.2), zoom: 14)
    #expect(VectorTileEncoder.encode(tile: far, engine: engine).isEmpty)
  }

  @Test func zigzagAndVarintsFollowTheProtobufEncoding() {
    #expect(Varint.zigzag32(0) == 0)
    #expect(Varint.zigzag32(-1) == 1)
    #expect(Varint.zigzag32(1) == 2)
    #expect(Varint.zigzag32(-2) == 3)
    #expect(Varint.zigzag32(Int32.max) == UInt32.max - 1)
    #expect(Varint.zigzag32(Int32.min) == UInt32.max)
    var writer = ProtobufWriter()
    writer.varint(300)
    #expect(writer.bytes == [0xAC, 0x02])
  }
}
