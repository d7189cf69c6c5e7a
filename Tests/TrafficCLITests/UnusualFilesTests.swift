import Foundation
import Testing
import TrafficTestSupport

@testable import traffic

/// Files that are not plain regular files — symbolic links, FIFOs, `<(…)`, directories,
/// empty files — given where commands read, write or keep their store. The built binary
/// runs under bash, as users name such files.
@Suite struct UnusualFilesTests {
  /// Typical speeds of both segments of way 200 (3 -> 5 -> 4) on Monday mornings.
  static let profiles = """
    way_id,from_node,to_node,weekday,time,speed_kmh,samples
    200,3,5,mon,08:00,20,3
    200,5,4,mon,08:00,25,3

    """

  /// Runs `script` with bash (every command under `timeout 60`, so that a hang fails) in a
  /// fresh directory holding `feed.xml` (DATEX II), `roads.osm` (a small network),
  /// `probes.csv` (cars on it), `profiles.csv` (`profiles`) and `features.geojson`; the
  /// binary is `$TRAFFIC`.
  static func shell(_ script: String) throws -> ChildProcess.Result {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("unusual-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let probes = try FlowCommandsTests.probes()
    defer { try? FileManager.default.removeItem(atPath: probes) }
    for (source, name) in [
      (CarefulCommandsTests.feed.path, "feed.xml"), (FlowCommandsTests.network, "roads.osm"),
      (probes, "probes.csv"),
      (
        Fixtures.repositoryRoot.appendingPathComponent("Samples/berlin-incidents.geojson").path,
        "features.geojson"
      ),
    ] {
      try FileManager.default.copyItem(
        atPath: source, toPath: directory.appendingPathComponent(name).path)
    }
    try Data(profiles.utf8).write(to: directory.appendingPathComponent("profiles.csv"))
    var environment = ProcessInfo.processInfo.environment
    environment["TRAFFIC"] = try CarefulCommandsTests.trafficBinary().path
    environment["TRAFFIC_DB"] = nil
    return try ChildProcess.run(
      URL(fileURLWithPath: "/bin/bash"),
      ["-c", "set -e; traffic() { timeout 60 \"$TRAFFIC\" \"$@\"; }; " + script], in: directory,
      environment: environment, mergingErrors: false)
  }

  // MARK: -o FILE

  @Test func writingThroughASymbolicLinkWritesItsTarget() throws {
    let result = try Self.shell(
      """
      traffic import --db s.sqlite feed.xml > /dev/null 2>&1
      mkdir real
      ln -s real/target.xml link.xml
      traffic export datex2 --db s.sqlite -o link.xml > /dev/null
      readlink link.xml; head -c 5 real/target.xml; echo
      ln -sf real/target.xml link2.xml
      traffic export wzdx --db s.sqlite -o link2.xml > /dev/null
      readlink link2.xml; head -c 1 real/target.xml
      """)
    #expect(result.status == 0, "\(result.errors)")
    #expect(result.output == "real/target.xml\n<?xml\nreal/target.xml\n{", "\(result.errors)")
  }

  @Test func aFIFOIsWrittenInPlace() throws {
    let result = try Self.shell(
      """
      traffic import --db s.sqlite feed.xml > /dev/null 2>&1
      mkfifo out.fifo
      timeout 60 cat out.fifo > copy.xml &
      traffic export datex2 --db s.sqlite -o out.fifo
      wait
      test -p out.fifo && echo "still a FIFO"
      head -c 5 copy.xml
      """)
    #expect(result.status == 0, "\(result.errors)")
    #expect(result.output == "out.fifo: 4 situations (DATEX II v3)\nstill a FIFO\n<?xml")
  }

  @Test func aDirectoryIsNoFileToWrite() async throws {
    let directory = try CarefulCommandsTests.directory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let db = directory.appendingPathComponent("s.sqlite").path
    let imported = await runTraffic(["import", "--db", db, CarefulCommandsTests.feed.path])
    try #require(imported.status == .success)
    for arguments in [
      ["export", "datex2", "--db", db, "-o", directory.path],
      ["render", "--db", db, "--center", "52.5,13.4", "--zoom", "12", "-o", directory.path],
    ] {
      let result = await runTraffic(arguments)
      #expect(result.status == .usage)
      #expect(
        result.errors.hasSuffix(
          "\(directory.path): is a directory; give the name of a file to write\n"),
        "\(result.errors)")
    }
  }

  // MARK: Inputs read once

