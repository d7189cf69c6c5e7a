/// The positions of a snapshot's incidents by original id, compactly: the ids' hashes
/// sorted, with their positions beside them (12 bytes an incident, where a
/// `[String: Int]` of a million ids took 50 MB), and the feed ids of merged reports (few)
/// in a dictionary.
///
/// A hash found is confirmed by the original id at its position, so the incidents it was
/// built from must keep their ids at their positions (snapshots patched from it do: an
/// update replaces an incident at the position of its original id, a removal rebuilds).
struct OriginalIDTable: Sendable {
  /// `id.hashValue` of each original id, ascending.
  private let hashes: [Int]
  /// The position of the id whose hash is at the same index.
  private let positions: [Int32]
  /// Positions by the feed ids of merged reports that no incident holds as its own id.
  let aliases: [String: Int]

  /// The table of `incidents`' original ids, and `aliases` that are none of them.
  init(_ incidents: some Collection<TrafficIncident>, aliases: [String: Int]) {
    var pairs: [(hash: Int, position: Int32)] = []
    pairs.reserveCapacity(incidents.count)
    for (position, incident) in incidents.enumerated() {
      pairs.append((incident.originalId.hashValue, Int32(position)))
    }
    pairs.sort { $0.hash < $1.hash || ($0.hash == $1.hash && $0.position < $1.position) }
    hashes = pairs.map(\.hash)
    positions = pairs.map(\.position)
    self.aliases = aliases
  }

  /// The same table of original ids (shared, not copied) with these `aliases`.
  func replacingAliases(with aliases: [String: Int]) -> OriginalIDTable {
    OriginalIDTable(hashes: hashes, positions: positions, aliases: aliases)
  }

  private init(hashes: [Int], positions: [Int32], aliases: [String: Int]) {
    self.hashes = hashes
    self.positions = positions
    self.aliases = aliases
  }

  /// The position of the incident whose original id is `id` in `incidents` (the array the
  /// table was built from, or one patched from it), else of the incident the report of
  /// this feed id was merged into.
  ///
  /// - Complexity: O(log n).
  func position(of id: String, in incidents: PersistentArray<TrafficIncident>) -> Int? {
    let hash = id.hashValue
    var low = 0
    var high = hashes.count
    while low < high {
      let middle = (low + high) / 2
      if hashes[middle] < hash { low = middle + 1 } else { high = middle }
    }
    while low < hashes.count, hashes[low] == hash {
      let position = Int(positions[low])
      if position < incidents.count, incidents[position].originalId == id { return position }
      low += 1
    }
    return aliases.isEmpty ? nil : aliases[id]
  }
}
