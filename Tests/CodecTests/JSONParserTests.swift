import Codec
import Foundation
import Testing

/// The JSON parser every JSON codec reads through (its syntax errors are also covered by
/// `V7WireJSONTests` and, through `GeoJSON`, by `GeoJSONTests`).
@Suite struct JSONParserTests {
  @Test func readsEscapesAndExactNumbers() throws {
    let value = try JSONParser.parse(
      Data(#"{"a\u00e9\ud83d\ude00\n":[-0.0,1E2,5e-324,120.30695683553716,true,null]}"#.utf8))
    let array = try #require(value["a\u{E9}\u{1F600}\n"]?.array)
    #expect(array.count == 6)
    #expect(array[0].double.map { $0 == 0 && $0.sign == .minus } == true)
    #expect(array[1].double == 100)
    #expect(array[2].double == Double.leastNonzeroMagnitude)
    // JSONSerialization on Linux reads this one as ...715.
    #expect(array[3].double == 120.30695683553716)
    #expect(array[4] == .bool(true))
    #expect(array[5].isNull)
  }

  @Test(arguments: [
    ("\"a\u{1}\"", 2, "control character byte 0x1 inside a string"),
    (#""\q""#, 1, "invalid escape \\'q'"),
    ("[1 2]", 3, "expected ',' or ']', found '2'"),
    ("[1", 2, "expected ',' or ']', found the end of the text (truncated document?)"),
    (String(repeating: "[", count: 300), 256, "nesting deeper than 256 levels"),
  ])
  func namesTheOffendingByte(text: String, offset: Int, reason: String) {
    #expect {
      try JSONParser.parse(Data(text.utf8))
    } throws: { error in
      guard let error = error as? JSONSyntaxError else { return false }
      return error.offset == offset && error.reason == reason
    }
  }
}
