import Codec
import Foundation
import Testing
import TrafficTestSupport

@testable import TrafficFeeds

@Suite struct XMLGuardTests {
  @Test func anElementNameOfInvalidUTF8IsRefusedNotTrapped() throws {
    // Found by `make fuzz`: Foundation's XMLParser traps on such a name.
    let url = Fixtures.repositoryRoot.appendingPathComponent(
      "Tests/TrafficFeedsTests/Fixtures/datex2/bad-invalid-utf8-element-name.xml")
    let data = try Data(contentsOf: url)
    #expect(throws: FeedError.self) {
      try DATEXIIDecoder.decode(data, options: FeedOptions(sourceName: "t"))
    }
    do {
      _ = try DATEXIIDecoder.decode(data, options: FeedOptions(sourceName: "t"))
    } catch {
      #expect(error.reason.contains("not valid UTF-8"))
      #expect(error.location == "byte 433")
    }
  }

  @Test func aMalformedDocumentNamesTheLineOfItsFirstFaultNotWhereTheParserStopped() {
    // libxml2 reads on after a fatal error; the parser's place at the end of the parse was
    // the document's last line, and its last error the consequence of the first.
    let document = Data(
      """
      <?xml version="1.0"?>
      <d2:payload xmlns:d2="http://datex2.eu/schema/3/d2Payload">
      <a>
      <b></c>
      </a>


      </d2:payload>

      """.utf8)
    do {
      _ = try DATEXIIDecoder.decode(document, options: FeedOptions(sourceName: "t"))
      Issue.record("a mismatched end tag was read")
    } catch {
      #expect(error.location == "line 4, column 8")
      #expect(error.reason.contains("not matched by its end tag"))
    }
    let repeated = Data("<?xml version=\"1.0\"?>\n<osm>\n<node id=\"1\" id=\"2\"/>\n</osm>\n".utf8)
    do {
      _ = try DATEXIIDecoder.decode(repeated, options: FeedOptions(sourceName: "t"))
      Issue.record("a repeated attribute was read")
    } catch {
      #expect(error.location?.hasPrefix("line 3,") == true)
    }
  }

  @Test(arguments: ["&#x1;", "&#1;", "\u{1}"])
  func aControlCharacterIsNamedAsSuchNotAsBadBytes(text: String) {
    // Invalid UTF-8 never reaches the parser (`XMLGuard`): its error 9 is a character XML
    // 1.0 does not allow, which the message once called bytes not valid in the encoding.
    let document = Data("<?xml version=\"1.0\"?>\n<a>\n<b>x\(text)y</b>\n</a>\n".utf8)
    do {
      _ = try DATEXIIDecoder.decode(document, options: FeedOptions(sourceName: "t"))
      Issue.record("a control character was read")
    } catch {
      #expect(error.reason.contains("a control character"))
      #expect(!error.reason.contains("encoding"))
      #expect(error.location?.hasPrefix("line 3,") == true)
    }
  }

  @Test func aBrokenEncodingDeclarationDoesNotSkipTheCheck() throws {
    // Found by `make fuzz`: `encodingncing"` once passed for a non-UTF-8 declaration.
    let url = Fixtures.repositoryRoot.appendingPathComponent(
      "Tests/TrafficFeedsTests/Fixtures/datex2/bad-invalid-utf8-with-broken-declaration.xml")
    #expect(XMLGuard.problem(in: try Data(contentsOf: url))?.offset == 39)
    let sneaky = Data("<?xml version=\"1.0\" encoding=\"utf-8\"?><a>".utf8) + Data([0xFF])
    #expect(XMLGuard.problem(in: sneaky)?.offset == 41)
    // Found by `make fuzz`: libxml2 passes raw bytes through for encodings it does not know.
    let unknown = Data("<?xml version=\"1.0\" encoding=\"-TF-8\"?><a>".utf8) + Data([0xC9, 0x41])
    #expect(XMLGuard.problem(in: unknown)?.reason.contains("unsupported encoding") == true)
  }

  @Test func aProcessingInstructionWithoutDataIsRefused() {
    // Found by `make fuzz`: XMLParser dereferences the missing data as a null string.
    let document = Data("<?xml version=\"1.0\"?>\n<a><?x?></a>".utf8)
    #expect(XMLGuard.problem(in: document)?.offset == 25)
    #expect(throws: FeedError.self) {
      try DATEXIIDecoder.decode(document, options: FeedOptions(sourceName: "t"))
    }
    let stylesheet = Data("<?xml version=\"1.0\"?><?xml-stylesheet href=\"a.xsl\"?><a/>".utf8)
    #expect(XMLGuard.problem(in: stylesheet) == nil)
  }

  @Test(
    arguments: [
      ([0x61, 0x62], nil),
      ([0xC3, 0xA9], nil),
      ([0xE2, 0x82, 0xAC], nil),
      ([0xF0, 0x9F, 0x9A, 0x97], nil),
      ([0x61, 0xFF], 1),
      ([0xC0, 0x80], 0),
      ([0xE0, 0x80, 0x80], 0),
      ([0xED, 0xA0, 0x80], 0),
      ([0xF4, 0x90, 0x80, 0x80], 0),
      ([0x61, 0xE2, 0x82], 1),
    ] as [([UInt8], Int?)])
  func findsTheFirstInvalidSequence(bytes: [UInt8], offset: Int?) {
    #expect(XMLGuard.firstInvalidUTF8Offset(Data(bytes)) == offset)
  }

  @Test func aDeclaredLatin1DocumentIsLeftToTheParser() {
    let latin1 = Data("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><a>".utf8) + Data([0xE9])
    #expect(XMLGuard.problem(in: latin1) == nil)
    let ascii = Data("<?xml version='1.0' encoding='US-ASCII'?><a>".utf8) + Data([0xE9])
    #expect(XMLGuard.problem(in: ascii)?.offset == 44)
  }
}

