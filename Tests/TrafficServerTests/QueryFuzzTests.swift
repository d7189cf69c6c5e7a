import Foundation
import Testing
import Traffic
import TrafficTestSupport

@testable import TrafficServer

/// Seeded random mutations of valid query strings through the whole request path: every
/// answer must be a 2xx or 4xx with a JSON body — never a 5xx, a crash or a hang.
@Suite struct QueryFuzzTests {
  static let seeds = [
    "/v7/incidents?in=circle:52.52,13.40;r=2000&lang=de-DE&criticality=critical,major",
    "/v7/incidents?in=bbox:13.3,52.4,13.5,52.6&type=accident,construction&limit=5",
    "/v7/incidents?in=corridor:BFoz5xJ67i1B1B7PzIhaxL7Y;r=100&locationReferencing=none",
    "/v7/incidents?in=circle:52.52,13.4;r=500&sort=distance&from=52.5,13.4&units=metric",
    "/v7/incidents?in=bbox:179.5,-10,-179.5,10&earliestStartTime=2028-02-20T10:00:00Z"
      + "&latestEndTime=2028-02-21T10:00:00%2B01:00",
    "/v7/flow?in=circle:52,13.00728;r=2000&minJamFactor=0&maxJamFactor=10&functionalClasses=1,2",
    "/v7/flow?in=bbox:13.0072,51.999,13.02,52.001&locationReferencing=shape,none",
    "/v7/flow?in=corridor:BFoz5xJ67i1B1B7PzIhaxL7Y;r=50",
    "/v7/incidents/A?lang=fr-FR&locationReferencing=shape",
  ]

  /// Pieces that tend to break parsers.
  static let fragments = [
    "%", "%2", "%zz", "%00", "%C3%28", "%FF", ";", ";r=", "r=-1", ",", ",,", ":", "=", "&",
    "&&", "1e308", "-1e308", "1e-400", "nan", "inf", "0x1p3", "99999999999999999999", "-0",
    ".", "..", "+", "é", "\u{0}", "in=", "circle:", "bbox:", "corridor:", "r=1e6", "[", "{",
    "\"", "'", "\\", "apiKey=x", "lang=zz-ZZZZ", "limit=0", "sort=distance", "from=1,2",
    "type=", "criticality=", "minJamFactor=", "functionalClasses=0", "locationReferencing=",
  ]

  @Test func mutatedQueriesAreAnsweredWithJSON() throws {
    let incidentServer = try ServerFixtures.server()
    let flowServer = try FlowServerFixtures.server()
    var generator = SeededGenerator(seed: 2025)
    var statuses: [Int: Int] = [:]
    for iteration in 0..<3000 {
      let seed = Self.seeds[Int.random(in: 0..<Self.seeds.count, using: &generator)]
      var bytes = Array(seed.utf8)
      let pathEnd = (bytes.firstIndex(of: UInt8(ascii: "?")) ?? bytes.count) + 1
      let mutations = Int.random(in: 1...4, using: &generator)
      for _ in 0..<mutations where bytes.count > pathEnd {
        let position = Int.random(in: pathEnd..<bytes.count, using: &generator)
        switch Int.random(in: 0..<6, using: &generator) {
        case 0:
          bytes.remove(at: position)
        case 1:
          bytes.insert(UInt8.random(in: 0x20...0x7e, using: &generator), at: position)
        case 2:
          bytes[position] = UInt8.random(in: 0...255, using: &generator)
        case 3:
          let fragment = Self.fragments[Int.random(in: 0..<Self.fragments.count, using: &generator)]
          bytes.insert(contentsOf: Array(fragment.utf8), at: position)
        case 4:
          // Duplicate a stretch (repeated parameters, doubled separators).
          let end = min(bytes.count, position + Int.random(in: 1...20, using: &generator))
          bytes.insert(contentsOf: bytes[position..<end], at: end)
        default:
          // Cut the rest.
          bytes.removeSubrange(position...)
        }
      }
      let target = String(decoding: bytes, as: UTF8.self)
      let server = target.hasPrefix("/v7/flow") ? flowServer : incidentServer
      let response = server.handle(HTTPRequest(method: "GET", target: target))
      statuses[response.status, default: 0] += 1
      #expect(
        (200..<300).contains(response.status) || (400..<500).contains(response.status),
        "iteration \(iteration): \(target) -> \(response.status) \(response.bodyText)")
      #expect(
        (try? JSONSerialization.jsonObject(with: response.body)) != nil,
        "iteration \(iteration): \(target) answered a body that is not JSON")
    }
    // The mutations reach both the accepting and the refusing paths.
    #expect(statuses[200, default: 0] > 100, "\(statuses)")
    #expect(statuses[400, default: 0] > 100, "\(statuses)")
  }

  @Test func mutatedAreasNeverTrap() {
    var generator = SeededGenerator(seed: 77)
    let areas = [
      "circle:52.52,13.40;r=2000", "bbox:13.3,52.4,13.5,52.6",
      "corridor:BFoz5xJ67i1B1B7PzIhaxL7Y;r=100",
    ]
    var accepted = 0
    for _ in 0..<3000 {
      var bytes = Array(areas[Int.random(in: 0..<areas.count, using: &generator)].utf8)
      for _ in 0..<Int.random(in: 1...3, using: &generator) where !bytes.isEmpty {
        let position = Int.random(in: 0..<bytes.count, using: &generator)
        switch Int.random(in: 0..<3, using: &generator) {
        case 0: bytes.remove(at: position)
        case 1: bytes.insert(UInt8.random(in: 0x20...0x7e, using: &generator), at: position)
        default:
          let fragment = Self.fragments[Int.random(in: 0..<Self.fragments.count, using: &generator)]
          bytes.insert(contentsOf: Array(fragment.utf8), at: position)
        }
      }
      do {
        _ = try V7AreaQuery.decode(String(decoding: bytes, as: UTF8.self), limits: .here)
        accepted += 1
      } catch {
        switch error {
        case .invalidIn(let detail), .invalidGeometry(let detail):
          #expect(detail.hasPrefix("in"), "\(detail)")
        default:
          Issue.record("unexpected error \(error)")
        }
      }
    }
    #expect(accepted > 50)
  }
}
