import Codec
import Foundation
import Traffic

extension ProbeDecoder {
  func decodeNDJSON(_ data: Data, into sink: inout Sink) {
    var lineNumber = 0
    let reader = JSONDecoder()
    for line in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
      lineNumber += 1
      guard line.contains(where: { !ProbeDecoder.isBlank($0) }) else { continue }
      let row: NDJSONRow
      do {
        row = try reader.decode(NDJSONRow.self, from: Data(line))
      } catch let error as NDJSONRow.BadValue {
        sink.reject(lineNumber, .unparseable, "\(error.key) is not a number")
        continue
      } catch {
        let first = line.first { !ProbeDecoder.isBlank($0) }
        sink.reject(
          lineNumber, .unparseable,
          first == UInt8(ascii: "[")
            ? "a JSON array, not an object: NDJSON is one object per line, no array around them"
            : "not a JSON object")
        continue
      }
      sink.add(
        line: lineNumber, id: row.id,
        time: row.time.flatMap { ProbeDecoder.parseTime(Substring($0)) },
        latitude: row.lat, longitude: row.lng, speed: row.speed, heading: row.heading,
        accuracy: row.accuracy)
    }
  }

  /// One NDJSON object; numbers may also be given as strings, the id as a number. A number
  /// too large for a double reads as infinity, which makes the row `outOfRange`.
  struct NDJSONRow: Decodable {
    var id: String?
    var time: String?
    var lat: Double?
    var lng: Double?
    var speed: Double?
    var heading: Double?
    var accuracy: Double?

    struct BadValue: Error { let key: String }

    struct Key: CodingKey {
      var stringValue: String
      var intValue: Int? { nil }
      init(stringValue: String) { self.stringValue = stringValue }
      init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: Key.self)
      func text(_ keys: [String]) -> String? {
        for name in keys {
          let key = Key(stringValue: name)
          if let value = try? container.decode(String.self, forKey: key) { return value }
          if let value = try? container.decode(Int64.self, forKey: key) { return String(value) }
          do {
            return String(try container.decode(Double.self, forKey: key))
          } catch is DecodingError {
          } catch {
            // A JSON number no double holds: read as the overflowing number it is (out of
            // range, as in CSV, not "missing or unreadable").
            return "1e400"
          }
        }
        return nil
      }
      func number(_ keys: [String]) throws -> Double? {
        for name in keys {
          let key = Key(stringValue: name)
          guard container.contains(key), (try? container.decodeNil(forKey: key)) != true else {
            continue
          }
          do {
            return try container.decode(Double.self, forKey: key)
          } catch is DecodingError {
            // Not a number: a string holding one is read below.
          } catch {
            // A JSON number no double holds (`1e400`): out of range, as in CSV, not
            // unparseable (the infinity fails every range check).
            return .infinity
          }
          if let value = try? container.decode(String.self, forKey: key),
            let number = ProbeDecoder.decimal(value.trimmingWhitespace)
          {
            return number
          }
          throw BadValue(key: keys[0])
        }
        return nil
      }
      id = text(["id", "vehicleId", "vehicle"])
      time = text(["time", "timestamp"])
      lat = try number(["lat", "latitude"])
      lng = try number(["lng", "lon", "longitude"])
      speed = try number(["speed"])
      heading = try number(["heading", "bearing"])
      accuracy = try number(["accuracy"])
    }
  }
}
