import Geo
import Traffic

/// The entries an incident has in `incident_rtree`: the bounding box of each polyline, split
/// in two where it crosses the antimeridian (R*Tree boxes are planar), as the in-memory
/// snapshot indexes them.
///
/// Entry ids are `key * slots + n` for the incident's row `key`, so an incident's entries are
/// found by id (`incidents.box_count` says how many) without scanning the tree. An incident
/// with more boxes than `slots` (many disconnected pieces) is indexed by the union of its
/// boxes on each side of the 0th meridian instead: coarser, never missing.
enum IncidentBoxes {
  /// Entries per incident at most; a power of two so that `entry >> 4` is the key.
  static let slots: Int64 = 16

  /// The boxes to index for `incident`, at most `slots` of them.
  ///
  /// - Complexity: O(v) in the incident's vertices.
  static func boxes(of incident: TrafficIncident) -> [RTreeBox] {
    let boxes = incident.location.allPolylines.flatMap { RTreeBox.covering($0.boundingBox) }
    guard boxes.count > Int(slots) else { return boxes }
    let west = boxes.filter { $0.minX + $0.maxX < 0 }
    let east = boxes.filter { $0.minX + $0.maxX >= 0 }
    return [union(west), union(east)].compactMap { $0 }
  }

  private static func union(_ boxes: [RTreeBox]) -> RTreeBox? {
    guard let first = boxes.first else { return nil }
    return boxes.dropFirst().reduce(first) { sum, box in
      RTreeBox(
        uncheckedMinX: min(sum.minX, box.minX), minY: min(sum.minY, box.minY),
        maxX: max(sum.maxX, box.maxX), maxY: max(sum.maxY, box.maxY))
    }
  }

  /// Writes the entries of the incident stored under `key`, and their number into its row
  /// unless `countStored` (a new row written with it).
  static func insert(
    _ boxes: [RTreeBox], key: Int64, into connection: SQLiteConnection, countStored: Bool = false
  ) throws(TrafficStoreError) {
    for (slot, box) in boxes.enumerated() {
      try connection.run(
        "INSERT INTO incident_rtree VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
          .integer(key &* slots &+ Int64(slot)), .real(box.minX), .real(box.maxX),
          .real(box.minY), .real(box.maxY), .real(box.minX), .real(box.minY), .real(box.maxX),
          .real(box.maxY),
        ])
    }
    if countStored { return }
    try connection.run(
      "UPDATE incidents SET box_count = ? WHERE key = ?",
      [.integer(Int64(boxes.count)), .integer(key)])
  }

  /// Replaces the `storedCount` entries of the incident stored under `key` by `boxes`,
  /// leaving the tree alone when they are the same (an update that keeps the geometry, the
  /// common case: a removal and an insertion rewrite R*Tree nodes up to the root).
  static func replace(
    key: Int64, storedCount: Int64, with boxes: [RTreeBox], in connection: SQLiteConnection
  ) throws(TrafficStoreError) {
    if storedCount == Int64(boxes.count) {
      var same = true
      for (slot, box) in boxes.enumerated() where same {
        same = false
        try connection.query(
          "SELECT west, south, east, north FROM incident_rtree WHERE entry = ?",
          [.integer(key &* slots &+ Int64(slot))]
        ) { row throws(TrafficStoreError) in
          same =
            row.real(0) == box.minX && row.real(1) == box.minY && row.real(2) == box.maxX
            && row.real(3) == box.maxY
        }
      }
      if same { return }
    }
    try delete(key: key, count: storedCount, from: connection)
    try insert(boxes, key: key, into: connection)
  }

  /// Removes the `count` entries of the incident stored under `key`.
  static func delete(
    key: Int64, count: Int64, from connection: SQLiteConnection
  )
    throws(TrafficStoreError)
  {
    var slot: Int64 = 0
    while slot < count {
      try connection.run(
        "DELETE FROM incident_rtree WHERE entry = ?", [.integer(key &* slots &+ slot)])
      slot += 1
    }
  }
}
