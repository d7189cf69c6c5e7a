import Foundation

extension TrafficIncident {
  /// A digest of what the incident says — every field except `id`, `originalId`,
  /// `entryTime` and `sources` — that ingest records per source of a merged incident
  /// (`TrafficIncidentSource.reportDigest`) to recognise a feed's unchanged report later.
  ///
  /// It is stored, so it must not depend on the process: it is 64-bit FNV-1a over the
  /// incident's JSON encoding with sorted keys, with the one unordered collection of the
  /// model (`VehicleRestriction.restrictedHazardousGoods`) taken out and appended sorted.
  /// Equal content gives equal digests; different content gives different ones except for a
  /// 2⁻⁶⁴ chance.
  ///
  /// - Complexity: O(n) in the size of the incident's encoding.
  package var contentDigest: String {
    var canonical = reidentified(id: "-", originalId: "-")
    canonical.entryTime = nil
    canonical.sources = []
    var unordered = ""
    for category in canonical.vehicleRestrictions.keys.sorted(by: { $0.rawValue < $1.rawValue }) {
      guard var restriction = canonical.vehicleRestrictions[category],
        !restriction.restrictedHazardousGoods.isEmpty
      else { continue }
      let goods = restriction.restrictedHazardousGoods.map(\.rawValue).sorted()
      unordered += "\(category.rawValue):\(goods.joined(separator: ","));"
      restriction.restrictedHazardousGoods = []
      canonical.vehicleRestrictions[category] = restriction
    }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    // Encoding fails only for non-finite numbers, which validation keeps out; the
    // description is a deterministic stand-in all the same.
    let body = (try? encoder.encode(canonical)) ?? Data(String(describing: canonical).utf8)
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in body + Data(unordered.utf8) {
      hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
    }
    let hex = String(hash, radix: 16)
    return String(repeating: "0", count: 16 - hex.count) + hex
  }
}