  @Test func everyImportReadsAFIFOOrProcessSubstitution() throws {
    let result = try Self.shell(
      """
      traffic import --db s.sqlite <(cat feed.xml) 2> /dev/null | cut -d '(' -f 1 | sed 's/ $//'
      traffic network import --db n.sqlite <(cat roads.osm) | cut -d , -f 1 | sed 's/.*: //'
      traffic probes import --db n.sqlite <(cat probes.csv) 2> /dev/null | sed 's/.*: //'
      cat probes.csv | traffic probes import --db n.sqlite /dev/stdin 2> /dev/null
      traffic profiles import --db n.sqlite <(cat profiles.csv) | sed 's/.*: //'
      traffic within --circle 52.4833,13.3600,2000 <(cat features.geojson) | head -1
      """)
    #expect(result.status == 0, "\(result.errors)")
    let lines = result.output.split(separator: "\n").map(String.init)
    #expect(lines.count == 6, "\(result.output)")
    guard lines.count == 6 else { return }
    #expect(lines[0].hasPrefix("datex2 "), "\(lines[0])")
    #expect(lines[0].hasSuffix(": 6 incidents"), "\(lines[0])")
    #expect(lines[1] == "5 nodes")
    #expect(lines[2].hasPrefix("36 accepted, 2 rejected"), "\(lines[2])")
    #expect(lines[3].hasPrefix("/dev/stdin: "), "\(lines[3])")
    #expect(lines[4].hasPrefix("2 rows, typical weeks of 2 segments stored"), "\(lines[4])")
    #expect(lines[5].hasPrefix("3 of 5 features in /dev/fd/"), "\(lines[5])")
  }

