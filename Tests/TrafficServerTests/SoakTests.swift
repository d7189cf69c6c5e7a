import Foundation
import Synchronization
import Testing
import Traffic

@testable import TrafficServer

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// What the soak's clients saw.
final class Tally: Sendable {
  let failures = Mutex([String]())
  let queries = Atomic<Int>(0)
}

/// Concurrent clients query over the socket while feeds are pushed, for a few seconds.
@Suite(.serialized) struct SoakTests {
  /// Resident memory of this process, bytes (Linux `/proc/self/statm`).
  static func residentBytes() -> Int? {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else {
      return nil
    }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
  }

  @Test func queriesWhilePushingAllSucceedAndEveryPushIsVisible() async throws {
    let server = try ServerFixtures.server(
      ServerConfiguration(port: 0, threads: 2, accessLog: .none))
    try server.start()
    defer { server.stop() }
    let port = try #require(server.port)
    let memoryBefore = Self.residentBytes()
    let deadline = ContinuousClock.now + .seconds(3)
    let tally = Tally()

    let acknowledged = try await withThrowingTaskGroup(of: [String].self) { group in
      for client in 0..<12 {
        group.addTask {
          var round = 0
          while ContinuousClock.now < deadline {
            round += 1
            let radius = 500 + (client * 137 + round * 61) % 4000
            let answer = try await HTTPFrontEndTests.fetch(
              port, "/v7/incidents?in=circle:52.52,13.40;r=\(radius)&limit=50")
            tally.queries.add(1, ordering: .relaxed)
            if answer.status != 200 {
              tally.failures.withLock { $0.append("query \(answer.status)") }
            } else if (try? ServerFixtures.object(answer.body))?["results"] == nil {
              tally.failures.withLock { $0.append("query body") }
            }
          }
          return []
        }
      }
      group.addTask {
        var ids: [String] = []
        var index = 0
        while ContinuousClock.now < deadline {
          index += 1
          let id = "soak-\(index)"
          let latitude = 52.45 + Double(index % 100) * 0.001
          let answer = try await HTTPFrontEndTests.fetch(
            port, "/v1/feeds/open511?source=soak-\(index)", method: "POST",
            body: Data(FeedIngestTests.open511([id], latitude: latitude).utf8))
          // A report near an earlier one of the same type from another source is merged
          // into it (and found by its own id through the merged incident's sources).
          let body = try? ServerFixtures.object(answer.body)
          if answer.status == 200,
            (body?["added"] as? Int ?? 0) + (body?["merged"] as? Int ?? 0) == 1
          {
            ids.append(id)
          } else {
            tally.failures.withLock { $0.append("push \(answer.status)") }
          }
        }
        return ids
      }
      var all: [String] = []
      for try await ids in group { all += ids }
      return all
    }

    #expect(tally.failures.withLock { $0 }.isEmpty, "\(tally.failures.withLock { $0.prefix(5) })")
    #expect(tally.queries.load(ordering: .relaxed) > 50)
    #expect(acknowledged.count > 10)
    for id in acknowledged {
      #expect(try await HTTPFrontEndTests.fetch(port, "/v7/incidents/\(id)").status == 200)
    }
    try await HTTPFrontEndTests.eventually { server.requestsInFlight == 0 }
    if let before = memoryBefore, let after = Self.residentBytes() {
      #expect(after - before < 300 << 20, "resident memory grew by \((after - before) >> 20) MB")
    }
  }
}
