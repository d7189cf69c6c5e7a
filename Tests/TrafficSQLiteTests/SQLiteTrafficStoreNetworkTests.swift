import Foundation
import Geo
import Roads
import Testing
import Traffic
import TrafficTestSupport

@testable import TrafficSQLite

@Suite struct SQLiteTrafficStoreNetworkTests {
  static func expectEqual(
    _ loaded: RoadNetwork?, _ saved: RoadNetwork, sourceLocation: SourceLocation = #_sourceLocation
  ) {
    #expect(loaded?.nodes == saved.nodes, sourceLocation: sourceLocation)
    #expect(loaded?.segments == saved.segments, sourceLocation: sourceLocation)
  }

  @Test("a saved network loads back equal, from the same and from a new connection")
  func roundTrip() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("network.sqlite")
    let store = try SQLiteTrafficStore(path: path)
    #expect(try store.loadNetwork() == nil)
    let network = try NetworkFixtures.grid()
    try store.saveNetwork(network)
    Self.expectEqual(try store.loadNetwork(), network)
    Self.expectEqual(try SQLiteTrafficStore(path: path).loadNetwork(), network)
    Self.expectEqual(try SQLiteTrafficStore(path: path, access: .readOnly).loadNetwork(), network)
    #expect(try store.integrityCheck() == ["ok"])
    #expect(
      try store.texts("SELECT segment_count FROM road_network") == ["\(network.segments.count)"])
    #expect(try store.texts("SELECT count(*) FROM segment_rtree") == ["\(network.segments.count)"])
  }

  @Test("saving another network replaces the first and drops the flow state")
  func replace() throws {
    let directory = try TemporaryDirectory()
    let store = try SQLiteTrafficStore(path: directory.path("network.sqlite"))
    try store.saveNetwork(try NetworkFixtures.grid(size: 5))
    try store.saveFlow(
      FlowState.Persisted(
        savedAt: NetworkFixtures.start, segmentCount: 80, historyBucketInSeconds: 300,
        latestProbeTime: nil, segments: [], observations: [], latest: []))
    #expect(try store.loadFlow() != nil)
    let smaller = try NetworkFixtures.grid(size: 3)
    try store.saveNetwork(smaller)
    Self.expectEqual(try store.loadNetwork(), smaller)
    #expect(try store.loadFlow() == nil)
    #expect(try store.texts("SELECT count(*) FROM segment_rtree") == ["\(smaller.segments.count)"])
    #expect(try store.texts("SELECT count(*) FROM road_network_chunks") == ["2"])
  }

  @Test(
    "the Liechtenstein network round-trips through the file")
  func liechtenstein() throws {
    let network = try #require(NetworkFixtures.liechtenstein)
    let directory = try TemporaryDirectory()
    let path = directory.path("li.sqlite")
    let store = try SQLiteTrafficStore(path: path)
    let start = Date()
    try store.saveNetwork(network)
    let saved = Date()
    let loaded = try SQLiteTrafficStore(path: path).loadNetwork()
    let end = Date()
    Self.expectEqual(loaded, network)
    let bytes = try store.texts("SELECT sum(length(data)) FROM road_network_chunks")
    print(
      "Liechtenstein in SQLite: \(network.segments.count) segments (\((bytes.first ?? nil) ?? "?") "
        + "bytes of chunks) saved in \(saved.timeIntervalSince(start)) s, loaded in "
        + "\(end.timeIntervalSince(saved)) s (debug build)")
  }

  @Test("the R*Tree finds the segments whose boxes meet an area", arguments: [1 as UInt64, 2, 3])
  func rtree(seed: UInt64) throws {
    let directory = try TemporaryDirectory()
    let store = try SQLiteTrafficStore(path: directory.path("network.sqlite"))
    let network = try NetworkFixtures.grid(size: 5)
    try store.saveNetwork(network)
    let all = try NetworkFixtures.everywhere(network)
    var generator = SeededGenerator(seed: seed)
    for _ in 0..<40 {
      let latitudes = (0..<2).map { _ in Double.random(in: all.south...all.north, using: &generator)
      }
      let longitudes = (0..<2).map { _ in Double.random(in: all.west...all.east, using: &generator)
      }
      let box = try GeoBox(
        west: longitudes.min() ?? 0, south: latitudes.min() ?? 0, east: longitudes.max() ?? 0,
        north: latitudes.max() ?? 0)
      let found = Set(try store.storedSegmentIDs(meeting: box))
      func meeting(_ margin: Double) -> Set<Int> {
        Set(
          network.segments.filter { segment in
            let b = segment.geometry.boundingBox
            return b.east >= box.west - margin && b.west <= box.east + margin
              && b.north >= box.south - margin && b.south <= box.north + margin
          }.map(\.id))
      }
      // 32-bit R*Tree coordinates are rounded outwards: never fewer, at most a hair more.
      #expect(meeting(0).isSubset(of: found))
      #expect(found.isSubset(of: meeting(1e-5)))
    }
  }

  @Test("a damaged or incomplete stored network fails with an error naming the file")
  func damaged() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("network.sqlite")
    let store = try SQLiteTrafficStore(path: path)
    try store.saveNetwork(try NetworkFixtures.grid())
    try store.execute("UPDATE road_network_chunks SET data = X'524E4301FF' WHERE chunk = 1")
    #expect {
      try store.loadNetwork()
    } throws: { error in
      guard case .operationFailed(let detail) = error as? TrafficStoreError else { return false }
      return detail.contains(path) && detail.contains("chunk 1")
    }
    try store.execute("DELETE FROM road_network_chunks WHERE chunk = 1")
    #expect {
      try store.loadNetwork()
    } throws: { error in
      guard case .operationFailed(let detail) = error as? TrafficStoreError else { return false }
      return detail.contains("incomplete")
    }
    #expect {
      try TrafficEngine(databasePath: path)
    } throws: { error in
      guard case .storeUnavailable = error as? TrafficEngineError else { return false }
      return true
    }
  }

  @Test("a read-only store refuses to save a network or flow, and the file is unchanged")
  func readOnly() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("network.sqlite")
    let network = try NetworkFixtures.grid()
    try SQLiteTrafficStore(path: path).saveNetwork(network)
    let reader = try SQLiteTrafficStore(path: path, access: .readOnly)
    #expect(throws: TrafficStoreError.self) {
      try reader.saveNetwork(NetworkFixtures.grid(size: 2))
    }
    #expect(throws: TrafficStoreError.self) {
      try reader.saveFlow(
        FlowState.Persisted(
          savedAt: NetworkFixtures.start, segmentCount: 48, historyBucketInSeconds: 300,
          latestProbeTime: nil, segments: [], observations: [], latest: []))
    }
    Self.expectEqual(try reader.loadNetwork(), network)
    #expect(try reader.loadFlow() == nil)
  }

  @Test("TrafficEngine(databasePath:) computes flow on the stored network")
  func engineLoadsNetwork() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("network.sqlite")
    #expect(try TrafficEngine(databasePath: path).roadNetwork == nil)
    let network = try NetworkFixtures.grid()
    try SQLiteTrafficStore(path: path).saveNetwork(network)
    let engine = try TrafficEngine(databasePath: path)
    Self.expectEqual(engine.roadNetwork, network)
    let flows = try engine.flow(
      inside: NetworkFixtures.everywhere(network), options: TrafficFlowQueryOptions())
    #expect(flows.map(\.segmentID) == Array(network.segments.indices))
  }
}
