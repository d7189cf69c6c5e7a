import Foundation
import Geo
import Traffic

/// The entries of `incident_rtree` gathered during a bulk load into an empty store, written
/// at its end as a packed tree: sorted along the Hilbert curve, full nodes, straight into
/// the R*Tree module's shadow tables (`incident_rtree_node`, `_rowid`, `_parent`) in the
/// format SQLite's `rtree.c` reads. Inserting a million boxes one by one (choose-leaf,
/// splits, forced reinsertion) was a fifth of importing a million incidents; a packed tree
/// is also tighter to query than one grown by inserts. Later writes update it as usual.
///
/// The format: a node is a blob of the size of the table's root node (SQLite makes it
/// 4 + 51 cells × 24 bytes for two dimensions on 4 KB pages): a 16-bit depth of the tree
/// (root only), a 16-bit cell count, then cells of a 64-bit id (an entry's id in a leaf, a
/// child node's number above) and four 32-bit floats (min x, max x, min y, max y, rounded
/// outwards), all big-endian. `_rowid` maps each entry to its leaf and holds the auxiliary
/// columns (the exact edges), `_parent` each node but the root (number 1) to its parent.
struct PackedRTreeLoad {
  private var entries: [(box: RTreeBox, payload: Int64)] = []
  /// Incidents whose boxes a later upsert of the same batch replaced: their latest boxes.
  private var replaced: [Int64: [RTreeBox]] = [:]

  /// Adds the boxes of the incident stored under `key`.
  mutating func add(_ boxes: [RTreeBox], key: Int64) {
    for (slot, box) in boxes.enumerated() {
      entries.append((box, key &* IncidentBoxes.slots &+ Int64(slot)))
    }
  }

  /// Replaces the boxes of the incident stored under `key` earlier in the batch.
  mutating func replace(_ boxes: [RTreeBox], key: Int64) {
    replaced[key] = boxes
  }

  /// The entries to write: those added, with the replaced incidents' latest boxes.
  private func finalEntries() -> [(box: RTreeBox, payload: Int64)] {
    guard !replaced.isEmpty else { return entries }
    var final = entries.filter { replaced[$0.payload / IncidentBoxes.slots] == nil }
    for (key, boxes) in replaced.sorted(by: { $0.key < $1.key }) {
      for (slot, box) in boxes.enumerated() {
        final.append((box, key &* IncidentBoxes.slots &+ Int64(slot)))
      }
    }
    return final
  }

  /// Writes the tree into the empty `incident_rtree`.
  ///
  /// - Throws: `TrafficStoreError.operationFailed` when the tree is not empty or its root
  ///   node is not of a size this writer knows, or a write fails.
  /// - Complexity: O(n) for n entries (a radix sort along the Hilbert curve).
  func write(into connection: SQLiteConnection) throws(TrafficStoreError) {
    let entries = finalEntries()
    guard !entries.isEmpty else { return }
    guard try connection.integer("SELECT count(*) FROM incident_rtree_rowid") == 0 else {
      throw .operationFailed("a packed R*Tree can only be written into an empty one")
    }
    let nodeSize = Int(
      try connection.integer("SELECT length(data) FROM incident_rtree_node WHERE nodeno = 1") ?? 0)
    let capacity = (nodeSize - 4) / Self.cellSize
    guard capacity >= 2 else {
      throw .operationFailed("the R*Tree's root node has an unexpected size of \(nodeSize) bytes")
    }
    // Level 0: the entries along the Hilbert curve; each level above, their nodes.
    var level = RTree<Int64>.hilbertOrder(entries).map { index in
      Cell(id: entries[index].payload, box: FloatBox(entries[index].box), exact: entries[index].box)
    }
    var depth: UInt16 = 0
    var nextNode: Int64 = 2
    while level.count > capacity {
      var parents: [Cell] = []
      parents.reserveCapacity(level.count / capacity + 1)
      var start = 0
      while start < level.count {
        let cells = level[start..<min(level.count, start + capacity)]
        let node = nextNode
        nextNode += 1
        try connection.run(
          "INSERT INTO incident_rtree_node (nodeno, data) VALUES (?, ?)",
          [.integer(node), .blob(Self.blob(cells, depth: 0, size: nodeSize))])
        try Self.link(cells, to: node, in: connection)
        parents.append(Cell(id: node, box: FloatBox(union: cells), exact: nil))
        start += capacity
      }
      level = parents
      depth += 1
    }
    try connection.run(
      "UPDATE incident_rtree_node SET data = ? WHERE nodeno = 1",
      [.blob(Self.blob(level[...], depth: depth, size: nodeSize))])
    try Self.link(level[...], to: 1, in: connection)
  }

