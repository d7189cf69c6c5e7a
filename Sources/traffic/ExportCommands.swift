import Foundation
import Geo
import Roads
import Traffic
import TrafficFeeds
import TrafficSQLite

/// `traffic export osrm|valhalla|profiles|datex2|wzdx [AREA] [--at TIME] -o FILE`: the
/// store's speeds in the formats of other routing engines, its typical weeks in this
/// project's file, or its incidents as a DATEX II v3 or WZDx 4.2 feed.
enum ExportCommand: Subcommand {
  static let name = "export"
  static let summary =
    "Export speeds for OSRM or Valhalla, the typical speeds file, or DATEX II / WZDx feeds"
  static let synopsis = """
    Usage: traffic export osrm|valhalla|profiles [AREA] [--at TIME] [--db PATH]
                          [--way-edges FILE] -o FILE
           traffic export datex2|wzdx [AREA] [--at TIME] [--type TYPES]
                          [--publisher NAME] [--country CC] [--lang TAG] [--db PATH] -o FILE

    osrm:     OSRM's segment speed CSV (from_osm_node,to_osm_node,speed_kmh) of every
              segment whose speed rests on data, now or at --at TIME (the typical picture
              of that time); for osrm-customize/osrm-contract --segment-speed-file.
    valhalla: Valhalla's historical traffic CSV (edge_id,freeflow_speed,constrained_speed,
              historical_speeds) of the segments with a typical week, for
              valhalla_add_predicted_traffic; needs --way-edges, the way_edges.txt that
              valhalla_ways_to_edges writes for your Valhalla tiles. With -o DIR/ (an
              existing directory, or a path ending in /) one CSV per Valhalla tile, the
              traffic tile directory valhalla_add_predicted_traffic reads.
    profiles: the typical weeks in this project's CSV (see docs/guide.md), which
              traffic profiles import reads back.
    datex2:   the incidents that have not ended (now, or at --at TIME) as a DATEX II v3
              SituationPublication, the document GET /datex2/v3/situations serves.
    wzdx:     the work zones and closures that have not ended (now, or at --at TIME) as
              a WZDx 4.2 WorkZoneFeed, the document GET /wzdx/v4.2/feed serves.
    """
  static let options: [OptionDefinition] =
    AreaArgument.options + [
      OptionDefinition(
        "--at", "TIME",
        "the picture of another time: RFC 3339 or an offset such as +6h (speeds: the typical "
          + "picture; datex2, wzdx: what has not ended then)"),
      OptionDefinition(
        "--db", "PATH", "the SQLite store (default: $TRAFFIC_DB or ./traffic.sqlite)"),
      OptionDefinition("--way-edges", "FILE", "Valhalla's way_edges.txt (valhalla only)"),
      OptionDefinition(
        "--type", "TYPES", "only incidents of these types, comma-separated (datex2, wzdx)"),
      OptionDefinition(
        "--publisher", "NAME", "the publishing organisation (datex2, wzdx; swift-traffic)"),
      OptionDefinition(
        "--country", "CC", "the publisher's country, ISO 3166-1 alpha-2 (datex2)"),
      OptionDefinition("--lang", "TAG", "the language of generated texts (datex2, wzdx)"),
      OptionDefinition("-o", "FILE", "where to write the export (- for standard output)"),
    ]

