import Foundation
import Geo
import Testing
import Traffic
import Zlib

@testable import TrafficServer

/// Large DATEX II and WZDx documents over a real socket: written as they are sent (chunked),
/// the same bytes as the whole document, gzip-compressed on the way, and their slot freed
/// whether the client reads to the end or goes away in the middle.
@Suite(.serialized) struct PublicationStreamingTests {
  /// A server on loopback holding `ServerFixtures`' incidents and `count` work zones.
  static func started(workZones count: Int) throws -> (TrafficServer, Int) {
    let (server, port) = try HTTPFrontEndTests.started()
    var zones: [TrafficIncident] = []
    for index in 0..<count {
      let latitude = 50 + Double(index % 100) * 0.01
      let longitude = 8 + Double(index / 100) * 0.01
      zones.append(
        try TrafficIncident(
          id: "z\(index)", originalId: "z\(index)", type: .construction, impact: .minor,
          description: LocalizedText(text: "Works on lane \(index % 3 + 1)", language: .enUS),
          startTime: ServerFixtures.now, endTime: ServerFixtures.now.addingTimeInterval(86_400),
          location: TrafficLocation(
            polyline: try GeoPolyline(vertices: [
              GeoCoordinates(latitude: latitude, longitude: longitude),
              GeoCoordinates(latitude: latitude + 0.002, longitude: longitude + 0.003),
            ]))))
    }
    try server.engine.apply(IncidentBatch(upserts: zones))
    return (server, port)
  }

  /// The body of a chunked HTTP/1.1 answer, its chunks joined.
  static func dechunked(_ answer: Data) throws -> (head: String, body: Data) {
    let bytes = [UInt8](answer)
    let separator: [UInt8] = Array("\r\n\r\n".utf8)
    let end = try #require(
      (0...(bytes.count - 4)).first { Array(bytes[$0..<$0 + 4]) == separator })
    let head = String(decoding: bytes[0..<end], as: UTF8.self)
    var body = Data()
    var position = end + 4
    while true {
      let lineEnd = try #require(
        (position..<(bytes.count - 1)).first { bytes[$0] == 13 && bytes[$0 + 1] == 10 })
      let sizeText = String(decoding: bytes[position..<lineEnd], as: UTF8.self)
      let size = try #require(Int(sizeText.split(separator: ";")[0], radix: 16))
      position = lineEnd + 2
      if size == 0 { break }
      try #require(position + size + 2 <= bytes.count, "chunk of \(size) bytes cut short")
      body.append(contentsOf: bytes[position..<position + size])
      position += size + 2
    }
    return (head, body)
  }

  static func get(_ port: Int, _ target: String, gzip: Bool) throws -> (head: String, body: Data) {
    let request =
      "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
      + (gzip ? "Accept-Encoding: gzip\r\n" : "") + "\r\n"
    let answer = try HTTPFrontEndTests.rawExchange(
      host: "127.0.0.1", port: port, Array(request.utf8))
    return try dechunked(answer.bytes)
  }

  @Test(arguments: ["/datex2/v3/situations", "/wzdx/v4.2/feed"])
  func aLargeDocumentIsSentAsItIsWrittenWithTheSameBytes(_ target: String) throws {
    let (server, port) = try Self.started(workZones: 3_000)
    defer { server.stop() }
    let whole = server.handle(ServerFixtures.get(target))
    #expect(whole.status == 200)
    #expect(whole.body.count > 1_000_000)

    let plain = try Self.get(port, target, gzip: false)
    #expect(plain.head.hasPrefix("HTTP/1.1 200"))
    #expect(plain.head.lowercased().contains("transfer-encoding: chunked"))
    #expect(!plain.head.lowercased().contains("content-length"))
    #expect(plain.body == whole.body)

    let zipped = try Self.get(port, target, gzip: true)
    #expect(zipped.head.lowercased().contains("content-encoding: gzip"))
    #expect(try Gzip.decompress(zipped.body, maxOutputBytes: 1 << 30) == whole.body)
    // The compressed copy was kept whole: the next one is the same bytes, with a length.
    let again = try HTTPFrontEndTests.rawExchange(
      host: "127.0.0.1", port: port,
      Array(
        "GET \(target) HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAccept-Encoding: gzip\r\n\r\n"
          .utf8))
    #expect(again.text.lowercased().contains("content-length: \(zipped.body.count)"))
    #expect(again.bytes.suffix(zipped.body.count) == zipped.body)
    #expect(server.largePublications.withLock { $0.count } == 0)
  }

  /// A client that reads a few kilobytes of a large document and goes away frees its slot:
  /// others can fetch large documents again.
  @Test func aClientGoingAwayMidDocumentFreesItsSlot() async throws {
    let (server, port) = try Self.started(workZones: TrafficServer.largePublication)
    defer { server.stop() }
    for _ in 0..<(LargePublicationSlots.total + 1) {
      let descriptor = try #require(AbusiveClientTests.connect(from: "127.0.0.1", port: port))
      let request = Array("GET /datex2/v3/situations HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
      try #require(write(descriptor, request, request.count) == request.count)
      var buffer = [UInt8](repeating: 0, count: 8_192)
      let count = read(descriptor, &buffer, buffer.count)
      #expect(count > 0)
      #expect(String(decoding: buffer[0..<max(count, 0)], as: UTF8.self).hasPrefix("HTTP/1.1 200"))
      close(descriptor)
      // Each going away frees the slot, so the next one (of the same client) is answered.
      try await HTTPFrontEndTests.eventually { server.largePublications.withLock { $0.count } == 0 }
    }
  }
}
