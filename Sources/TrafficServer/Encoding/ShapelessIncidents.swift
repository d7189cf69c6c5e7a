import Foundation
import Traffic

/// The v7 incidents encoding for `locationReferencing=none`: `location` without `shape`
/// (`{"length", "description"?}`), as HERE answers when no location reference is asked for.
///
/// `V7IncidentWire` always writes the shape, as the last member of `location`; this removes
/// it from its output. That is exact on `V7IncidentWire`'s output: `shape` holds only
/// numbers and member names, so the byte sequences that delimit it, `,"shape":{"links":[`
/// and `]}}},"incidentDetails":` (the end of the last link, of `links`, of `shape`, of
/// `location`), cannot occur inside a string value, where quotes are escaped.
enum ShapelessIncidents {
  private static let shapeStart = Array(",\"shape\":{\"links\":[".utf8)
  private static let shapeEnd = Array("}]}},\"incidentDetails\":".utf8)

  /// Encodes an incidents response without shapes.
  ///
  /// - Parameters:
  ///   - incidents: The results, in order.
  ///   - sourceUpdated: When the data last changed.
  /// - Returns: UTF-8 JSON text.
  /// - Complexity: O(n) in the size of the encoding with shapes.
  static func encode(
    _ incidents: some Collection<TrafficIncident>, sourceUpdated: Date?
  ) -> Data {
    removingShapes(V7IncidentWire.encode(incidents, sourceUpdated: sourceUpdated))
  }

  /// Encodes a lookup answer (one result object) without its shape.
  static func encodeLookup(_ incident: TrafficIncident) -> Data {
    removingShapes(V7IncidentWire.encodeLookup(incident))
  }

  /// Removes every `,"shape":{...}` member of the `location` objects of `V7IncidentWire`
  /// output.
  ///
  /// - Complexity: O(n) in the size of `data`.
  static func removingShapes(_ data: Data) -> Data {
    let bytes = [UInt8](data)
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count / 3)
    var position = 0
    while let start = find(shapeStart, in: bytes, from: position),
      let end = find(shapeEnd, in: bytes, from: start + shapeStart.count)
    {
      out.append(contentsOf: bytes[position..<start])
      // Keep the `}` closing `location` and what follows it.
      position = end + 3
    }
    out.append(contentsOf: bytes[position...])
    return Data(out)
  }

  private static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
    guard let first = needle.first, haystack.count >= needle.count else { return nil }
    var index = start
    let last = haystack.count - needle.count
    while index <= last {
      if haystack[index] == first {
        var matched = true
        for offset in 1..<needle.count where haystack[index + offset] != needle[offset] {
          matched = false
          break
        }
        if matched { return index }
      }
      index += 1
    }
    return nil
  }
}