  static func run(_ arguments: ArgumentList, console: Console) async throws {
    var arguments = arguments
    let area = try AreaArgument.takeOptional(from: &arguments)
    let time = try IncidentOptions.time(from: &arguments, option: "--at")
    let path = try EngineArguments.databasePath(from: &arguments)
    let wayEdgesPath = try arguments.option("--way-edges")
    // The format first: without it, -o alone would be the complaint.
    guard arguments.upcomingPositionals.count == 1 else {
      throw UsageError("expects one format: osrm, valhalla, profiles, datex2 or wzdx")
    }
    guard let output = try arguments.option("-o") else {
      throw UsageError("-o FILE is required: where to write the export")
    }
    let publishing = try PublishingArguments.take(from: &arguments)
    let rest = try arguments.positionals()
    guard rest.count == 1, let format = rest.first else {
      throw UsageError("expects one format: osrm, valhalla, profiles, datex2 or wzdx")
    }
    guard ["osrm", "valhalla", "profiles", "datex2", "wzdx"].contains(format) else {
      throw UsageError(
        "unknown export format '\(format)'; use osrm, valhalla, profiles, datex2 or wzdx")
    }
    if format == "datex2" || format == "wzdx" {
      try publishing.export(
        format: format, area: area, at: time, databasePath: path, output: output,
        console: console)
      return
    }
    if publishing.isGiven {
      throw UsageError("--type, --publisher, --country and --lang are for datex2 and wzdx")
    }
    if format == "valhalla", wayEdgesPath == nil {
      throw UsageError(
        "valhalla needs --way-edges FILE: Valhalla names edges by its own graph ids, which "
          + "valhalla_ways_to_edges lists per OpenStreetMap way for your tiles")
    }
    let engine = try EngineArguments.sqliteEngine(at: path, for: .reading)
    guard let picture = try engine.speedPicture(inside: area, at: time) else {
      throw UsageError("\(path) holds no road network; run traffic network import FILE first")
    }
    let text: String
    let summary: String
    switch format {
    case "osrm":
      do {
        let (csv, segments) = try OSRMSpeedExport.csv(picture)
        text = csv
        summary = "\(segments) segments"
      } catch { throw UsageError("\(path): \(error)") }
    case "valhalla":
      let edgesText: String
      guard let wayEdgesPath else {
        throw UsageError("valhalla needs --way-edges FILE (Valhalla's way_edges.txt)")
      }
      edgesText = String(decoding: try FileArguments.contents(wayEdgesPath), as: UTF8.self)
      let edges: ValhallaSpeedExport.WayEdges
      do { edges = try ValhallaSpeedExport.wayEdges(edgesText) } catch {
        throw UsageError("\(wayEdgesPath): \(error)")
      }
      var isDirectory: ObjCBool = false
      if output.hasSuffix("/")
        || (FileManager.default.fileExists(atPath: output, isDirectory: &isDirectory)
          && isDirectory.boolValue)
      {
        let tiles = ValhallaSpeedExport.tiles(picture, edges: edges)
        let root = URL(fileURLWithPath: output, isDirectory: true)
        do {
          for tile in tiles {
            let url = root.appendingPathComponent(tile.path)
            try FileManager.default.createDirectory(
              at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(tile.text.utf8).write(to: url, options: .atomic)
          }
        } catch {
          throw UsageError("\(output): cannot write: \(FileArguments.reason(error))")
        }
        let rows = tiles.reduce(0) { $0 + $1.text.split(separator: "\n").count }
        console.print("\(output): \(rows) Valhalla edges in \(tiles.count) tile files (valhalla)")
        return
      }
      let (csv, count) = ValhallaSpeedExport.csv(picture, edges: edges)
      text = csv
      summary = "\(count) Valhalla edges"
    default:
      let (csv, segments) = TypicalSpeedsFile.encode(picture)
      text = csv
      summary = "typical weeks of \(segments) segments"
    }
    try FileArguments.write(Data(text.utf8), to: output, console: console)
    FileArguments.summary("\(output): \(summary) (\(format))", output: output, console: console)
  }
}

/// `traffic profiles import FILE`: typical weeks learned elsewhere, into the store.
enum ProfilesCommand: Subcommand {
  static let name = "profiles"
  static let summary = "Import typical speeds (this project's CSV) into the store"
  static let synopsis = """
    Usage: traffic profiles import [--db PATH] FILE

    Replaces the typical weeks of the segments FILE names (way_id,from_node,to_node,
    weekday,time,speed_kmh,samples; see docs/guide.md) in the store's flow state.
    FILE - reads standard input.
    """
  static let options: [OptionDefinition] = [
    OptionDefinition(
      "--db", "PATH", "the SQLite store (default: $TRAFFIC_DB or ./traffic.sqlite)")
  ]

  static func run(_ arguments: ArgumentList, console: Console) async throws {
    var arguments = arguments
    let path = try EngineArguments.databasePath(from: &arguments)
    let rest = try arguments.positionals()
    guard rest.first == "import", rest.count == 2 else {
      throw UsageError("expects 'import FILE'")
    }
    let file = rest[1]
    guard let text = String(data: try FileArguments.contents(file), encoding: .utf8) else {
      throw UsageError("\(file): not UTF-8 text")
    }
    let engine = try EngineArguments.sqliteEngine(at: path, for: .updating)
    // The typical weeks are part of the flow a running server writes back when it stops.
    let lock = try ServeLock(
      store: path,
      for: .importer(
        command: "traffic profiles import",
        instead: "stop it, import the profiles, then start it again"))
    defer { withExtendedLifetime(lock) {} }
    guard let network = engine.roadNetwork else {
      throw UsageError("\(path) holds no road network; run traffic network import FILE first")
    }
    // Days since 1970, a week back: imported bins count as typical at once.
    let day = TypicalSpeeds.day(of: Date()) - 7
    let decoded: TypicalSpeedsFile.Decoded
    do { decoded = try TypicalSpeedsFile.decode(text, network: network, day: day) } catch {
      throw UsageError("\(file): \(error)")
    }
    let set: Int
    do { set = try engine.setTypicalWeeks(decoded.weeks) } catch {
      throw UsageError("\(path): \(error)")
    }
    EngineArguments.finishWriting(engine, command: name, console: console)
    console.print(
      "\(file): \(decoded.rows) rows, typical weeks of \(set) segments stored in \(path)"
        + (decoded.unknownSegments > 0
          ? "; \(decoded.unknownSegments) rows name segments this network does not have" : ""))
  }
}
