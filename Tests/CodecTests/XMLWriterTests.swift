import Codec
import Foundation
import Testing
import TrafficTestSupport

/// Codec's XML writer: well-formed output for any text, as libxml2 reads it back.
@Suite struct XMLWriterTests {
  @Test func escapesTextAndAttributesAndDropsWhatXMLForbids() throws {
    var xml = XMLWriter()
    xml.open("root", [("a", "x\"<&>\n\t'y"), ("absent", nil)])
    xml.element("text", "1 < 2 & 3 > 2 \"quoted\" 'single'\r\nline")
    xml.element("controls", "a\u{0}b\u{1}c\u{1F}d\u{FFFE}e\u{FFFF}f\u{FFFD}g")
    xml.element("unicode", "Straße ✓ 🚧")
    xml.empty("empty", [("k", "v")])
    let text = String(decoding: xml.finish(), as: UTF8.self)
    #expect(text.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<root"))
    #expect(text.contains("a=\"x&quot;&lt;&amp;&gt;&#10;&#9;'y\""))
    #expect(!text.contains("absent"))
    #expect(
      text.contains(
        "<text>1 &lt; 2 &amp; 3 &gt; 2 \"quoted\" 'single'&#13;\nline</text>"))
    #expect(text.contains("<controls>abcdef\u{FFFD}g</controls>"))
    #expect(text.contains("<unicode>Straße ✓ 🚧</unicode>"))
    #expect(text.contains("  <empty k=\"v\"/>"))
    #expect(text.hasSuffix("</root>\n"))
  }

  @Test func nestedElementsCloseInOrderAndFinishClosesWhatIsOpen() {
    var xml = XMLWriter()
    xml.open("a")
    xml.open("b")
    xml.element("c", "1")
    xml.close()
    xml.open("d")
    let text = String(decoding: xml.finish(), as: UTF8.self)
    #expect(
      text == """
        <?xml version="1.0" encoding="UTF-8"?>
        <a>
          <b>
            <c>1</c>
          </b>
          <d></d>
        </a>

        """)
  }

  @Test func libxml2ReadsBackWhatWasWritten() throws {
    let xmllint = try DebianFile("/usr/bin/xmllint", package: "libxml2-utils").require()
    var xml = XMLWriter()
    xml.open("root", [("a", "\u{0}\"&<\u{FFFF}")])
    for scalar in [0x7, 0x9, 0xA, 0xD, 0x26, 0x3C, 0xD7FF, 0xE000, 0xFFFE, 0x10FFFF] {
      xml.element("v", String(Unicode.Scalar(scalar).map(Character.init) ?? " "))
    }
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "xmlwriter-\(UUID().uuidString).xml")
    try xml.finish().write(to: url)
    defer { try? FileManager.default.removeItem(at: url) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: xmllint)
    process.arguments = ["--noout", url.path]
    let errors = Pipe()
    process.standardError = errors
    try process.run()
    process.waitUntilExit()
    let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    #expect(process.terminationStatus == 0, "\(message)")
  }
}