  @Test func anEmptyInputIsCalledEmptyNotAnUnknownFormat() throws {
    let result = try Self.shell(
      """
      : > empty.xml; printf ' \\n\\n' > blank.csv
      traffic network import --db n.sqlite roads.osm > /dev/null
      traffic import --db n.sqlite empty.xml || echo "exit $?"
      traffic import --db n.sqlite <(printf '\\n') || echo "exit $?"
      traffic network import --db e.sqlite empty.xml || echo "exit $?"
      traffic network import --db e.sqlite < /dev/null - || echo "exit $?"
      traffic probes import --db n.sqlite blank.csv || echo "exit $?"
      """)
    #expect(result.output == "exit 64\nexit 64\nexit 64\nexit 64\nexit 64\n", "\(result.errors)")
    let lines = result.errors.split(separator: "\n").map(String.init)
    #expect(lines.count == 5, "\(result.errors)")
    guard lines.count == 5 else { return }
    #expect(lines[0].hasPrefix("traffic import: empty.xml: is empty; expects a feed document"))
    #expect(lines[1].contains(": is empty; expects a feed document"), "\(lines[1])")
    #expect(
      lines[2]
        == "traffic network: empty.xml: malformed empty.xml: the file is empty: expects "
        + "OpenStreetMap (XML, .osm.bz2, PBF) or a SUMO .net.xml")
    #expect(lines[3].hasPrefix("traffic network: standard input: "), "\(lines[3])")
    #expect(lines[3].contains("the file is empty"), "\(lines[3])")
    #expect(
      lines[4]
        == "traffic probes: blank.csv: the document is empty: expected CSV with a header, "
        + "NDJSON or SUMO FCD XML")
  }

  @Test func aNetworkFileWithoutAStoreIsRoutedOnAndNoStoreAppears() throws {
    let result = try Self.shell(
      """
      traffic table --network roads.osm --from '\(TableCommandTests.from)' \\
        --to '\(TableCommandTests.to)' --json > table.json
      traffic render --network roads.osm --center 52.5,13.4 --zoom 15 -o map.png > /dev/null
      ls
      """)
    #expect(result.status == 0, "\(result.errors)")
    #expect(result.output.split(separator: "\n").contains("table.json"))
    #expect(!result.output.contains("traffic.sqlite"), "\(result.output)")
  }

  // MARK: The store file

  /// What probes and profiles imports commit is in the store file itself, not only in its
  /// write-ahead log: a copy of the file alone holds it.
  @Test func aCopyOfTheStoreFileHoldsWhatTheImportsWrote() throws {
    let result = try Self.shell(
      """
      traffic network import --db n.sqlite roads.osm > /dev/null
      traffic probes import --db n.sqlite probes.csv > /dev/null 2>&1
      cp n.sqlite copy.sqlite
      traffic flow --db copy.sqlite --circle 47.1,9.501,300 | grep -c 'jam factor 5.2'
      traffic network import --db m.sqlite roads.osm > /dev/null
      traffic profiles import --db m.sqlite profiles.csv > /dev/null
      cp m.sqlite copy2.sqlite
      traffic export profiles --db copy2.sqlite -o - 2> /dev/null | grep -c ',mon,08:00,'
      traffic export profiles --db m.sqlite -o - 2> /dev/null | grep -c ',mon,08:00,'
      """)
    #expect(result.status == 0, "\(result.errors)")
    #expect(result.output == "2\n2\n2\n", "\(result.errors)")
  }

  /// A Waze feed of `count` alerts, each with a long description (a large import).
  static func largeWazeFeed(count: Int) -> Data {
    let now = Int(Date().timeIntervalSince1970 * 1000) - 60_000
    let alerts = (0..<count).map { index in
      """
      {"country":"US","type":"ACCIDENT","subtype":"ACCIDENT_MAJOR","uuid":"u-\(index)",\
      "street":"Street \(index)","location":{"x":\(-89.6 + Double(index % 200) * 0.001),\
      "y":\(39.7 + Double(index / 200) * 0.001)},"pubMillis":\(now),\
      "reportDescription":"alert \(index) \(String(repeating: "x", count: 200))"}
      """
    }
    return Data(("{\"alerts\":[" + alerts.joined(separator: ",") + "]}").utf8)
  }

  /// A large import (20,000 alerts: a write-ahead log of tens of MB, which the background
  /// checkpoint is still copying when the import ends) leaves everything in the store file
  /// itself, its log emptied: a copy of the file alone holds every incident.
  @Test func aCopyOfTheStoreFileHoldsALargeImport() throws {
    let feed = FileManager.default.temporaryDirectory
      .appendingPathComponent("large-waze-\(UUID().uuidString).json")
    try Self.largeWazeFeed(count: 20_000).write(to: feed)
    defer { try? FileManager.default.removeItem(at: feed) }
    let result = try Self.shell(
      """
      for round in 1 2; do
        traffic import --db big$round.sqlite \(feed.path) > /dev/null
        echo "log $(cat big$round.sqlite-wal 2> /dev/null | wc -c)"
        mkdir copy$round; cp big$round.sqlite copy$round/
        traffic lookup --db copy$round/big$round.sqlite u-19999 | head -1
      done
      """)
    #expect(result.status == 0, "\(result.errors)")
    #expect(
      result.output == String(repeating: "log 0\nu-19999 (version u-19999)\n", count: 2),
      "\(result.errors)")
  }

  @Test(arguments: [
    ["incidents", "--db", "DB", "--circle", "52,13,100"], ["lookup", "--db", "DB", "someid"],
    ["nearest", "--db", "DB", "52,13"], ["flow", "--db", "DB", "--circle", "52,13,100"],
    ["export", "datex2", "--db", "DB", "-o", "-"], ["export", "osrm", "--db", "DB", "-o", "-"],
  ])
  func anEmptyFileIsNoStoreAndStaysEmpty(arguments: [String]) async throws {
    let directory = try CarefulCommandsTests.directory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let db = directory.appendingPathComponent("e.sqlite").path
    try #require(FileManager.default.createFile(atPath: db, contents: nil))
    let result = await runTraffic(arguments.map { $0 == "DB" ? db : $0 })
    #expect(result.status == .usage)
    #expect(result.errors.contains("\(db) is empty, not a swift-traffic store"), "\(result.errors)")
    let size = try FileManager.default.attributesOfItem(atPath: db)[.size] as? Int
    #expect(size == 0)
  }

  @Test func anEmptyOrDevicePathIsNoStore() async {
    let empty = await runTraffic(["incidents", "--db", "", "--circle", "52,13,100"])
    #expect(empty.status == .usage)
    #expect(empty.errors == "traffic incidents: --db expects the path of a store file\n")
    let device = await runTraffic(["import", "--db", "/dev/zero", CarefulCommandsTests.feed.path])
    #expect(device.status == .usage)
    #expect(
      device.errors
        == "traffic import: /dev/zero is not a regular file, so it cannot hold a swift-traffic store\n"
    )
  }

  /// Files that cannot be read as asked are named with the problem in plain words, never
  /// Foundation's error numbers.
  @Test func unreadableFilesAreNamedInPlainWords() async throws {
    let directory = try CarefulCommandsTests.directory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let binary = directory.appendingPathComponent("keys.bin")
    try Data([0xFF, 0xFE, 0x00, 0xC3, 0x28, 0x80]).write(to: binary)
    let keys = await runTraffic(["serve", "--keys-file", binary.path])
    #expect(keys.status == .usage)
    #expect(
      keys.errors
        == "traffic serve: --keys-file: cannot read the API keys file \(binary.path): not UTF-8 text\n"
    )
    let folder = await runTraffic(["serve", "--keys-file", directory.path])
    #expect(
      folder.errors
        == "traffic serve: --keys-file: cannot read the API keys file \(directory.path): is a "
        + "directory, not a file\n")
    let within = await runTraffic(["within", "--circle", "52,13,100", directory.path])
    #expect(within.status == .usage)
    #expect(within.errors == "traffic within: \(directory.path): is a directory, not a file\n")
  }
}
