import Foundation
import Testing
import TrafficSQLite
import TrafficTestSupport

@testable import traffic

/// What the commands do with an SQLite file that holds no store, and with a store this user
/// cannot write: reading commands read what is there and change nothing; writing commands
/// say in our words why they cannot write.
@Suite struct StoreAccessTests {
  /// The commands that read a store, `DB` standing for its path.
  static let readingCommands: [[String]] = [
    ["incidents", "--db", "DB", "--circle", "52.48,13.3,1000"], ["lookup", "--db", "DB", "acc-1"],
    ["nearest", "--db", "DB", "52.48,13.3"], ["flow", "--db", "DB", "--circle", "47.1,9.501,300"],
    ["route", "--db", "DB", "--from", "47.0992,9.501", "--to", "47.1008,9.501"],
    ["table", "--db", "DB", "--from", "47.0992,9.501", "--to", "47.1008,9.501"],
    ["render", "--db", "DB", "--center", "47.1,9.501", "--zoom", "14", "-o", "-"],
    [
      "pick", "--db", "DB", "--center", "52.48,13.3", "--zoom", "14", "--size", "256x256", "--at",
      "128,128",
    ],
    ["export", "datex2", "--db", "DB", "-o", "-"], ["export", "osrm", "--db", "DB", "-o", "-"],
  ]

  /// An SQLite database without tables (4,096 bytes, as a copy of an empty database) and
  /// one of another program, in a fresh directory.
  static func foreignFiles() throws -> (directory: URL, blank: String, other: String) {
    let directory = try CarefulCommandsTests.directory()
    let blank = directory.appendingPathComponent("blank.sqlite").path
    try SQLiteScript.run("CREATE TABLE t (x); DROP TABLE t; VACUUM", inFileAt: blank)
    let other = directory.appendingPathComponent("other.sqlite").path
    try SQLiteScript.run(
      "CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO photos VALUES (1, 'a')",
      inFileAt: other)
    return (directory, blank, other)
  }

