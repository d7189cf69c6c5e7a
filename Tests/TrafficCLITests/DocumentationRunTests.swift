import Foundation
import Testing
import TrafficTestSupport

/// The shell blocks of the README, `docs/guide.md`, `docs/feeds.md` and `docs/operations.md`
/// run as a reader runs them: in order, in a fresh directory, with the built `traffic` on the
/// `PATH` and no store yet; what a page shows as a block's output is compared with what the
/// block printed.
///
/// The pages' conventions:
/// - a ```` ```sh ```` block is run; ```` ```sh norun ```` is shown only (it installs, starts a
///   server that runs until stopped, or needs what a test machine has not: the reason is in
///   the text around it);
/// - a ```` ```text ```` block right after a run block is that block's output (standard output
///   and error as they came); `…` stands for any text in a line, a line of `…` alone for any
///   lines; a command that fails prints `(exit status N)` there;
/// - `<!-- docs-test: demo -->` on a page: its blocks run against the static demo
///   (`traffic serve --demo=static`), which the test starts first;
/// - blocks name `127.0.0.1:8080`; the test runs the page's servers on a free port instead
///   (`TRAFFIC_PORT`) and rewrites the address.
/// The directory holds links to the repository's `Tests` and `Samples`, so the pages' paths
/// work as in a checkout.
@Suite(.serialized) struct DocumentationRunTests {
  struct Block: Sendable {
    var line: Int
    var script: String
    var runs: Bool
    var expected: [String]?
  }

  struct Page: CustomTestStringConvertible, Sendable {
    var path: String
    var blocks: [Block]
    var needsDemo: Bool
    var testDescription: String { path }
  }

  static let pages = ["README.md", "docs/guide.md", "docs/feeds.md", "docs/operations.md"]

  /// The shell blocks of a page, with their outputs.
  static func page(_ path: String) throws -> Page {
    let text = try String(
      contentsOf: Fixtures.repositoryRoot.appendingPathComponent(path), encoding: .utf8)
    let lines = text.components(separatedBy: "\n")
    var blocks: [Block] = []
    var index = 0
    var lastRunBlockEnd: Int?
    while index < lines.count {
      let line = lines[index]
      guard line.hasPrefix("```") else {
        if !line.trimmingCharacters(in: .whitespaces).isEmpty { lastRunBlockEnd = nil }
        index += 1
        continue
      }
      let info = line.dropFirst(3).split(separator: " ").map(String.init)
      var body: [String] = []
      index += 1
      while index < lines.count, !lines[index].hasPrefix("```") {
        body.append(lines[index])
        index += 1
      }
      index += 1  // the closing fence
      if info.first == "sh" {
        blocks.append(
          Block(
            line: index - body.count - 1, script: body.joined(separator: "\n"),
            runs: !info.contains("norun"), expected: nil))
        lastRunBlockEnd = info.contains("norun") ? nil : index
      } else if info.first == "text", lastRunBlockEnd != nil, !blocks.isEmpty {
        blocks[blocks.count - 1].expected = body
        lastRunBlockEnd = nil
      } else {
        lastRunBlockEnd = nil
      }
    }
    return Page(
      path: path, blocks: blocks, needsDemo: text.contains("<!-- docs-test: demo -->"))
  }

  /// Whether `actual` matches `expected`, `…` standing for any text and a line of `…` alone
  /// for any lines.
  static func matches(_ actual: ArraySlice<String>, _ expected: ArraySlice<String>) -> Bool {
    guard let pattern = expected.first else { return actual.isEmpty }
    if pattern.trimmingCharacters(in: .whitespaces) == "…" {
      let rest = expected.dropFirst()
      return actual.indices.map { actual[$0...] }.contains { matches($0, rest) }
        || matches(actual[actual.endIndex...], rest)
    }
    guard let line = actual.first, lineMatches(line, pattern) else { return false }
    return matches(actual.dropFirst(), expected.dropFirst())
  }

  static func lineMatches(_ line: String, _ pattern: String) -> Bool {
    let pieces = pattern.components(separatedBy: "…")
    guard pieces.count > 1 else { return line == pattern }
    var rest = Substring(line)
    guard rest.hasPrefix(pieces[0]) else { return false }
    rest = rest.dropFirst(pieces[0].count)
    for piece in pieces.dropFirst().dropLast() where !piece.isEmpty {
      guard let found = rest.range(of: piece) else { return false }
      rest = rest[found.upperBound...]
    }
    return rest.hasSuffix(pieces.last ?? "")
  }

