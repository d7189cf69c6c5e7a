import Codec
import Foundation
import Roads
import Testing
import Traffic
import TrafficFeeds
import TrafficTestSupport

/// Every XML input passes through Codec's `GuardedXMLReader`: a DTD declaring an external
/// entity is refused with one message, whichever format and path reads it, before the entity
/// could be read.
@Suite struct DTDRefusalTests {
  /// The message, spelt out: what a person sees after the file and place.
  static let message =
    "the document has a DTD (<!DOCTYPE ...>): DTDs and the entities they declare, external "
    + "ones included, are refused"

  static let doctype = #"<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>"#
  static let declaration = #"<?xml version="1.0" encoding="UTF-8"?>"#

  /// A real fixture with the DTD after its declaration (the first line) and `&e;` where
  /// `target` was, and the byte offset of the DTD.
  static func hostile(
    _ path: String, replacing target: String, with use: String
  ) throws -> (data: Data, dtd: Int) {
    let text = try String(
      contentsOf: Fixtures.repositoryRoot.appendingPathComponent(path), encoding: .utf8)
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    #expect(lines[0].hasPrefix("<?xml "))
    lines.insert(doctype, at: 1)
    let hostile = lines.joined(separator: "\n")
    #expect(hostile.contains(target))
    return (Data(hostile.replacingOccurrences(of: target, with: use).utf8), lines[0].utf8.count + 1)
  }