  @Test(arguments: readingCommands)
  func aReadingCommandRefusesAnSQLiteFileWithoutAStoreAndLeavesItAsItWas(
    arguments: [String]
  ) async throws {
    let (directory, blank, other) = try Self.foreignFiles()
    defer { try? FileManager.default.removeItem(at: directory) }
    let before = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    let blankBytes = try Data(contentsOf: URL(fileURLWithPath: blank))
    let otherBytes = try Data(contentsOf: URL(fileURLWithPath: other))
    let empty = await runTraffic(arguments.map { $0 == "DB" ? blank : $0 })
    #expect(empty.status == .usage, "\(empty.output)")
    #expect(
      empty.errors.hasSuffix(
        ": \(blank) is an SQLite database without a swift-traffic store in it; import into it "
          + "first (traffic import FILE, traffic network import FILE) or name another with "
          + "--db or TRAFFIC_DB\n"), "\(empty.errors)")
    let foreign = await runTraffic(arguments.map { $0 == "DB" ? other : $0 })
    #expect(foreign.status == .usage, "\(foreign.output)")
    #expect(
      foreign.errors.hasSuffix(
        ": \(other) is an SQLite database of another application (it holds tables of its "
          + "own), not a traffic store\n"), "\(foreign.errors)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: blank)) == blankBytes)
    #expect(try Data(contentsOf: URL(fileURLWithPath: other)) == otherBytes)
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == before)
  }

  /// An import may make a store in an SQLite database without tables, never in one that
  /// holds another program's tables.
  @Test func anImportFillsAnEmptySQLiteDatabaseButNotAnotherProgramsOne() async throws {
    let (directory, blank, other) = try Self.foreignFiles()
    defer { try? FileManager.default.removeItem(at: directory) }
    let otherBytes = try Data(contentsOf: URL(fileURLWithPath: other))
    let refused = await runTraffic(["import", "--db", other, CarefulCommandsTests.feed.path])
    #expect(refused.status == .usage)
    #expect(
      refused.errors
        == "traffic import: \(other) is an SQLite database of another application (it holds "
        + "tables of its own), not a traffic store\n")
    #expect(try Data(contentsOf: URL(fileURLWithPath: other)) == otherBytes)
    let imported = await runTraffic(["import", "--db", blank, CarefulCommandsTests.feed.path])
    #expect(imported.status == .success, "\(imported.errors)")
    let found = await runTraffic(["lookup", "--db", blank, "acc-1"])
    #expect(found.status == .success, "\(found.errors)")
  }

  // MARK: A store this user cannot write

  /// Runs the built binary in `directory` as a user who cannot write what root's tests
  /// made: this one when it is not root (files and directories are then made read-only),
  /// else `nobody` through setpriv; `nil` when neither can be done (root without setpriv,
  /// or a build `nobody` cannot reach).
  static func unprivilegedRunner() throws -> (([String], URL) throws -> ChildProcess.Result)? {
    var environment = ProcessInfo.processInfo.environment
    environment["TRAFFIC_DB"] = nil
    let binary = try CarefulCommandsTests.trafficBinary()
    guard getuid() == 0 else {
      return { arguments, directory in
        try ChildProcess.run(
          binary, arguments, in: directory, environment: environment, mergingErrors: false)
      }
    }
    let setpriv = URL(fileURLWithPath: "/usr/bin/setpriv")
    guard FileManager.default.isExecutableFile(atPath: setpriv.path),
      let nobody = getpwnam("nobody")
    else { return nil }
    let run = { (arguments: [String], directory: URL) throws -> ChildProcess.Result in
      try ChildProcess.run(
        setpriv,
        [
          "--reuid=\(nobody.pointee.pw_uid)", "--regid=\(nobody.pointee.pw_gid)",
          "--clear-groups", binary.path,
        ] + arguments, in: directory, environment: environment, mergingErrors: false)
    }
    let probe = try run(["--version"], FileManager.default.temporaryDirectory)
    return probe.status == 0 ? run : nil
  }

  /// A store with incidents, a road network and flow (`s.sqlite`) and its backup made with
  /// `VACUUM INTO` (`backup.sqlite`), both read-only in a read-only directory `ro`.
  static func readOnlyStores() throws -> URL {
    let directory = try CarefulCommandsTests.directory()
    let probes = try FlowCommandsTests.probes()
    defer { try? FileManager.default.removeItem(atPath: probes) }
    let store = directory.appendingPathComponent("s.sqlite").path
    for arguments in [
      ["network", "import", "--db", store, FlowCommandsTests.network],
      ["probes", "import", "--db", store, probes],
      ["import", "--db", store, CarefulCommandsTests.feed.path],
    ] {
      let result = try ChildProcess.run(
        try CarefulCommandsTests.trafficBinary(), arguments, mergingErrors: false)
      try #require(result.status == 0, "\(arguments): \(result.errors)")
    }
    let readOnly = directory.appendingPathComponent("ro")
    try FileManager.default.createDirectory(at: readOnly, withIntermediateDirectories: false)
    try FileManager.default.moveItem(
      atPath: store, toPath: readOnly.appendingPathComponent("s.sqlite").path)
    let backup = readOnly.appendingPathComponent("backup.sqlite").path
    try SQLiteScript.run(
      "VACUUM INTO '\(backup)'", inFileAt: readOnly.appendingPathComponent("s.sqlite").path)
    for name in try FileManager.default.contentsOfDirectory(atPath: readOnly.path) {
      chmod(readOnly.appendingPathComponent(name).path, 0o444)
    }
    chmod(readOnly.path, 0o555)
    return directory
  }

  /// The backup of a store is itself a store (operations.md, "Backups"), also where its
  /// reader cannot write: every reading command reads it and the store, and leaves no file
  /// beside them; every command that writes says it cannot, in our words.
  @Test func readingCommandsReadAStoreThisUserCannotWrite() async throws {
    let directory = try Self.readOnlyStores()
    let readOnly = directory.appendingPathComponent("ro")
    defer {
      chmod(readOnly.path, 0o755)
      try? FileManager.default.removeItem(at: directory)
    }
    guard let run = try Self.unprivilegedRunner() else {
      // Root without setpriv: permissions do not bite; SQLite's read-only path at least.
      for name in ["s.sqlite", "backup.sqlite"] {
        let path = readOnly.appendingPathComponent(name).path
        let store = try SQLiteTrafficStore(path: path, access: .readOnly, creating: false)
        #expect(try store.currentIncidents().count == 6)
      }
      return
    }
    let listing = try FileManager.default.contentsOfDirectory(atPath: readOnly.path).sorted()
    for name in ["s.sqlite", "backup.sqlite"] {
      for arguments in Self.readingCommands {
        let result = try run(arguments.map { $0 == "DB" ? name : $0 }, readOnly)
        #expect(result.status == 0, "\(arguments) on \(name): \(result.errors)")
        #expect(!result.errors.contains("SQLite"), "\(result.errors)")
      }
      let found = try run(["lookup", "--db", name, "acc-1"], readOnly)
      #expect(found.output.hasPrefix("acc-1 "), "\(found.output)")
      let flow = try run(["flow", "--db", name, "--circle", "47.1,9.501,300"], readOnly)
      #expect(flow.output.hasPrefix("8 road segments"), "\(flow.output)")
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: readOnly.path).sorted() == listing)

    // The inputs beside the read-only folder, where the unprivileged user can read them
    // (the repository may lie in a folder only its owner can enter, as mktemp makes one).
    let inputs = try FlowCommandsTests.probes()
    defer { try? FileManager.default.removeItem(atPath: inputs) }
    var copies: [String] = []
    for (source, name) in [
      (CarefulCommandsTests.feed.path, "feed.xml"), (inputs, "probes.csv"),
      (FlowCommandsTests.network, "roads.osm"),
    ] {
      let copy = directory.appendingPathComponent(name).path
      try FileManager.default.copyItem(atPath: source, toPath: copy)
      chmod(copy, 0o644)
      copies.append(copy)
    }
    for arguments in [
      ["import", "--db", "s.sqlite", copies[0]],
      ["probes", "import", "--db", "s.sqlite", copies[1]],
      ["network", "import", "--db", "s.sqlite", copies[2]],
    ] {
      let result = try run(arguments, readOnly)
      #expect(result.status == 64)
      #expect(
        result.errors == "traffic \(arguments[0]): cannot write s.sqlite: permission denied\n")
    }
    let fresh = try run(["import", copies[0]], readOnly)
    #expect(fresh.status == 64)
    #expect(
      fresh.errors
        == "traffic import: cannot create ./traffic.sqlite: the directory . cannot be written "
        + "(permission denied)\n")
    #expect(try FileManager.default.contentsOfDirectory(atPath: readOnly.path).sorted() == listing)
  }
}