@Suite struct LargeXMLDocumentTests {
  @Test func aDocumentOverTenMegabytesDecodes() throws {
    // libxml2 refuses a single chunk over 10,000,000 bytes; the reader streams instead.
    var records = ""
    let count = 9_000
    for i in 0..<count {
      records += """
        <situation id="S\(i)" version="1"><situationRecord xsi:type="Accident" id="R\(i)" version="1">\
        <situationRecordCreationTime>2025-05-01T10:00:00Z</situationRecordCreationTime>\
        <validity><validityStatus>active</validityStatus><validityTimeSpecification>\
        <overallStartTime>2025-05-01T10:00:00Z</overallStartTime></validityTimeSpecification></validity>\
        <groupOfLocations xsi:type="Point"><locationForDisplay><latitude>52.5</latitude>\
        <longitude>13.4</longitude></locationForDisplay></groupOfLocations>\
        <generalPublicComment><comment><values><value lang="en">\(String(repeating: "padding ", count: 100))</value>\
        </values></comment></generalPublicComment></situationRecord></situation>

        """
    }
    let document = """
      <?xml version="1.0" encoding="UTF-8"?>
      <d2LogicalModel xmlns="http://datex2.eu/schema/2/2_0" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" modelBaseVersion="2">\
      <payloadPublication xsi:type="SituationPublication" lang="en">\
      <publicationTime>2025-05-01T10:00:00Z</publicationTime>\
      <publicationCreator><country>gb</country><nationalIdentifier>X</nationalIdentifier></publicationCreator>
      \(records)</payloadPublication></d2LogicalModel>
      """
    let data = Data(document.utf8)
    #expect(data.count > 10_000_000)
    let decoded = try DATEXIIDecoder.decode(data, options: FeedOptions(sourceName: "big"))
    #expect(decoded.incidents.count == count)
    #expect(decoded.problems.isEmpty)
  }
}

@Suite struct XMLGuardScannerTests {
  /// Documents with one problem each; fed in chunks of any size, the scanner must find the
  /// problem at the offset the whole-document check finds.
  static let documents: [[UInt8]] = [
    Array("<?xml version=\"1.0\"?><a>caf".utf8) + [0xC3] + Array("<b/></a>".utf8),
    Array("<a><b>".utf8) + [0xE2, 0x82] + Array("</b></a>".utf8),
    Array("<a>ok</a><?pi   ?>".utf8),
    Array("<a>€ 😀 fine</a>".utf8) + [0xF0, 0x9F],
    Array("<?xml version=\"1.0\" encoding=\"US-ASCII\"?><a>plain é</a>".utf8),
    Array("<a><".utf8),
  ]

  /// Feeds `bytes` to a guard scanner `size` bytes at a time: what it released, and the
  /// problem it found, if any.
  static func scan(
    _ bytes: [UInt8], inChunksOf size: Int
  ) -> (
    released: [UInt8], problem: XMLGuard.Problem?
  ) {
    var scanner = XMLGuard.Scanner()
    var released: [UInt8] = []
    var offset = 0
    do {
      while offset < bytes.count {
        let end = min(offset + size, bytes.count)
        released += try scanner.feed(Data(bytes[offset..<end]), atEnd: false)
        offset = end
      }
      released += try scanner.feed(Data(), atEnd: true)
    } catch {
      return (released, error)
    }
    return (released, nil)
  }

  @Test("chunked scanning finds what the whole-document check finds", arguments: 0..<6)
  func chunked(index: Int) throws {
    let bytes = Self.documents[index]
    let expected = XMLGuard.problem(in: Data(bytes))
    for size in [1, 2, 3, 7] {
      let (released, found) = Self.scan(bytes, inChunksOf: size)
      #expect(found == expected, "chunk size \(size)")
      if found == nil { #expect(released == bytes) }
      if let problem = found, let at = problem.offset {
        // Nothing from the bad byte on reached the parser.
        #expect(released.count <= at)
      }
    }
  }

  @Test("a clean document passes through unchanged in any chunking")
  func clean() throws {
    let bytes = Array("<?xml version=\"1.0\" encoding=\"UTF-8\"?><a x=\"ü\"><?pi data?>€😀</a>".utf8)
    for size in 1...5 {
      var scanner = XMLGuard.Scanner()
      var released: [UInt8] = []
      var offset = 0
      while offset < bytes.count {
        let end = min(offset + size, bytes.count)
        released += try scanner.feed(Data(bytes[offset..<end]), atEnd: false)
        offset = end
      }
      released += try scanner.feed(Data(), atEnd: true)
      #expect(released == bytes)
    }
  }
}
