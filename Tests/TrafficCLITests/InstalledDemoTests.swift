import Foundation
import Synchronization
import Testing
import TrafficTestSupport

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The binary as `make install` lays it out — `lib/swift-traffic/traffic` beside its
/// resource bundles, linked from `bin/traffic` — serves the static demo from any working
/// directory, and writes nothing there.
@Suite(.serialized) struct InstalledDemoTests {
  /// A prefix laid out as `make install` does, from the built binary and its bundles.
  static func install(into prefix: URL) throws -> URL {
    let built = try CarefulCommandsTests.trafficBinary().resolvingSymlinksInPath()
    let lib = prefix.appendingPathComponent("lib/swift-traffic")
    let bin = prefix.appendingPathComponent("bin")
    let files = FileManager.default
    try files.createDirectory(at: lib, withIntermediateDirectories: true)
    try files.createDirectory(at: bin, withIntermediateDirectories: true)
    try files.copyItem(at: built, to: lib.appendingPathComponent("traffic"))
    // The Swift runtime beside it, as `make install` copies it.
    let copy = Process()
    copy.executableURL = Fixtures.repositoryRoot.appendingPathComponent(
      "dist/copy-swift-runtime.sh")
    copy.arguments = [built.path, lib.path]
    try copy.run()
    copy.waitUntilExit()
    #expect(copy.terminationStatus == 0, "dist/copy-swift-runtime.sh")
    let bundles = try files.contentsOfDirectory(
      at: built.deletingLastPathComponent(), includingPropertiesForKeys: nil
    ).filter { $0.pathExtension == "resources" }
    #expect(bundles.count >= 3, "the web map, text catalogs and demo bundles")
    for bundle in bundles {
      try files.copyItem(at: bundle, to: lib.appendingPathComponent(bundle.lastPathComponent))
    }
    try files.createSymbolicLink(
      atPath: bin.appendingPathComponent("traffic").path,
      withDestinationPath: "../lib/swift-traffic/traffic")
    return bin.appendingPathComponent("traffic")
  }

  /// Runs `traffic serve ARGUMENTS` in `directory` until it listens, asks `path`, stops it;
  /// the status and body of the answer, and what the server printed.
  ///
  /// `launcher`: a program that runs the binary (`binary` is its first argument, the
  /// server's arguments follow).
  static func serveOnce(
    _ binary: URL, _ arguments: [String], in directory: URL, environment: [String: String],
    path: String, until expected: String = "", launcher: [String] = []
  ) async throws -> (status: Int, body: String, printed: String) {
    let process = Process()
    process.executableURL = launcher.first.map(URL.init(fileURLWithPath:)) ?? binary
    process.arguments =
      launcher.dropFirst() + (launcher.isEmpty ? [] : [binary.path])
      + ["serve", "--port", "0", "--threads", "2"] + arguments
    process.currentDirectoryURL = directory
    process.environment = environment
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    let line = ListeningLine(output)
    try process.run()
    defer {
      process.interrupt()
      process.waitUntilExit()
      output.fileHandleForReading.readabilityHandler = nil
    }
    let port = await line.port()
    let listeningPort = try #require(port, "serve did not listen: \(line.printed)")
    let url = try #require(URL(string: "http://127.0.0.1:\(listeningPort)\(path)"))
    // Asked again (for up to 20 s) until the answer and the server's lines show `expected`:
    // the demo's feeds are polled and its probes start once the server listens.
    var answer = (status: 0, body: "", printed: "")
    for _ in 0..<80 {
      let (data, response) = try await URLSession.shared.data(from: url)
      answer = (
        (response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self),
        line.printed
      )
      if (answer.body + answer.printed).contains(expected) { break }
      try await Task.sleep(for: .milliseconds(250))
    }
    return answer
  }