  static func temporaryFile(_ name: String, _ data: Data) throws -> URL {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("dtd-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let url = directory.appendingPathComponent(name)
    try data.write(to: url)
    return url
  }

  /// Whether a message shows any line of `/etc/passwd`.
  static func leaks(_ text: String) -> Bool {
    let secret = (try? String(contentsOfFile: "/etc/passwd", encoding: .utf8)) ?? "root:x:0:0"
    return secret.split(separator: "\n").contains { text.contains($0) } || text.contains("root:")
  }

  @Test("OSM, SUMO, FCD, DATEX II and Open511 files with an external entity: one message")
  func everyPathRefusesWithOneMessage() throws {
    var reasons: [String: String] = [:]
    var messages: [String] = []

    let osm = try Self.temporaryFile(
      "hostile.osm",
      Self.hostile(
        "Tests/RoadsTests/Fixtures/variants.osm", replacing: #"generator="hand""#,
        with: #"generator="&e;""#
      ).data)
    defer { try? FileManager.default.removeItem(at: osm.deletingLastPathComponent()) }
    let osmData = try Data(contentsOf: osm)
    for fromFile in [true, false] {
      do {
        if fromFile {
          _ = try OSMImporter.importNetwork(from: osm)
        } else {
          _ = try OSMImporter.importNetwork(xml: osmData, name: "hostile.osm")
        }
        Issue.record("the OSM file was read")
      } catch {
        guard case .malformed(let file, let position, let reason) = error else {
          Issue.record("unexpected \(error)")
          continue
        }
        #expect(file == "hostile.osm" && position == "byte 39")
        reasons["OSM"] = reason
        messages.append("\(error)")
      }
    }

    let sumo = try Self.temporaryFile(
      "hostile.net.xml",
      Self.hostile(
        "Tests/RoadsTests/Fixtures/small.net.xml", replacing: "<location ",
        with: "<location x=\"&e;\" "
      ).data)
    defer { try? FileManager.default.removeItem(at: sumo.deletingLastPathComponent()) }
    do {
      _ = try SUMONetworkImporter.importNetwork(from: sumo)
      Issue.record("the SUMO network was read")
    } catch {
      guard case .malformed(let file, let position, let reason) = error else {
        throw error
      }
      #expect(file == "hostile.net.xml" && position == "byte 39")
      reasons["SUMO"] = reason
      messages.append("\(error)")
    }

    let fcd = Data(
      """
      \(Self.declaration)
      \(Self.doctype)
      <fcd-export>
          <timestep time="0.00">
              <vehicle id="&e;" x="9.52" y="47.13" angle="90.00" speed="10.00"/>
          </timestep>
      </fcd-export>

      """.utf8)
    do {
      let batch = try ProbeDecoder(now: Date()).decode(fcd)
      Issue.record("the FCD file was read: \(batch.probes)")
    } catch {
      guard case .malformed(let line, let reason) = error else { throw error }
      #expect(line == 2)
      reasons["FCD"] = reason
      messages.append(error.description)
    }
    var live = FCDReader()
    let elements = fcd.withUnsafeBytes { live.feed($0) }
    #expect(elements.isEmpty)
    reasons["FCD, as written"] = live.problem?.reason
    #expect(live.problem?.offset == 39)

    let (datexData, datexDTD) = try Self.hostile(
      "Tests/TrafficFeedsTests/Fixtures/datex2/v2_event_queue.xml",
      replacing: "<publicationTime>", with: "<publicationTime>&e;")
    let datex = try Self.temporaryFile("hostile.xml", datexData)
    defer { try? FileManager.default.removeItem(at: datex.deletingLastPathComponent()) }
    let options = FeedOptions(sourceName: "hostile")
    for input in [FeedInput.file(datex), .data(try Data(contentsOf: datex))] {
      do {
        _ = try DATEXIIDecoder.decode(input, options: options)
        Issue.record("the DATEX II feed was read")
      } catch {
        #expect(error.format == .datex2 && error.location == "byte \(datexDTD)")
        reasons["DATEX II"] = error.reason
        messages.append(error.description)
      }
    }
    let open511 = Data(
      """
      \(Self.declaration)
      \(Self.doctype)
      <open511><events><event><id>&e;</id></event></events></open511>
      """.utf8)
    do {
      _ = try Open511Decoder.decode(open511, options: options)
      Issue.record("the Open511 feed was read")
    } catch {
      reasons["Open511"] = error.reason
      messages.append(error.description)
    }

    #expect(reasons.count == 6)
    for (path, reason) in reasons {
      #expect(reason == Self.message, "\(path)")
      #expect(reason == XMLGuard.dtdRefusal, "\(path)")
    }
    #expect(messages.count == 7)
    for message in messages {
      #expect(message.hasSuffix(": " + Self.message), "\(message)")
      #expect(!Self.leaks(message), "\(message)")
    }
  }

  @Test("a DTD is found in UTF-16, after comments and instructions, and in any case")
  func hiddenDoctypes() {
    func utf16(_ text: String, bigEndian: Bool) -> Data {
      var bytes: [UInt8] = bigEndian ? [0xFE, 0xFF] : [0xFF, 0xFE]
      for unit in text.utf16 {
        let (high, low) = (UInt8(unit >> 8), UInt8(unit & 0xFF))
        bytes += bigEndian ? [high, low] : [low, high]
      }
      return Data(bytes)
    }
    let body = "<d2LogicalModel>&e;</d2LogicalModel>"
    let documents: [(Data, Int)] = [
      (Data((Self.doctype + body).utf8), 0),
      (Data(("\u{FEFF}" + Self.declaration + "\n" + Self.doctype + body).utf8), 42),
      (Data(("<?xml version='1.0'?><!-- <a> --><?pi x?>\n<!doctype x>" + body).utf8), 42),
      (utf16("<?xml version=\"1.0\"?>" + Self.doctype + body, bigEndian: true), 44),
      (utf16("<?xml version=\"1.0\"?>" + Self.doctype + body, bigEndian: false), 44),
    ]
    for (document, offset) in documents {
      #expect(
        XMLGuard.problem(in: document) == XMLGuard.Problem(offset: offset, reason: Self.message))
      #expect {
        _ = try DATEXIIDecoder.decode(document, options: FeedOptions(sourceName: "t"))
      } throws: { error in
        (error as? FeedError)?.reason == Self.message
      }
    }
    // UTF-16 without a byte-order mark would be guessed by libxml2 from its zeros; refused.
    let unmarked = Data(Array(utf16(Self.doctype + body, bigEndian: false).dropFirst(2)))
    #expect(XMLGuard.problem(in: unmarked)?.reason.contains("byte-order mark") == true)
    // `<!DOCTYPE` as text after the root element is no DTD.
    let text = Data("<a><!-- <!DOCTYPE x> --><![CDATA[<!DOCTYPE y>]]></a>".utf8)
    #expect(XMLGuard.problem(in: text) == nil)
  }

  @Test("a DTD cut by chunk boundaries is refused before any of it reaches the parser")
  func chunkedDoctype() throws {
    let bytes = Array((Self.declaration + "\n" + Self.doctype + "<a>&e;</a>").utf8)
    for size in [1, 2, 3, 5, 9, 40, 64] {
      let (released, found) = XMLGuardScannerTests.scan(bytes, inChunksOf: size)
      #expect(found == XMLGuard.Problem(offset: 39, reason: Self.message), "chunk size \(size)")
      #expect(released.count <= 39, "chunk size \(size)")
    }
  }
}
