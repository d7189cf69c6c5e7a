import Foundation
import Testing
import TrafficTestSupport

/// Standard output that cannot be written: a full disk, a closed descriptor, a reader that
/// went away. The built binary runs under bash, as users redirect it.
@Suite struct StandardOutputTests {
  /// Runs `script` with bash in a fresh directory holding `feed.xml` and `good.sqlite` (the
  /// feed imported), the binary as `$TRAFFIC`; standard error kept apart.
  static func shell(_ script: String) throws -> ChildProcess.Result {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("stdout-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    try FileManager.default.copyItem(
      at: CarefulCommandsTests.feed, to: directory.appendingPathComponent("feed.xml"))
    var environment = ProcessInfo.processInfo.environment
    environment["TRAFFIC"] = try CarefulCommandsTests.trafficBinary().path
    environment["TRAFFIC_DB"] = nil
    let prepared = try ChildProcess.run(
      URL(fileURLWithPath: "/bin/bash"),
      ["-c", "\"$TRAFFIC\" import --db good.sqlite feed.xml > /dev/null 2>&1"], in: directory,
      environment: environment)
    try #require(prepared.status == 0, "\(prepared.output)")
    return try ChildProcess.run(
      URL(fileURLWithPath: "/bin/bash"), ["-c", script], in: directory,
      environment: environment, mergingErrors: false)
  }

  static let commands = [
    "incidents --db good.sqlite --circle 52.5,13.4,50000", "help", "help --man", "--version",
    "export datex2 --db good.sqlite -o -", "export wzdx --db good.sqlite -o -",
    "render --db good.sqlite --center 52.5,13.4 --zoom 12 --size 64x48 -o -",
  ]

  @Test(arguments: commands)
  func aFullDiskIsOneLineAndStatus1(command: String) throws {
    let result = try Self.shell("\"$TRAFFIC\" \(command) > /dev/full")
    #expect(result.status == 1, "\(result.errors)")
    #expect(result.errors == "traffic: cannot write standard output: no space left on device\n")
  }

  @Test(arguments: commands)
  func aClosedStandardOutputIsOneLineAndStatus1(command: String) throws {
    let result = try Self.shell("\"$TRAFFIC\" \(command) >&-")
    #expect(result.status == 1, "\(result.errors)")
    #expect(result.errors == "traffic: cannot write standard output: bad file descriptor\n")
  }

  /// A closed standard output is never a file opened later: the export still goes to its
  /// file, and nothing else lands in it.
  @Test func aClosedStandardOutputIsNotTheExportsFile() throws {
    let result = try Self.shell(
      "\"$TRAFFIC\" export datex2 --db good.sqlite -o out.xml >&-; echo \"status $?\" >&2;"
        + " head -c 5 out.xml >&2")
    #expect(result.errors.hasSuffix("status 1\n<?xml"), "\(result.errors)")
  }

  /// A reader that has gone (`| head -1`): ended by SIGPIPE like other tools, quietly, also
  /// when the shell ignores SIGPIPE.
  @Test(arguments: ["", "trap '' PIPE; "])
  func aBrokenPipeEndsQuietly(prefix: String) throws {
    // The reader is gone before the binary writes.
    let result = try Self.shell(
      "\(prefix){ sleep 0.5; \"$TRAFFIC\" incidents --db good.sqlite --circle 52.5,13.4,50000;"
        + " echo \"status $?\" >&2; } | true")
    #expect(result.errors == "status 141\n")
  }
}
