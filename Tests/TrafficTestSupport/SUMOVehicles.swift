import Foundation

/// What the SUMO scenarios of the tests and of the accuracy harness read the same way.
public enum SUMOVehicles {
  /// The vehicles SUMO's warnings (its `--error-log`) say it teleported: stuck for
  /// `--time-to-teleport` at a deadlocked junction or lane change, then put down further on
  /// its route; their times are the simulation's, not traffic's.
  public static func teleported(inWarnings text: String) -> Set<String> {
    let prefix = "Warning: Teleporting vehicle '"
    var vehicles: Set<String> = []
    for line in text.split(separator: "\n") where line.hasPrefix(prefix) {
      if let id = line.dropFirst(prefix.count).split(separator: "'").first {
        vehicles.insert(String(id))
      }
    }
    return vehicles
  }

  /// A vehicle's place among all, 0...99, by a stable hash of its id (FNV-1a): the vehicles
  /// below `n` form a fleet of n % of them, each fleet a subset of the larger ones.
  public static func percentile(_ id: String) -> Int {
    var hash: UInt32 = 2_166_136_261
    for byte in id.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
    return Int(hash % 100)
  }
}
