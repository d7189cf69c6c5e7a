import Codec
import Foundation
import Testing

@Suite("JSONStreamReader")
struct JSONStreamReaderTests {
  /// A feed-like document: header members around two streamed arrays, escapes, nesting,
  /// numbers kept as text, line breaks.
  static let document = """
    \u{FEFF}{
      "feed_info": {"update_date": "2024-05-01T10:00:00Z", "version": "4.2"},
      "features": [
        {"id": "a\\"1", "geometry": {"type": "LineString",
          "coordinates": [[-105.1, 39.5], [-105.2, 39.6]]}, "tags": []},
        {"id": "b]}", "n": -1.25e-3, "ok": true, "none": null, "text": "caf\\u00e9 \\ud83d\\ude97"},
        [1, [2, [3, {}]]],
        "plain",
        42
      ],
      "other": [1, 2, 3],
      "alerts": [],
      "trailer": {"nested": {"deep": [{"x": "]"}]}}
    }
    """

  /// Reads `text` in chunks of `size` bytes.
  static func stream(
    _ text: String, chunkSize size: Int, members: Set<String>
  ) throws(JSONStreamError) -> (rest: JSONValue, elements: [String: [JSONValue]]) {
    let bytes = Array(text.utf8)
    var offset = 0
    var reader = JSONStreamReader { () throws(JSONStreamError) -> Data? in
      guard offset < bytes.count else { return nil }
      defer { offset = min(offset + size, bytes.count) }
      return Data(bytes[offset..<min(offset + size, bytes.count)])
    }
    var elements: [String: [JSONValue]] = [:]
    let rest = try reader.read(streaming: members) { member, index, value in
      #expect(elements[member, default: []].count == index)
      elements[member, default: []].append(value)
    }
    return (rest, elements)
  }

  @Test(
    "every chunk size gives the parser's tree, split into streamed and other members",
    arguments: [1, 2, 3, 5, 16, 100, 1 << 20])
  func matchesWholeParse(chunkSize: Int) throws {
    let whole = try JSONParser.parse(Data(Self.document.utf8))
    let (rest, elements) = try Self.stream(
      Self.document, chunkSize: chunkSize, members: ["features", "alerts", "missing"])
    var expected = try #require(whole.object)
    #expect(elements["features"] == expected["features"]?.array)
    #expect(expected["alerts"] == .array([]))
    #expect(elements["alerts"] == nil)
    expected["features"] = .array([])
    #expect(rest == .object(expected))
  }

  @Test("a root that is not an object is returned whole")
  func nonObjectRoot() throws {
    let (rest, elements) = try Self.stream(" [1, {\"a\": 2}] ", chunkSize: 3, members: ["a"])
    #expect(rest == .array([.number("1"), .object(["a": .number("2")])]))
    #expect(elements.isEmpty)
  }

  @Test("a root array is streamed as member \"\" when asked")
  func rootArray() throws {
    let (rest, elements) = try Self.stream(" [1, {\"a\": 2}] ", chunkSize: 3, members: [""])
    #expect(rest == .array([]))
    #expect(elements[""] == [.number("1"), .object(["a": .number("2")])])
  }

  /// Malformed documents: the streamed reader must report the same place as the whole-text
  /// parser (an independent reading of the same bytes).
  static let malformed: [String] = [
    "{\"features\": [{\"a\": 1}, {\"a\": 2",  // truncated inside an element
    "{\"features\": [{\"a\": 1},",  // truncated between elements
    "{\"features\": [{\"a\": 1}\n {\"a\": 2}]}",  // missing comma
    "{\"features\": [{\"a\": [1, 2}]}",  // mismatched bracket
    "{\"features\": [{\"a\": tru}]}",  // bad literal
    "{\"features\": [{\"a\": 01}]}",  // leading zero
    "{\"features\": [{\"a\": \"x\ny\"}]}",  // control character in a string
    "{\"features\": [{\"a\": \"\\q\"}]}",  // bad escape
    "{\"features\": [{\"a\": 1e999}]}",  // out of range
    "{\"features\": [1,,2]}",  // empty element
    "{\"features\": [1]} x",  // trailing garbage
    "{\"head\": {\"a\": 1,}, \"features\": []}",  // bad non-streamed member
    "{\"head\" 1}",  // missing colon
    "{\"features\": [\"unterminated]}",  // unterminated string
    "{\"features\": [\"\u{00E9}\", \"\\u12\"]}",  // short unicode escape
    "",  // empty
    "{\"features\": [{\"id\"[ 0, \"s\": 1}]}",  // an early error before an unpaired bracket
    "{\"features\": [{\"id\"[ 0, \"s\": 1",  // an early error before the end of the text
    "{\"features\": [{\"id\": tru, \"s\": \"open",  // an early error before an open string
    "{\"\u{00}\u{00}\": 1}",  // NUL bytes in a member name (not UTF-16)
    "{\"\u{01}, \"features\": [1]",  // a control character, then an unterminated string
  ]

