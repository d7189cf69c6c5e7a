import Codec
import Foundation
import Traffic

extension ProbeDecoder {
  /// Reads CSV byte-wise (lines end in LF or CRLF, also inside quoted fields; separators
  /// and quotes are ASCII, so UTF-8 text in fields passes through); one `String` per field,
  /// mostly small enough to be stored inline.
  func decodeCSV(_ data: Data, into sink: inout Sink) throws(ProbeDecodingError) {
    let bytes = [UInt8](data)
    var lineNumber = 0
    var columns: [String: Int]?
    var fields: [String] = []
    var start = 0
    let newline = UInt8(ascii: "\n")
    let quote = UInt8(ascii: "\"")
    while start <= bytes.count {
      var end = bytes[start...].firstIndex(of: newline) ?? bytes.count
      // A quoted field may hold line breaks (RFC 4180): a record ends at the first line end
      // after an even number of quotes (a doubled quote counts twice).
      var quotes = bytes[start..<end].reduce(0) { $0 + ($1 == quote ? 1 : 0) }
      var breaks = 0
      let firstEnd = end
      while quotes % 2 == 1, end < bytes.count, breaks < Self.mostLinesOfARecord {
        let next = bytes[(end + 1)...].firstIndex(of: newline) ?? bytes.count
        quotes += bytes[(end + 1)..<next].reduce(0) { $0 + ($1 == quote ? 1 : 0) }
        end = next
        breaks += 1
      }
      // A quote never closed (a stray one) spoils its own line, not the rows after it.
      if quotes % 2 == 1 { (end, breaks) = (firstEnd, 0) }
      var lineEnd = end
      if lineEnd > start, bytes[lineEnd - 1] == UInt8(ascii: "\r") { lineEnd -= 1 }
      let line = bytes[start..<lineEnd]
      start = end + 1
      lineNumber += 1
      // Rows are named by the line they begin on; the next begins after the breaks.
      defer { lineNumber += breaks }
      if line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) { continue }
      ProbeDecoder.splitCSV(line, into: &fields)
      guard let header = columns else {
        var names: [String: Int] = [:]
        for (i, field) in fields.enumerated() {
          let name = field.trimmingCharacters(in: .whitespaces).lowercased()
            .trimmingCharacters(in: CharacterSet(charactersIn: "\u{FEFF}"))
          if let key = ProbeDecoder.columnAliases[name], names[key] == nil { names[key] = i }
        }
        let missing = ["id", "time", "lat", "lng"].filter { names[$0] == nil }
        guard missing.isEmpty else { throw .missingColumns(missing) }
        columns = names
        continue
      }
      func field(_ name: String) -> Substring? {
        guard let i = header[name], i < fields.count else { return nil }
        let value = fields[i].trimmingWhitespace
        return value.isEmpty ? nil : Substring(value)
      }
      var unreadable: String?
      func number(_ name: String) -> Double? {
        guard let text = field(name) else { return nil }
        guard let value = ProbeDecoder.decimal(text) else {
          unreadable = "\(name) \"\(text)\" is not a number"
          return nil
        }
        return value
      }
      let latitude = number("lat"), longitude = number("lng")
      let speed = number("speed"), heading = number("heading"), accuracy = number("accuracy")
      let time = field("time").flatMap(ProbeDecoder.parseTime)
      if let unreadable {
        sink.reject(lineNumber, .unparseable, unreadable)
        continue
      }
      sink.add(
        line: lineNumber, id: field("id").map(String.init), time: time, latitude: latitude,
        longitude: longitude, speed: speed, heading: heading, accuracy: accuracy)
    }
  }

  /// The most lines one CSV record may span (its quoted fields' line breaks).
  static let mostLinesOfARecord = 32

  /// Header names and the key each stands for.
  static let columnAliases: [String: String] = [
    "id": "id", "vehicle": "id", "vehicleid": "id", "vehicle_id": "id", "device": "id",
    "time": "time", "timestamp": "time",
    "lat": "lat", "latitude": "lat",
    "lng": "lng", "lon": "lng", "long": "lng", "longitude": "lng",
    "speed": "speed", "heading": "heading", "bearing": "heading", "accuracy": "accuracy",
  ]

  /// Splits one CSV line at commas outside double quotes into `fields`; `""` inside quotes
  /// is a quote.
  static func splitCSV(_ line: ArraySlice<UInt8>, into fields: inout [String]) {
    fields.removeAll(keepingCapacity: true)
    var current: [UInt8] = []
    var fieldStart = line.startIndex
    var quoted = false
    var hadQuotes = false
    var index = line.startIndex
    while index < line.endIndex {
      let byte = line[index]
      if quoted {
        if byte == UInt8(ascii: "\"") {
          let next = line.index(after: index)
          if next < line.endIndex, line[next] == UInt8(ascii: "\"") {
            current.append(byte)
            index = next
          } else {
            quoted = false
          }
        } else {
          current.append(byte)
        }
      } else if byte == UInt8(ascii: "\"") {
        // The field so far, then quoted text: copy what came before the quote.
        if !hadQuotes { current.append(contentsOf: line[fieldStart..<index]) }
        quoted = true
        hadQuotes = true
      } else if byte == UInt8(ascii: ",") {
        fields.append(
          hadQuotes
            ? String(decoding: current, as: UTF8.self)
            : String(decoding: line[fieldStart..<index], as: UTF8.self))
        current.removeAll(keepingCapacity: true)
        hadQuotes = false
        fieldStart = line.index(after: index)
      } else if hadQuotes {
        current.append(byte)
      }
      index = line.index(after: index)
    }
    fields.append(
      hadQuotes
        ? String(decoding: current, as: UTF8.self)
        : String(decoding: line[fieldStart..<line.endIndex], as: UTF8.self))
  }
}