  /// Bytes per cell for two dimensions: the id and four floats.
  static let cellSize = 8 + 4 * 4

  /// One cell: an entry (with its exact box) or a child node, and its box.
  private struct Cell {
    var id: Int64
    var box: FloatBox
    var exact: RTreeBox?
  }

  /// A box with the 32-bit edges SQLite's R*Tree stores, rounded outwards so that it
  /// contains the exact box.
  private struct FloatBox {
    var minX: Float
    var maxX: Float
    var minY: Float
    var maxY: Float

    init(_ box: RTreeBox) {
      minX = Self.down(box.minX)
      maxX = Self.up(box.maxX)
      minY = Self.down(box.minY)
      maxY = Self.up(box.maxY)
    }

    init(union cells: ArraySlice<Cell>) {
      minX = .infinity
      maxX = -.infinity
      minY = .infinity
      maxY = -.infinity
      for cell in cells {
        minX = min(minX, cell.box.minX)
        maxX = max(maxX, cell.box.maxX)
        minY = min(minY, cell.box.minY)
        maxY = max(maxY, cell.box.maxY)
      }
    }

    static func down(_ value: Double) -> Float {
      let rounded = Float(value)
      return Double(rounded) > value ? rounded.nextDown : rounded
    }

    static func up(_ value: Double) -> Float {
      let rounded = Float(value)
      return Double(rounded) < value ? rounded.nextUp : rounded
    }
  }

  /// A node's blob: depth, count, cells, zeros to `size`.
  private static func blob(_ cells: ArraySlice<Cell>, depth: UInt16, size: Int) -> Data {
    var bytes = [UInt8](repeating: 0, count: size)
    func put<Value: FixedWidthInteger>(_ value: Value, at offset: Int) {
      withUnsafeBytes(of: value.bigEndian) { raw in
        bytes.replaceSubrange(offset..<offset + raw.count, with: raw)
      }
    }
    put(depth, at: 0)
    put(UInt16(cells.count), at: 2)
    var offset = 4
    for cell in cells {
      put(cell.id, at: offset)
      put(cell.box.minX.bitPattern, at: offset + 8)
      put(cell.box.maxX.bitPattern, at: offset + 12)
      put(cell.box.minY.bitPattern, at: offset + 16)
      put(cell.box.maxY.bitPattern, at: offset + 20)
      offset += cellSize
    }
    return Data(bytes)
  }

  /// Records the node each of `cells` is in: an entry in `_rowid` with its exact edges,
  /// a child node in `_parent`.
  private static func link(
    _ cells: ArraySlice<Cell>, to node: Int64, in connection: SQLiteConnection
  ) throws(TrafficStoreError) {
    for cell in cells {
      if let exact = cell.exact {
        try connection.run(
          """
          INSERT INTO incident_rtree_rowid (rowid, nodeno, a0, a1, a2, a3)
          VALUES (?, ?, ?, ?, ?, ?)
          """,
          [
            .integer(cell.id), .integer(node), .real(exact.minX), .real(exact.minY),
            .real(exact.maxX), .real(exact.maxY),
          ])
      } else {
        try connection.run(
          "INSERT INTO incident_rtree_parent (nodeno, parentnode) VALUES (?, ?)",
          [.integer(cell.id), .integer(node)])
      }
    }
  }
}
