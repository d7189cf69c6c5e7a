import Codec
import Foundation
import Roads

/// The compact binary form of a probe batch, as nodes of a deployment pass batches to each
/// other (the PostgreSQL store's `probe_log.probes`).
///
/// Doubles are stored as their bit patterns and times as seconds since 2001, so probes
/// round-trip exactly. Layout (varints and strings as `BinaryWriter` writes them):
///
/// ```
/// batch: version 1 | vehicle count, vehicle ids… | probe count,
///        (vehicle #, time, latitude, longitude, options (1 speed, 2 heading, 4 accuracy,
///         8 altitude), [values])…
/// ```
package enum ProbeCoder {
  /// The format version written first.
  package static let version: UInt8 = 1

  /// The bytes of `probes`, in their order.
  ///
  /// - Parameter probes: The probes.
  /// - Returns: The bytes `probes(_:name:)` reads back.
  /// - Complexity: O(p) for p probes.
  package static func data(_ probes: [Probe]) -> Data {
    var writer = BinaryWriter(capacity: 16 + 34 * probes.count)
    writer.byte(version)
    var vehicles: [String: Int] = [:]
    var names: [String] = []
    for probe in probes where vehicles[probe.vehicleID] == nil {
      vehicles[probe.vehicleID] = names.count
      names.append(probe.vehicleID)
    }
    writer.count(names.count)
    for name in names { writer.string(name) }
    writer.count(probes.count)
    for probe in probes {
      writer.count(vehicles[probe.vehicleID] ?? 0)
      writer.double(probe.time.timeIntervalSinceReferenceDate)
      writer.double(probe.coordinates.latitude)
      writer.double(probe.coordinates.longitude)
      let optional = [
        probe.speedInMetersPerSecond, probe.headingInDegrees, probe.accuracyInMeters,
        probe.coordinates.altitude,
      ]
      var options: UInt8 = 0
      for (bit, value) in optional.enumerated() where value != nil { options |= 1 << bit }
      writer.byte(options)
      for value in optional { if let value { writer.double(value) } }
    }
    return writer.data
  }

  /// Reads a batch written by `data(_:)`.
  ///
  /// - Parameters:
  ///   - bytes: The bytes.
  ///   - name: What they are, for messages.
  /// - Returns: The probes, in their order.
  /// - Throws: `RoadsError.malformed` naming `name` and the offset, for truncated or damaged
  ///   bytes and for times or coordinates out of range.
  /// - Complexity: O(p) for p probes.
  package static func probes(_ bytes: [UInt8], name: String) throws(BinaryDataError) -> [Probe] {
    var reader = BinaryReader(bytes: bytes, name: name)
    let found = try reader.byte()
    guard found == version else { throw reader.failure("unknown probe batch version \(found)") }
    let vehicleCount = try reader.count(bytesPerItem: 1, "vehicles")
    var vehicles: [String] = []
    vehicles.reserveCapacity(vehicleCount)
    for _ in 0..<vehicleCount { vehicles.append(try reader.string()) }
    let count = try reader.count(bytesPerItem: 26, "probes")
    var probes: [Probe] = []
    probes.reserveCapacity(count)
    for _ in 0..<count {
      let vehicle = try reader.integer(atMost: vehicles.count - 1, "vehicle number")
      let time = Date(timeIntervalSinceReferenceDate: try reader.finiteDouble("time"))
      let latitude = try reader.double()
      let longitude = try reader.double()
      let options = try reader.byte()
      guard options <= 15 else { throw reader.failure("unknown probe options \(options)") }
      var values: [Double?] = []
      for bit in 0..<4 {
        values.append(options & (1 << bit) != 0 ? try reader.finiteDouble("probe value") : nil)
      }
      let coordinates: GeoCoordinates
      do {
        coordinates = try GeoCoordinates(
          latitude: latitude, longitude: longitude, altitude: values[3])
      } catch {
        throw reader.failure("position \(latitude), \(longitude): \(error)")
      }
      probes.append(
        Probe(
          vehicleID: vehicles[vehicle], time: time, coordinates: coordinates,
          speedInMetersPerSecond: values[0], headingInDegrees: values[1],
          accuracyInMeters: values[2]))
    }
    guard reader.isAtEnd else { throw reader.failure("data after the probes") }
    return probes
  }
}
