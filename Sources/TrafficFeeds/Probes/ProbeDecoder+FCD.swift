import Codec
import Foundation
import Traffic

extension ProbeDecoder {
  func decodeFCD(_ data: Data, into sink: inout Sink) throws(ProbeDecodingError) {
    var rows:
      [(
        line: Int, id: String?, seconds: Double, lat: Double?, lng: Double?,
        speed: Double?, heading: Double?
      )] = []
    var simulationTime: Double?
    var lineOfTime = 0
    var lastTime: Double?
    // Without a start, the times are aligned on the last time step: one time step far out (a
    // corrupt `1e11`) would move every row of the file by years.
    let aligned = simulationStart == nil
    var timeOutOfRange = false
    func take(_ element: FCDReader.Element) {
      switch element {
      case .timestep(let seconds, let line):
        lineOfTime = line
        simulationTime = seconds
        timeOutOfRange = false
        guard let seconds else {
          sink.reject(line, .unparseable, "timestep without a readable time")
          return
        }
        if aligned, !(abs(seconds) <= Self.longestAlignedSimulation) {
          timeOutOfRange = true
          return
        }
        lastTime = max(lastTime ?? seconds, seconds)
      case .mover(let kind, let attributes, let line):
        // Persons and containers walk, ride or are carried: not probes of road traffic (a
        // pedestrian on a road's edge read as a car is a jam that is not there). SUMO also
        // numbers them as it numbers vehicles, so one could take a vehicle's id and time.
        guard kind == "vehicle" else { return }
        guard let seconds = simulationTime, lineOfTime > 0 else {
          sink.reject(line, .unparseable, "\(kind) outside a readable timestep")
          return
        }
        guard !timeOutOfRange else {
          sink.reject(
            line, .outOfRange,
            "timestep time \(seconds) s (line \(lineOfTime)) is beyond a year of simulation, "
              + "and the file's times are aligned on its last time step; give the "
              + "simulation's start (--simulation-start) to read such times")
          return
        }
        func number(_ key: String) -> Double?? {
          guard let text = attributes[key] else { return .some(nil) }
          guard let value = ProbeDecoder.decimal(text) else { return nil }
          return .some(value)
        }
        guard let lng = number("x") ?? number("lon"), let lat = number("y") ?? number("lat"),
          let speed = number("speed"), let heading = number("angle")
        else {
          sink.reject(line, .unparseable, "a number does not parse")
          return
        }
        // Without `--fcd-output.geo true` SUMO writes x and y in the network's meters.
        if attributes["lon"] == nil, let lat, let lng, lat.isFinite, lng.isFinite,
          abs(lat) > 90 || abs(lng) > 180
        {
          sink.reject(
            line, .outOfRange,
            "x \(lng), y \(lat) are not degrees: SUMO writes FCD in degrees with "
              + "--fcd-output.geo true")
          return
        }
        rows.append((line, attributes["id"], seconds, lat, lng, speed, heading))
      }
    }
    let failure: ProbeDecodingError? = data.withUnsafeBytes { buffer in
      do throws(ProbeDecodingError) {
        try FCDReader.read(buffer, take)
        return nil
      } catch {
        return error
      }
    }
    if let failure { throw failure }
    // The last time step, vehicles in it or not (SUMO writes the empty steps up to `--end`).
    let start = simulationStart ?? decoder(alignedLast: lastTime ?? 0)
    for row in rows {
      sink.add(
        line: row.line, id: row.id, time: start.addingTimeInterval(row.seconds),
        latitude: row.lat, longitude: row.lng, speed: row.speed, heading: row.heading,
        accuracy: nil)
    }
  }

  /// The longest simulation whose times are aligned on its last time step, seconds (a
  /// year); a time step beyond it is refused unless the simulation's start is given.
  static let longestAlignedSimulation = 366.0 * 86_400

  private func decoder(alignedLast seconds: Double) -> Date {
    now.addingTimeInterval(-seconds)
  }
}