  @Test("syntax errors name the same place as the whole-text parser", arguments: malformed)
  func errorPlaces(text: String) throws {
    var reference: JSONSyntaxError?
    do { _ = try JSONParser.parse(Data(text.utf8)) } catch { reference = error }
    let expected = try #require(reference)
    for size in [1, 4, 1 << 20] {
      do {
        _ = try Self.stream(text, chunkSize: size, members: ["features"])
        Issue.record("accepted \(text.debugDescription)")
      } catch {
        guard case .syntax(let found) = error else {
          Issue.record("not a syntax error: \(error)")
          continue
        }
        #expect(found.offset == expected.offset, "\(text.debugDescription): \(found)")
        #expect(found.line == expected.line)
        #expect(found.column == expected.column)
      }
    }
  }

  @Test("line and column count across dropped chunks")
  func placeAfterManyChunks() throws {
    let lines = (0..<2_000).map { "{\"n\": \($0)}" }.joined(separator: ",\n")
    let text = "{\"features\": [\n" + lines + ",\n{\"n\": nope}]}"
    do {
      _ = try Self.stream(text, chunkSize: 64, members: ["features"])
      Issue.record("accepted")
    } catch {
      #expect(error.place == "line 2002, column 7 (byte \(Array(text.utf8).count - 7))")
      #expect(error.reason == "invalid literal, expected null")
    }
  }

  @Test("elements arrive before the rest of the document is read")
  func streamsIncrementally() throws {
    let body = (0..<1_000).map {
      "{\"id\": \($0), \"pad\": \"\(String(repeating: "x", count: 50))\"}"
    }
    let bytes = Array(("{\"features\": [" + body.joined(separator: ",") + "]}").utf8)
    var pulled = 0
    var offset = 0
    var reader = JSONStreamReader { () throws(JSONStreamError) -> Data? in
      guard offset < bytes.count else { return nil }
      pulled += 1
      defer { offset = min(offset + 256, bytes.count) }
      return Data(bytes[offset..<min(offset + 256, bytes.count)])
    }
    var pulledAtFirst: Int?
    var count = 0
    _ = try reader.read(streaming: ["features"]) { _, _, value in
      if pulledAtFirst == nil { pulledAtFirst = pulled }
      #expect(value["id"]?.int == count)
      count += 1
    }
    #expect(count == 1_000)
    #expect(try #require(pulledAtFirst) <= 2)
    #expect(pulled == (bytes.count + 255) / 256)
  }

  @Test("a value over the limit is refused with the limit named")
  func valueLimit() throws {
    let big = "{\"features\": [\"\(String(repeating: "y", count: 5_000))\"]}"
    var reader = JSONStreamReader(data: Data(big.utf8), maximumValueBytes: 1_000)
    do {
      _ = try reader.read(streaming: ["features"]) { _, _, _ in }
      Issue.record("accepted")
    } catch {
      #expect(error.reason == "a value is larger than 1000 bytes, the limit of one record")
      #expect(error.place == "line 1, column 15 (byte 14)")
    }
  }

  @Test("deep nesting is refused before it is parsed")
  func depthLimit() throws {
    let deep = "{\"features\": [" + String(repeating: "[", count: 10_000) + "]}"
    var reader = JSONStreamReader(data: Data(deep.utf8))
    #expect(throws: JSONStreamError.self) {
      _ = try reader.read(streaming: ["features"]) { _, _, _ in }
    }
  }

  @Test("UTF-16 text is refused with the encoding named")
  func utf16() throws {
    var reader = JSONStreamReader(data: Data([0xFF, 0xFE, 0x7B, 0x00, 0x7D, 0x00]))
    do {
      _ = try reader.read(streaming: []) { _, _, _ in }
      Issue.record("accepted")
    } catch {
      #expect(error.reason == "the text is UTF-16 or UTF-32 encoded; JSON feeds must be UTF-8")
    }
  }

  @Test("an input failure ends the read with its reason; earlier elements were delivered")
  func inputFailure() throws {
    var calls = 0
    var reader = JSONStreamReader { () throws(JSONStreamError) -> Data? in
      calls += 1
      if calls == 1 { return Data("{\"features\": [1, 2, ".utf8) }
      throw .input("disk on fire")
    }
    var seen: [JSONValue] = []
    do {
      _ = try reader.read(streaming: ["features"]) { _, _, value in seen.append(value) }
      Issue.record("accepted")
    } catch {
      #expect(error == .input("disk on fire"))
    }
    #expect(seen == [.number("1"), .number("2")])
  }
}
