import Foundation
import Testing

@testable import traffic

/// What was forgotten or mistyped is named before the store is looked for: given a store
/// that does not exist, a command that reads names the missing or stray argument, never
/// "no store at" (which would send the user to import something first).
@Suite struct ArgumentOrderTests {
  @Test(arguments: [
    (["route"], "traffic route: give --from and --to (or --coords, or --polyline)"),
    (["route", "--to", "47.1,9.5"], "traffic route: --from is missing: --to needs --from LAT,LNG"),
    (["route", "--from", "47.1,9.5"], "traffic route: --from needs --to LAT,LNG"),
    (
      ["route", "--coords", "47,9;48,9", "--polyline", "BFoz5xJ67i1B1B7PzIhaxL7Y"],
      "traffic route: give --coords or --polyline, not both"
    ),
    (
      ["route", "--coords", "47,9;48,9", "--to", "47.1,9.5"],
      "traffic route: --to belongs to the other form of route; --coords or --polyline is the route"
    ),
    (
      ["route", "--from", "47.1,9.5", "--to", "47.2,9.5", "home"],
      "traffic route: unexpected argument 'home'; see traffic help route"
    ),
    (
      ["route", "--coords", "47,9;48,9", "a", "b"],
      "traffic route: unexpected arguments 'a' 'b'; see traffic help route"
    ),
    (["nearest"], "traffic nearest: expects exactly one LAT,LNG"),
    (["nearest", "47.1,9.5", "47.2,9.5"], "traffic nearest: expects exactly one LAT,LNG"),
    (
      ["nearest", "Vaduz"],
      "traffic nearest: LAT,LNG expects 2 comma-separated numbers, got 'Vaduz'"
    ),
    (["lookup"], "traffic lookup: expects exactly one ORIGINAL_ID"),
    (
      ["incidents", "--circle", "47.1,9.5,1000", "extra"],
      "traffic incidents: unexpected argument 'extra'; see traffic help incidents"
    ),
    (
      ["flow", "--circle", "47.1,9.5,1000", "extra"],
      "traffic flow: unexpected argument 'extra'; see traffic help flow"
    ),
    (["table"], "traffic table: give the origins: --from \"LAT,LNG;LAT,LNG...\""),
    (
      ["table", "--from", "47.1,9.5", "--to", "47.2,9.5", "extra"],
      "traffic table: unexpected argument 'extra'; see traffic help table"
    ),
    (["render", "-o", "map.png"], "traffic render: --center LAT,LNG is required"),
    (
      ["render", "-o", "map.png", "--center", "47.1,9.5", "--zoom", "12", "extra"],
      "traffic render: unexpected argument 'extra'; see traffic help render"
    ),
    (
      ["pick", "--at", "1,1", "--center", "47.1,9.5", "--zoom", "12", "extra"],
      "traffic pick: unexpected argument 'extra'; see traffic help pick"
    ),
  ])
  func theArgumentIsNamedBeforeTheStore(arguments: [String], message: String) async throws {
    let directory = try CarefulCommandsTests.directory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let db = directory.appendingPathComponent("traffic.sqlite").path
    let result = await runTraffic(arguments + ["--db", db])
    #expect(result.status == .usage)
    #expect(result.errors == message + "\n")
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
  }
}