  @Test func theInstalledStaticDemoServesFromAnyDirectoryAndWritesNothingThere() async throws {
    let root = FileManager.default.temporaryDirectory
      .appendingPathComponent("installed-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: root) }
    let binary = try Self.install(into: root.appendingPathComponent("prefix"))
    let work = root.appendingPathComponent("work"), home = root.appendingPathComponent("home")
    for directory in [work, home] {
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }
    // Only what a login shell has: no TRAFFIC_* variables, no XDG_CACHE_HOME.
    let environment = [
      "HOME": home.path, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8",
    ]
    let answer = try await Self.serveOnce(
      binary, ["--demo=static"], in: work, environment: environment, path: "/v1/info",
      until: "\"incidents\":4")
    #expect(answer.status == 200, "\(answer.printed)")
    #expect(answer.body.contains("\"incidents\":4"), "the four demo feeds: \(answer.body)")
    let replaying = try await Self.serveOnce(
      binary, ["--demo=static"], in: work, environment: environment, path: "/healthz",
      until: "replaying recorded probes")
    // The recording came from the installed bundle, not from a checkout.
    #expect(
      replaying.printed.contains(
        root.appendingPathComponent("prefix/lib/swift-traffic").resolvingSymlinksInPath().path),
      "\(replaying.printed)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: work.path).isEmpty)
    let state = home.appendingPathComponent(".cache/swift-traffic")
    let kept = try FileManager.default.contentsOfDirectory(atPath: state.path)
    #expect(kept.contains("demo.sqlite") && kept.contains("demo-feeds"), "\(kept)")

    // --state-dir names the place instead.
    let named = root.appendingPathComponent("state")
    let again = try await Self.serveOnce(
      binary, ["--demo=static", "--state-dir", named.path], in: work, environment: environment,
      path: "/healthz")
    #expect(again.status == 200)
    #expect(
      FileManager.default.fileExists(atPath: named.appendingPathComponent("demo.sqlite").path))
    #expect(try FileManager.default.contentsOfDirectory(atPath: work.path).isEmpty)
  }

  /// The directory of the toolchain's Swift runtime the built binary loads.
  static func toolchainRuntime() throws -> String {
    let built = try CarefulCommandsTests.trafficBinary().resolvingSymlinksInPath()
    let ldd = Process()
    ldd.executableURL = URL(fileURLWithPath: "/usr/bin/ldd")
    ldd.arguments = [built.path]
    let output = Pipe()
    ldd.standardOutput = output
    try ldd.run()
    let listed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    ldd.waitUntilExit()
    let core = try #require(
      listed.split(separator: "\n").map { $0.split(whereSeparator: \.isWhitespace) }
        .first { $0.first == "libswiftCore.so" && $0.count >= 3 },
      "the binary loads no libswiftCore.so: \(listed)")
    return URL(fileURLWithPath: String(core[2])).deletingLastPathComponent().path
  }

  /// Hiding a directory takes a private mount namespace: root, and util-linux's `unshare`.
  static let canHideDirectories =
    getuid() == 0
    && FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare")

  @Test(.enabled(if: canHideDirectories, "hiding the toolchain takes root and unshare"))
  func theInstalledBinaryRunsOnAMachineWithoutTheSwiftToolchain() async throws {
    let root = FileManager.default.temporaryDirectory
      .appendingPathComponent("installed-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: root) }
    let binary = try Self.install(into: root.appendingPathComponent("prefix"))
    let work = root.appendingPathComponent("work")
    try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    // The toolchain's runtime directory hidden under an empty one, for this process only.
    let runtime = try Self.toolchainRuntime()
    let hiding = [
      "/usr/bin/unshare", "-m", "sh", "-c", "mount -t tmpfs none \"$0\" && exec \"$@\"", runtime,
    ]
    let answer = try await Self.serveOnce(
      binary, ["--demo=static", "--state-dir", root.appendingPathComponent("state").path],
      in: work, environment: ["HOME": root.path, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"],
      path: "/v1/info", until: "\"incidents\":4", launcher: hiding)
    #expect(answer.status == 200, "\(answer.printed)")
    #expect(answer.body.contains("\"incidents\":4"), "\(answer.body)")
    // And without the copied runtime, the same launch fails: the toolchain was hidden.
    let lib = root.appendingPathComponent("prefix/lib/swift-traffic")
    try FileManager.default.removeItem(at: lib.appendingPathComponent("libswiftCore.so"))
    let bare = Process()
    bare.executableURL = URL(fileURLWithPath: hiding[0])
    bare.arguments = Array(hiding.dropFirst()) + [binary.path, "--version"]
    bare.standardError = Pipe()
    try bare.run()
    bare.waitUntilExit()
    #expect(bare.terminationStatus == 127, "loading libswiftCore.so must fail")
  }
}
