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
    func take(_ element: FCDReader.Element) {
      switch element {
      case .timestep(let seconds, let line):
        lineOfTime = line
        simulationTime = seconds
        if simulationTime == nil {
          sink.reject(line, .unparseable, "timestep without a readable time")
        }
      case .mover(let kind, let attributes, let line):
        guard let seconds = simulationTime, lineOfTime > 0 else {
          sink.reject(line, .unparseable, "\(kind) outside a readable timestep")
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
    let start =
      simulationStart ?? decoder(alignedLast: rows.map(\.seconds).max() ?? 0)
    for row in rows {
      sink.add(
        line: row.line, id: row.id, time: start.addingTimeInterval(row.seconds),
        latitude: row.lat, longitude: row.lng, speed: row.speed, heading: row.heading,
        accuracy: nil)
    }
  }

  private func decoder(alignedLast seconds: Double) -> Date {
    now.addingTimeInterval(-seconds)
  }
}
