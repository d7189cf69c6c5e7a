import Foundation
import Geo
import Roads
import Traffic

extension SQLiteTrafficStore {
  /// Replaces the stored road network, in one transaction: its binary chunks (see
  /// `RoadNetwork.binaryChunks(elementsPerChunk:)`), the R*Tree of segment boxes, and the
  /// removal of the stored flow state, whose segment ids belonged to the previous network.
  ///
  /// - Parameter network: the network, e.g. from `OSMImporter`.
  /// - Throws: `TrafficStoreError.operationFailed` when the write fails (a full disk, a
  ///   read-only file); the store keeps its previous network and flow then.
  /// - Complexity: O(s·v) to encode s segments of v vertices (on all cores), plus
  ///   O(s log s) R*Tree inserts.
  public func saveNetwork(_ network: RoadNetwork) throws(TrafficStoreError) {
    try checkWritable()
    let chunks = network.binaryChunks()
    var boxes: [(entry: Int64, box: RTreeBox)] = []
    boxes.reserveCapacity(network.segments.count)
    for segment in network.segments {
      for (k, box) in RTreeBox.covering(segment.geometry.boundingBox).prefix(2).enumerated() {
        boxes.append((Int64(segment.id) &* 2 &+ Int64(k), box))
      }
    }
    try withConnection { connection throws(TrafficStoreError) in
      try connection.transaction { () throws(TrafficStoreError) in
        try connection.run("DELETE FROM road_network_chunks")
        try connection.run("DELETE FROM segment_rtree")
        try SQLiteTrafficStore.deleteFlow(in: connection)
        for (k, chunk) in chunks.enumerated() {
          try connection.run(
            "INSERT INTO road_network_chunks (chunk, data) VALUES (?, ?)",
            [.integer(Int64(k)), .blob(chunk)])
        }
        for (entry, box) in boxes {
          try connection.run(
            "INSERT INTO segment_rtree VALUES (?, ?, ?, ?, ?)",
            [.integer(entry), .real(box.minX), .real(box.maxX), .real(box.minY), .real(box.maxY)])
        }
        try connection.run(
          """
          INSERT OR REPLACE INTO road_network
            (id, node_count, segment_count, chunk_count, saved_at)
          VALUES (1, ?, ?, ?, ?)
          """,
          [
            .integer(Int64(network.nodes.count)), .integer(Int64(network.segments.count)),
            .integer(Int64(chunks.count)), .real(Date().timeIntervalSince1970),
          ])
      }
      flowWrites.withLock { $0 = FlowWrites() }
    }
  }

  /// The stored road network, or `nil` when none was saved.
  ///
  /// The chunks are read under the store's lock, then decoded on all cores and checked as
  /// `RoadNetwork(nodes:segments:)` checks a network; the segments are indexed anew.
  ///
  /// - Returns: a network equal to the one saved (nodes, segments, every field).
  /// - Throws: `TrafficStoreError.operationFailed` naming the file when it cannot be read or
  ///   the stored network is damaged or incomplete.
  /// - Complexity: O(s·v) to decode, then O(s log s) to index s segments.
  public func loadNetwork() throws(TrafficStoreError) -> RoadNetwork? {
    let stored = try withConnection {
      connection throws(TrafficStoreError) -> (counts: [Int64], chunks: [Data])? in
      var counts: [Int64]?
      try connection.query(
        "SELECT node_count, segment_count, chunk_count FROM road_network WHERE id = 1"
      ) { row throws(TrafficStoreError) in
        counts = [row.integer(0), row.integer(1), row.integer(2)]
      }
      guard let counts else { return nil }
      var chunks: [Data] = []
      try connection.query("SELECT data FROM road_network_chunks ORDER BY chunk") {
        row throws(TrafficStoreError) in chunks.append(row.data(0))
      }
      return (counts, chunks)
    }
    guard let stored else { return nil }
    guard stored.chunks.count == stored.counts[2] else {
      throw .operationFailed(
        "the road network in \(path) is incomplete: \(stored.chunks.count) of "
          + "\(stored.counts[2]) chunks are stored")
    }
    let network: RoadNetwork
    do {
      network = try RoadNetwork(binaryChunks: stored.chunks, name: path)
    } catch {
      throw .operationFailed("the road network stored in \(path) cannot be read: \(error)")
    }
    guard network.nodes.count == stored.counts[0], network.segments.count == stored.counts[1]
    else {
      throw .operationFailed(
        "the road network in \(path) has \(network.nodes.count) nodes and "
          + "\(network.segments.count) segments where \(stored.counts[0]) and "
          + "\(stored.counts[1]) were saved")
    }
    return network
  }

  /// The ids of the stored segments whose bounding boxes meet `box`, from the file's
  /// R*Tree (without loading the network).
  ///
  /// R*Tree coordinates are 32-bit floats rounded outwards, so a segment whose box only
  /// touches `box` within about a meter may be included.
  ///
  /// - Parameter box: the area; one crossing the antimeridian is searched in two parts.
  /// - Returns: segment ids, ascending, each once.
  /// - Throws: `TrafficStoreError.operationFailed` when the file cannot be read.
  /// - Complexity: O(log s + k) for k segments found.
  package func storedSegmentIDs(meeting box: GeoBox) throws(TrafficStoreError) -> [Int] {
    try withConnection { connection throws(TrafficStoreError) in
      var ids = Set<Int>()
      for part in RTreeBox.covering(box) {
        try connection.query(
          """
          SELECT entry FROM segment_rtree
          WHERE max_lng >= ? AND min_lng <= ? AND max_lat >= ? AND min_lat <= ?
          """, [.real(part.minX), .real(part.maxX), .real(part.minY), .real(part.maxY)]
        ) { row throws(TrafficStoreError) in ids.insert(Int(row.integer(0) >> 1)) }
      }
      return ids.sorted()
    }
  }
}
