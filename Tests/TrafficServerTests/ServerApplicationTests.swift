import Foundation
import Synchronization
import Testing
import Traffic
import TrafficServer
import TrafficService

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// `traffic serve` as a library call: it opens what its options name, serves until told to
/// stop, and names what is wrong with its options.
@Suite(.serialized) struct ServerApplicationTests {
  static func temporaryStore() -> String {
    FileManager.default.temporaryDirectory
      .appendingPathComponent("server-application-\(UUID().uuidString).sqlite").path
  }

  static func options(_ path: String) -> ServerApplication.Options {
    ServerApplication.Options(
      store: .sqlite(path: path),
      configuration: ServerConfiguration(port: 0, threads: 2, accessLog: .none))
  }

  static let silent = ServerApplication.Reporter(status: { _ in }, output: { _ in })

  @Test func servesUntilStoppedAndReportsWhereItListens() async throws {
    let path = Self.temporaryStore()
    defer { try? FileManager.default.removeItem(atPath: path) }
    let lines = Mutex<[String]>([])
    let reporter = ServerApplication.Reporter(
      status: { line in lines.withLock { $0.append(line) } },
      output: { line in lines.withLock { $0.append(line) } })
    let application = try ServerApplication(options: Self.options(path), reporter: reporter)
    let port = Mutex<Int?>(nil)
    let finished = DispatchSemaphore(value: 0)
    let failure = Mutex<String?>(nil)
    Thread.detachNewThread {
      do throws(ServerApplication.Failure) {
        try application.run { listening in port.withLock { $0 = listening } }
      } catch {
        failure.withLock { $0 = error.description }
      }
      finished.signal()
    }
    var listening: Int?
    for _ in 0..<500 where listening == nil {
      try await Task.sleep(for: .milliseconds(10))
      listening = port.withLock { $0 }
    }
    let served = try #require(listening)
    #expect(application.port == served)
    let url = try #require(URL(string: "http://127.0.0.1:\(served)/healthz"))
    let (_, response) = try await URLSession.shared.data(from: url)
    #expect((response as? HTTPURLResponse)?.statusCode == 200)
    // The incidents load after it listens, and the end of the load is reported, however
    // soon it came (operators and bench/scale_common.sh wait for this line).
    var loadedLine = false
    for _ in 0..<500 where !loadedLine {
      loadedLine = lines.withLock {
        $0.contains { $0.hasPrefix("traffic serve: 0 incidents loaded and indexed ") }
      }
      if !loadedLine { try await Task.sleep(for: .milliseconds(10)) }
    }
    #expect(loadedLine)
    application.stop()
    #expect(finished.wait(timeout: .now() + 10) == .success)
    #expect(failure.withLock { $0 } == nil)
    let reported = lines.withLock { $0 }
    #expect(reported.contains("traffic serve: 0 incidents from \(path)"))
    #expect(reported.contains("listening on http://127.0.0.1:\(served)"))
  }

  @Test func urlsItPrintsBracketIPv6AndReachWildcardAddresses() {
    #expect(ServerApplication.urlHost("::1") == "[::1]")
    #expect(ServerApplication.urlHost("127.0.0.1") == "127.0.0.1")
    #expect(ServerApplication.clientBase(host: "0.0.0.0", port: 8080) == "http://127.0.0.1:8080")
    #expect(ServerApplication.clientBase(host: "::", port: 1) == "http://localhost:1")
    #expect(ServerApplication.clientBase(host: "::1", port: 2) == "http://localhost:2")
    #expect(ServerApplication.clientBase(host: "10.0.0.5", port: 3) == "http://10.0.0.5:3")
  }

  @Test func namesWhatIsWrongWithItsOptions() throws {
    var missingNetwork = Self.options(Self.temporaryStore())
    missingNetwork.networkFile = "/nonexistent/roads.osm.pbf"
    let error = #expect(throws: ServerApplication.Failure.self) {
      _ = try ServerApplication(options: missingNetwork, reporter: Self.silent)
    }
    #expect(error?.description.hasPrefix("/nonexistent/roads.osm.pbf: ") == true)

    let badStore = Self.options("/nonexistent/directory/traffic.sqlite")
    let storeError = #expect(throws: ServerApplication.Failure.self) {
      _ = try ServerApplication(options: badStore, reporter: Self.silent)
    }
    #expect(storeError?.description.hasPrefix("/nonexistent/directory/traffic.sqlite: ") == true)

    var demoOnPostgres = ServerApplication.Options(
      store: .postgres(url: "postgresql://127.0.0.1:1/none"),
      configuration: ServerConfiguration(port: 0))
    demoOnPostgres.demo = .recorded
    let demoError = #expect(throws: ServerApplication.Failure.self) {
      _ = try ServerApplication(options: demoOnPostgres, reporter: Self.silent)
    }
    #expect(demoError?.description == "the demo runs on the embedded store")
  }
}
