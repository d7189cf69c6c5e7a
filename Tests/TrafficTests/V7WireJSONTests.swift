import Codec
import Foundation
import Testing
import Traffic
import TrafficTestSupport

/// The JSON reader, writer and RFC 3339 dates under the v7 wire codec.
@Suite struct V7WireJSONTests {
  @Test(arguments: [
    ("1970-01-01T00:00:00Z", 0.0), ("1969-12-31T23:59:59Z", -1),
    ("2000-02-29T23:59:59Z", 951_868_799),
    ("2024-05-02T08:00:00.500Z", 1_714_636_800.5), ("2038-01-19T03:14:08Z", 2_147_483_648),
    ("2100-03-01T00:00:00Z", 4_107_542_400),
  ])
  func formatsAndParsesRFC3339(text: String, unixTime: Double) throws {
    let date = Date(timeIntervalSince1970: unixTime)
    #expect(RFC3339.format(date) == text)
    #expect(RFC3339.parse(text) == date)
  }

  @Test func parsesOffsetsFractionsAndRejectsNonsense() {
    #expect(
      RFC3339.parse("2024-05-02T10:00:00+02:00") == Date(timeIntervalSince1970: 1_714_636_800))
    #expect(
      RFC3339.parse("2024-05-02t03:00:00-05:00") == Date(timeIntervalSince1970: 1_714_636_800))
    #expect(
      RFC3339.parse("2024-05-02T08:00:00.123456789Z")?.timeIntervalSince1970
        == 1_714_636_800.123456789)
    for bad in [
      "", "2024-05-02", "2024-02-30T00:00:00Z", "2023-02-29T00:00:00Z", "2024-05-02T24:00:00Z",
      "2024-05-02T08:00:00.Z", "2024-05-02T08:00:00+2:00", "2024-05-02T08:00:00Zx",
      "２０２４-05-02T08:00:00Z",
    ] {
      #expect(RFC3339.parse(bad) == nil, "\(bad)")
    }
  }

  @Test func parameterTimesNeedTheirOffset() {
    let instant = Date(timeIntervalSince1970: 1_714_636_800)
    for good in [
      "2024-05-02T08:00:00Z", "2024-05-02t08:00:00z", "2024-05-02 08:00:00Z",
      "2024-05-02T10:00:00+02:00", "2024-05-02T03:00:00-05:00", "2024-05-02T08:00:00.000Z",
    ] {
      #expect(RFC3339.parseWithOffset(good) == instant, "\(good)")
    }
    for bad in [
      "2024-05-02T08:00:00", "2024-05-02T08:00:00.5", "2024-05-02T10:00:00+0200",
      "2024-05-02T08:00Z", "2024-05-02", "Z", "", "2024-05-02T10:00:00+02:0x",
    ] {
      #expect(RFC3339.parseWithOffset(bad) == nil, "\(bad)")
    }
  }

  @Test func civilDateConversionAgreesWithFoundationsCalendar() throws {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = try #require(TimeZone(identifier: "UTC"))
    var generator = SeededGenerator(seed: 5)
    for _ in 0..<2000 {
      // Foundation switches to the Julian calendar before October 1582.
      let days = Int.random(in: -140_000...200_000, using: &generator)
      let date = Date(timeIntervalSince1970: Double(days) * 86_400)
      let components = calendar.dateComponents([.year, .month, .day], from: date)
      let (year, month, day) = RFC3339.civil(fromDays: days)
      #expect([year, month, day] == [components.year, components.month, components.day])
      #expect(RFC3339.daysFromCivil(year: year, month: month, day: day) == days)
    }
  }

  @Test func escapesStringsSoThatFoundationReadsThemBack() throws {
    var generator = SeededGenerator(seed: 9)
    let alphabet: [Unicode.Scalar] = [
      "a", "\"", "\\", "/", "\n", "\r", "\t", "\u{0}", "\u{1F}", "\u{7F}",
      "é", "\u{2028}", "\u{2029}", "€", "🚗", "\u{FEFF}",
    ]
    for _ in 0..<300 {
      var text = ""
      for _ in 0..<Int.random(in: 0...20, using: &generator) {
        text.unicodeScalars.append(alphabet[Int.random(in: 0..<alphabet.count, using: &generator)])
      }
      var writer = JSONWriter()
      writer.beginArray()
      writer.string(text)
      writer.endArray()
      let data = Data(writer.bytes)
      let foundation = try #require(try JSONSerialization.jsonObject(with: data) as? [String])
      // swift-corelibs Foundation drops some U+FEFF inside strings (after an escape).
      if !text.unicodeScalars.contains("\u{FEFF}") { #expect(foundation == [text]) }
      #expect(try JSONParser.parse(data) == .array([.string(text)]))
      #expect(!writer.bytes.contains(0x0A))  // control characters never appear raw
    }
  }

  @Test func writesShortestRoundTrippingNumbers() throws {
    var generator = SeededGenerator(seed: 13)
    for _ in 0..<2000 {
      let value = Double.random(in: -1e6...1e6, using: &generator)
      var writer = JSONWriter()
      writer.number(value)
      let text = String(decoding: writer.bytes, as: UTF8.self)
      #expect(Double(text) == value)
      #expect(try JSONParser.parse(Data(writer.bytes)).double == value)
    }
    var writer = JSONWriter()
    for value in [13.0, -0.0, 1e20, 0.1, .infinity] {
      writer.number(value)
    }
    writer.number(12.3456, decimals: 1)
    #expect(String(decoding: writer.bytes, as: UTF8.self) == "13,0,1e+20,0.1,null,12.3")
  }

  @Test func placesTheCommasOfNestedObjectsAndArrays() throws {
    var writer = JSONWriter()
    writer.beginObject()
    writer.key("empty")
    writer.beginArray()
    writer.endArray()
    writer.key("list")
    writer.beginArray()
    writer.beginObject()
    writer.endObject()
    writer.beginObject()
    writer.key("a\"b")
    writer.null()
    writer.member("x", 1)
    writer.key("y")
    writer.beginArray()
    writer.integer(2)
    writer.endArray()
    writer.endObject()
    writer.append(Array("[3,4]".utf8))
    writer.bool(false)
    writer.endArray()
    writer.key("n")
    writer.integer(-7)
    writer.endObject()
    let text = String(decoding: writer.bytes, as: UTF8.self)
    #expect(text == #"{"empty":[],"list":[{},{"a\"b":null,"x":1,"y":[2]},[3,4],false],"n":-7}"#)
    #expect(try JSONSerialization.jsonObject(with: Data(writer.bytes)) is [String: Any])
    #expect(writer.take() == Array(text.utf8))
    writer.integer(1)
    #expect(writer.bytes == Array("1".utf8))
  }

  @Test func assemblesAnArrayOfEncodedValuesIntoABufferOfItsExactSize() {
    var head = JSONWriter()
    head.beginObject()
    head.key("results")
    head.beginArray()
    let assembly = JSONWriter.Assembly(prefix: head.bytes, suffix: "]}")
    for values in [[], ["1"], ["{}", "[2,3]", "\"x\""]] {
      let bytes = values.map { Array($0.utf8) }
      let size = assembly.size(count: bytes.count, valueBytes: bytes.reduce(0) { $0 + $1.count })
      let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 1)
      defer { buffer.deallocate() }
      let written = assembly.write(into: buffer, count: bytes.count) { slot, put in
        bytes[slot].withUnsafeBytes(put)
      }
      #expect(written == size)
      #expect(
        String(decoding: buffer, as: UTF8.self)
          == #"{"results":["# + values.joined(separator: ",") + "]}")
    }
  }

  @Test func writesParsedValuesBackWithSortedMembers() throws {
    let text = #"{"z":[1.50,-0e3,"\u00e9\n"],"a":{"c":null,"b":true},"m":12345678901234567890}"#
    var writer = JSONWriter()
    writer.value(try JSONParser.parse(Data(text.utf8)))
    #expect(
      String(decoding: writer.bytes, as: UTF8.self)
        == #"{"a":{"b":true,"c":null},"m":12345678901234567890,"z":[1.50,-0e3,"é\n"]}"#)
    #expect(try JSONParser.parse(Data(writer.bytes)) == JSONParser.parse(Data(text.utf8)))
  }

  @Test func parsesValuesExactly() throws {
    let text =
      "\u{FEFF}{\"a\": [1, -2.5e3, true, false, null, \"\\u00e9\\ud83d\\ude97\"], \"a2\": {}, \"a2\": 12345678901234567890}"
    let value = try JSONParser.parse(Data(text.utf8))
    #expect(
      value["a"]
        == .array([
          .number("1"), .number("-2.5e3"), .bool(true), .bool(false), .null, .string("é🚗"),
        ]))
    #expect(value["a"]?.array?[1].double == -2500)
    #expect(value["a2"] == .number("12345678901234567890"))  // the last duplicate wins, digits kept
    #expect(value["a2"]?.identifier == "12345678901234567890")
    #expect(value["a2"]?.int == nil)  // beyond exact integers
    #expect(try JSONParser.parse(Data("0.1".utf8)).double == 0.1)
  }

  @Test(arguments: [
    ("{\"a\" 1}", 1, 6, "expected ':'"), ("[1,]", 1, 4, "expected a value"),
    ("[01]", 1, 3, "expected ','"),
    ("\"\\x\"", 1, 2, "invalid escape"), ("[1e999]", 1, 2, "out of range"),
    ("nul", 1, 1, "invalid literal"),
    ("\n\n  [\"a\n\"]", 3, 6, "control character"), ("[1] x", 1, 5, "after the value"),
    ("[\"\\ud800\\u0041\"]", 1, 9, "unpaired surrogate"), ("-", 1, 1, "needs digits"),
    ("[" + String(repeating: "{\"a\":", count: 300), 1, 1277, "nesting"),
  ])
  func reportsSyntaxErrorsWithLineAndColumn(text: String, line: Int, column: Int, reason: String) {
    #expect {
      try JSONParser.parse(Data(text.utf8))
    } throws: { error in
      guard let error = error as? JSONSyntaxError else { return false }
      return error.line == line && error.column == column && error.reason.contains(reason)
    }
  }
}
