import Foundation
import Testing
import Traffic
import TrafficSQLite
import TrafficTestSupport

@testable import traffic

@Suite struct MapCommandsTests {
  /// A database holding one active accident at 47.14,9.52.
  static func database() throws -> String {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("map-\(UUID().uuidString).sqlite").path
    let store = try SQLiteTrafficStore(path: path)
    try store.apply(
      IncidentBatch(upserts: [
        try TrafficIncident(
          id: "acc-1", originalId: "acc", type: .accident, impact: .critical,
          startTime: Date() - 60, endTime: Date() + 3600,
          location: TrafficLocation(point: try GeoCoordinates(latitude: 47.14, longitude: 9.52)))
      ]))
    return path
  }

  @Test func renderWritesAPNGOfTheRequestedSize() async throws {
    let database = try Self.database()
    defer { TemporaryFiles.removeDatabase(database) }
    let output = FileManager.default.temporaryDirectory.appendingPathComponent("r-\(UUID()).png")
    defer { try? FileManager.default.removeItem(at: output) }
    let result = await runTraffic([
      "render", "--db", database, "--center", "47.14,9.52", "--zoom", "14", "--size", "320x200",
      "-o", output.path,
    ])
    #expect(result.status == .success, "\(result.errors)")
    let png = try Data(contentsOf: output)
    #expect(png.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
    // IHDR: width and height, big-endian, at bytes 16..<24.
    let width = png[16..<20].reduce(0) { $0 << 8 | Int($1) }
    let height = png[20..<24].reduce(0) { $0 << 8 | Int($1) }
    #expect(width == 320 && height == 200)
  }

  @Test func pickFindsTheIncidentUnderTheTap() async throws {
    let database = try Self.database()
    defer { TemporaryFiles.removeDatabase(database) }
    let view = ["--db", database, "--center", "47.14,9.52", "--zoom", "15", "--size", "400x300"]
    let hit = await runTraffic(["pick"] + view + ["--at", "200,150"])
    #expect(hit.status == .success, "\(hit.errors)")
    #expect(hit.output.contains("[accident, critical] acc"))
    let miss = await runTraffic(["pick"] + view + ["--at", "20,20"])
    #expect(miss.output.hasPrefix("0 incidents"))
    let off = await runTraffic(["pick"] + view + ["--at", "200,150", "--features", "flow"])
    #expect(off.output.hasPrefix("0 incidents"), "a disabled layer picks nothing")
    let json = await runTraffic(["pick"] + view + ["--at", "190,140", "--rect", "20,20", "--json"])
    #expect(json.output.contains("\"originalId\":\"acc\""))
  }

  @Test(arguments: [
    (["render", "--zoom", "3", "-o", "/tmp/x.png"], "--center"),
    (["render", "--center", "47,9", "-o", "/tmp/x.png"], "--zoom"),
    (["render", "--center", "47,9", "--zoom", "30", "-o", "/tmp/x.png"], "--zoom expects"),
    (
      ["render", "--center", "47,9", "--zoom", "3", "--size", "0x10", "-o", "/tmp/x.png"], "--size"
    ),
    (
      ["render", "--center", "47,9", "--zoom", "3", "--features", "weather", "-o", "/tmp/x.png"],
      "--features"
    ),
    (
      ["render", "--center", "47,9", "--zoom", "3", "--flow-mode", "rainbow", "-o", "/tmp/x.png"],
      "--flow-mode"
    ),
    (["render", "--center", "47,9", "--zoom", "3"], "-o FILE.png"),
    (
      ["render", "--center", "47,9", "--zoom", "3", "-o", "/nonexistent/dir/x.png"], "cannot write"
    ),
    (["pick", "--center", "47,9", "--zoom", "3"], "--at"),
    (["pick", "--center", "47,9", "--zoom", "3", "--at", "1,1", "--rect", "0,5"], "--rect"),
    (
      ["pick", "--center", "47,9", "--zoom", "3", "--size", "256x256", "--at", "999,10"],
      "--at 999,10 lies outside the 256x256 image"
    ),
    (
      ["render", "--center", "47,9", "--zoom", "3", "--zoom", "4", "-o", "/tmp/x.png"],
      "--zoom is given more than once"
    ),
  ])
  func badArgumentsExitWith64(arguments: [String], message: String) async throws {
    let database = try Self.database()
    defer { TemporaryFiles.removeDatabase(database) }
    var withDatabase = arguments
    withDatabase.insert(contentsOf: ["--db", database], at: 1)
    let result = await runTraffic(withDatabase)
    #expect(result.status == .usage, "\(result)")
    #expect(result.errors.contains(message), "stderr was: \(result.errors)")
  }
}
