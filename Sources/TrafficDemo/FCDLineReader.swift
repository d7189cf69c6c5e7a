import Foundation

/// Reads SUMO floating-car data (`--fcd-output` with `--fcd-output.geo true`) line by line
/// while SUMO is still writing it.
///
/// SUMO writes one element per line (`<timestep time="12.00">`, `<vehicle id=".." x=".."
/// y=".." angle=".." speed=".."/>`), so a line is parsed on its own and the document's end
/// is never waited for. Lines of other kinds (the configuration comment, the root element,
/// end tags) are ignored; a vehicle line with a missing or unreadable value is skipped.
struct FCDLineReader {
  /// One parsed line.
  enum Line: Equatable {
    /// A new time step, simulation seconds.
    case timestep(Double)
    /// A vehicle's position: x = longitude, y = latitude (degrees), speed m/s, angle degrees
    /// clockwise from north.
    case vehicle(id: String, longitude: Double, latitude: Double, speed: Double?, angle: Double?)
  }

  private var remainder: [UInt8] = []

  /// Feeds bytes; returns the complete lines they finish, parsed.
  ///
  /// - Complexity: O(n) in the bytes fed.
  mutating func feed(_ bytes: UnsafeRawBufferPointer) -> [Line] {
    var lines: [Line] = []
    var start = 0
    for index in 0..<bytes.count where bytes[index] == UInt8(ascii: "\n") {
      if remainder.isEmpty {
        if let line = Self.parse(UnsafeRawBufferPointer(rebasing: bytes[start..<index])) {
          lines.append(line)
        }
      } else {
        remainder.append(contentsOf: bytes[start..<index])
        let joined = remainder
        remainder.removeAll(keepingCapacity: true)
        if let line = joined.withUnsafeBytes({ Self.parse($0) }) { lines.append(line) }
      }
      start = index + 1
    }
    if start < bytes.count { remainder.append(contentsOf: bytes[start...]) }
    // A line longer than a megabyte is not FCD; drop it rather than grow without bound.
    if remainder.count > 1 << 20 { remainder.removeAll() }
    return lines
  }

  /// Parses one line of FCD XML.
  static func parse(_ line: UnsafeRawBufferPointer) -> Line? {
    let text = String(decoding: line, as: UTF8.self)
    guard let open = text.firstIndex(of: "<") else { return nil }
    let tag = text[text.index(after: open)...]
    if tag.hasPrefix("timestep ") {
      return attribute("time", in: tag).flatMap(Double.init).map(Line.timestep)
    }
    guard tag.hasPrefix("vehicle "), let id = attribute("id", in: tag),
      let x = attribute("x", in: tag).flatMap(Double.init),
      let y = attribute("y", in: tag).flatMap(Double.init)
    else { return nil }
    return .vehicle(
      id: id, longitude: x, latitude: y,
      speed: attribute("speed", in: tag).flatMap(Double.init),
      angle: attribute("angle", in: tag).flatMap(Double.init))
  }

  /// The value of `name="..."` in a tag (SUMO writes no entities in these values except in
  /// ids, which are decoded).
  static func attribute(_ name: String, in tag: Substring) -> String? {
    guard let start = tag.range(of: " \(name)=\"") else { return nil }
    let rest = tag[start.upperBound...]
    guard let end = rest.firstIndex(of: "\"") else { return nil }
    let value = rest[..<end]
    guard value.contains("&") else { return String(value) }
    return value.replacingOccurrences(of: "&lt;", with: "<")
      .replacingOccurrences(of: "&gt;", with: ">")
      .replacingOccurrences(of: "&quot;", with: "\"")
      .replacingOccurrences(of: "&apos;", with: "'")
      .replacingOccurrences(of: "&amp;", with: "&")
  }
}
