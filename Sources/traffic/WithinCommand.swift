import Codec
import Foundation
import Geo

/// `traffic within AREA FILE.geojson`: the features of a GeoJSON file whose geometry really
/// meets the area (segments tested exactly, not bounding boxes), nearest first when asked.
enum WithinCommand: Subcommand {
  static let name = "within"
  static let summary = "Features of a GeoJSON file inside a circle, box or corridor"
  static let synopsis = """
    Usage: traffic within AREA [--sort-from LAT,LNG] [--json] FILE.geojson

    Prints the features of a GeoJSON FeatureCollection whose geometry meets AREA, one of
    --circle, --box, --corridor and --corridor-coords: a path through it, or a polygon
    around it (not its hole). A feature without a geometry (null) meets none; a
    GeometryCollection meets where a member does. FILE - reads standard input.
    """
  static let options: [OptionDefinition] =
    AreaArgument.options + [
      OptionDefinition(
        "--sort-from", "LAT,LNG", "order by true distance to each geometry from this point"),
      OptionDefinition(
        flag: "--json", "print the matching features as a GeoJSON FeatureCollection"),
    ]

  static func run(_ arguments: ArgumentList, console: Console) async throws {
    var arguments = arguments
    let area = try AreaArgument.take(from: &arguments)
    let sortFrom = try arguments.option("--sort-from").map { text throws(UsageError) in
      try AreaArgument.coordinates(text, option: "--sort-from")
    }
    let json = arguments.flag("--json")
    let files = try arguments.positionals()
    guard files.count == 1 else { throw UsageError("expects exactly one GeoJSON file") }

    let data = try FileArguments.contents(files[0])
    let collection: GeoJSONFeatureCollection
    do { collection = try GeoJSONFeatureCollection(data: data) } catch {
      throw UsageError("\(files[0]): \(SystemErrorText.describe(error))")
    }

    let matches = collection.features(meeting: area, nearestTo: sortFrom)
    if json {
      let output = GeoJSONFeatureCollection(features: matches.map(\.feature))
      console.print(String(decoding: try output.encoded(), as: UTF8.self))
      return
    }
    console.print(
      "\(matches.count) of \(collection.features.count) features in \(files[0]) meet the area")
    for (rank, (feature, distance)) in matches.enumerated() {
      // The feature's id, else its properties' (a string or a number), else its rank.
      let id =
        feature.id?.identifier ?? feature.properties["id"]?.identifier ?? "#\(rank + 1)"
      // What a feed calls it: a description, name or title, or WZDx's core details'.
      let text =
        ["description", "name", "title"].lazy.compactMap { feature.properties[$0]?.string }.first
        ?? feature.properties["core_details"]?["description"]?.string ?? ""
      let distance = distance.map { String(format: " (%.0f m)", $0) } ?? ""
      console.print("- \(id)\(distance): \(text)")
    }
  }
}