  /// Runs the page's run blocks; the output of each, by block index.
  static func run(_ page: Page) throws -> [Int: [String]] {
    let root = FileManager.default.temporaryDirectory
      .appendingPathComponent("docs-\(UUID().uuidString)")
    let work = root.appendingPathComponent("work"), bin = root.appendingPathComponent("bin")
    let home = root.appendingPathComponent("home")
    for directory in [work, bin, home] {
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }
    defer { try? FileManager.default.removeItem(at: root) }
    for name in ["Tests", "Samples"] {
      try FileManager.default.createSymbolicLink(
        at: work.appendingPathComponent(name),
        withDestinationURL: Fixtures.repositoryRoot.appendingPathComponent(name))
    }
    try FileManager.default.createSymbolicLink(
      at: bin.appendingPathComponent("traffic"),
      withDestinationURL: try CarefulCommandsTests.trafficBinary())
    let port = try ChildProcess.freeLoopbackPort()
    var script = "exec 2>&1\ntrap 'echo \"(exit status $?)\"' ERR\n"
    if page.needsDemo {
      script += """
        traffic serve --demo=static > "\(root.path)/demo.log" 2>&1 &
        for _ in $(seq 100); do curl -sf http://127.0.0.1:\(port)/readyz > /dev/null && break; \
        sleep 0.2; done
        for _ in $(seq 100); do
          curl -s http://127.0.0.1:\(port)/v1/info | grep -q '"incidents":4' && break; sleep 0.2
        done

        """
    }
    for (index, block) in page.blocks.enumerated() where block.runs {
      // After a newline of its own: the block before may end without one.
      script += "printf '\\n@@docs-block-\(index)@@\\n'\n"
      script += block.script.replacingOccurrences(of: "127.0.0.1:8080", with: "127.0.0.1:\(port)")
      script += "\n"
    }
    script +=
      "printf '\\n@@docs-end@@\\n'\njobs -p | xargs -r kill 2> /dev/null\nwait 2> /dev/null\n"
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    process.arguments = ["-c", script]
    process.currentDirectoryURL = work
    var environment = ProcessInfo.processInfo.environment
    for name in ["TRAFFIC_DB", "TRAFFIC_POSTGRES", "TRAFFIC_RESOURCES", "XDG_CACHE_HOME"] {
      environment[name] = nil
    }
    environment["HOME"] = home.path
    environment["TRAFFIC_PORT"] = String(port)
    environment["PATH"] = bin.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
    process.environment = environment
    let output = Pipe()
    process.standardOutput = output
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    // For whoever edits a page: the whole output, to copy what a block printed.
    if let dump = ProcessInfo.processInfo.environment["TRAFFIC_DOCS_DUMP"] {
      try? Data(text.utf8).write(
        to: URL(fileURLWithPath: dump).appendingPathComponent(
          page.path.replacingOccurrences(of: "/", with: "_") + ".out"))
    }
    var outputs: [Int: [String]] = [:]
    var current: Int?
    for line in text.components(separatedBy: "\n") {
      if line.hasPrefix("@@docs-block-"), let number = Int(line.dropFirst(13).dropLast(2)) {
        current = number
        outputs[number] = []
      } else if line == "@@docs-end@@" {
        current = nil
      } else if line.hasPrefix("progress: ") {
        // A long command's progress in a log (its standard error not a terminal): a line
        // every 10 s of a step, so how many depends on the machine's speed; pages show none.
        continue
      } else if let current {
        outputs[current, default: []].append(
          line.replacingOccurrences(of: "127.0.0.1:\(port)", with: "127.0.0.1:8080")
            .replacingOccurrences(of: work.path, with: "$PWD"))
      }
    }
    return outputs
  }

  @Test(arguments: DocumentationRunTests.pages)
  func everyRunBlockPrintsWhatThePageShows(path: String) throws {
    let page = try Self.page(path)
    #expect(!page.blocks.isEmpty)
    let outputs = try Self.run(page)
    for (index, block) in page.blocks.enumerated() where block.runs {
      var printed = outputs[index] ?? []
      while printed.last?.isEmpty == true { printed.removeLast() }
      let shown = "\(path):\(block.line)"
      if let expected = block.expected {
        #expect(
          Self.matches(printed[...], expected[...]),
          "\(shown) printed:\n\(printed.joined(separator: "\n"))\nthe page shows:\n\(expected.joined(separator: "\n"))"
        )
      } else {
        #expect(
          !printed.contains { $0.hasPrefix("(exit status ") },
          "\(shown) failed:\n\(printed.joined(separator: "\n"))")
      }
    }
  }

  @Test func theMatchingRulesHold() {
    #expect(Self.lineMatches("stored in a.sqlite (3 s)", "stored in a.sqlite (… s)"))
    #expect(!Self.lineMatches("stored in b.sqlite (3 s)", "stored in a.sqlite (… s)"))
    #expect(Self.matches(["a", "b", "c", "d"], ["a", "…", "d"]))
    #expect(Self.matches(["a", "d"], ["a", "…", "d"]))
    #expect(!Self.matches(["a", "b"], ["a", "…", "d"]))
    #expect(!Self.matches(["a", "b"], ["a"]))
  }
}
