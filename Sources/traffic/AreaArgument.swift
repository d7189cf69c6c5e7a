import Geo
import Roads
import Traffic

/// The `AREA` of API.md's command line: `--circle LAT,LNG,RADIUS_M` | `--box
/// WEST,SOUTH,EAST,NORTH` | `--corridor FLEXPOLY,HALF_WIDTH_M` | `--corridor-coords
/// "LAT,LNG;LAT,LNG;...",HALF_WIDTH_M`.
enum AreaArgument {
  static let options = [
    OptionDefinition("--circle", "LAT,LNG,RADIUS_M", "a circle (radius in meters)"),
    OptionDefinition(
      "--box", "WEST,SOUTH,EAST,NORTH", "a box in degrees (west > east crosses 180)"),
    OptionDefinition(
      "--corridor", "FLEXPOLY,HALF_WIDTH_M", "a corridor along a flexible polyline"),
    OptionDefinition(
      "--corridor-coords", "\"LAT,LNG;...\",HALF_WIDTH_M", "a corridor along coordinates"),
  ]

  /// Takes exactly one area option from the arguments.
  static func take(from arguments: inout ArgumentList) throws(UsageError) -> any GeoArea {
    guard let area = try takeOptional(from: &arguments) else {
      throw UsageError("an area is required: --circle, --box, --corridor or --corridor-coords")
    }
    return area
  }

  /// Takes at most one area option from the arguments; `nil` when none is given.
  static func takeOptional(
    from arguments: inout ArgumentList
  ) throws(UsageError) -> (any GeoArea)? {
    let circle = try arguments.option("--circle")
    let box = try arguments.option("--box")
    let corridor = try arguments.option("--corridor")
    let corridorCoords = try arguments.option("--corridor-coords")
    let given = [circle, box, corridor, corridorCoords].compactMap { $0 }
    if given.isEmpty { return nil }
    guard given.count == 1 else {
      throw UsageError("give only one of --circle, --box, --corridor and --corridor-coords")
    }
    do {
      if let circle {
        let numbers = try parseNumbers(circle, count: 3, option: "--circle")
        return try GeoCircle(
          center: GeoCoordinates(latitude: numbers[0], longitude: numbers[1]),
          radiusInMeters: numbers[2])
      }
      if let box {
        let numbers = try parseNumbers(box, count: 4, option: "--box")
        return try GeoBox(west: numbers[0], south: numbers[1], east: numbers[2], north: numbers[3])
      }
      if let corridor {
        let (encoded, halfWidth) = try splitHalfWidth(corridor, option: "--corridor")
        let path = try FlexiblePolyline.decode(encoded).coordinates
        return try GeoCorridor(polyline: path, halfWidthInMeters: halfWidth)
      }
      if let corridorCoords {
        // The last point whole (LAT,LNG) after the last `;`: the half width is missing.
        if let last = corridorCoords.split(separator: ";").last,
          last.split(separator: ",", omittingEmptySubsequences: false).count == 2
        {
          throw UsageError(
            "--corridor-coords expects \"LAT,LNG;...\",HALF_WIDTH_M: the half width is "
              + "missing in '\(corridorCoords)'")
        }
        let (list, halfWidth) = try splitHalfWidth(corridorCoords, option: "--corridor-coords")
        let path = try list.split(separator: ";").map { pair throws(UsageError) in
          let numbers = try parseNumbers(String(pair), count: 2, option: "--corridor-coords")
          do { return try GeoCoordinates(latitude: numbers[0], longitude: numbers[1]) } catch {
            throw UsageError("--corridor-coords: \(error)")
          }
        }
        return try GeoCorridor(polyline: path, halfWidthInMeters: halfWidth)
      }
    } catch let error as UsageError {
      throw error
    } catch {
      throw UsageError("invalid area: \(error)")
    }
    throw UsageError("an area is required")
  }

  /// Parses `LAT,LNG` as coordinates.
  static func coordinates(_ text: String, option: String) throws(UsageError) -> GeoCoordinates {
    let numbers = try parseNumbers(text, count: 2, option: option)
    do { return try GeoCoordinates(latitude: numbers[0], longitude: numbers[1]) } catch {
      let swapped = try? GeoCoordinates(latitude: numbers[1], longitude: numbers[0])
      throw UsageError("\(option): \(error)" + (swapped.map(swapHint) ?? ""))
    }
  }

  /// The hint for coordinates given in the other order (`lng,lat`, as OSRM, GeoJSON and
  /// WKT write them): "; coordinates are LAT,LNG: did you mean 52.305,13.62?".
  static func swapHint(_ swapped: GeoCoordinates) -> String {
    "; coordinates are LAT,LNG (latitude first): did you mean "
      + "\(number(swapped.latitude)),\(number(swapped.longitude))?"
  }

  /// A coordinate as the user would type it (no trailing zeros).
  private static func number(_ value: Double) -> String {
    var text = String(format: "%.7f", value)
    while text.hasSuffix("0") { text.removeLast() }
    if text.hasSuffix(".") { text.removeLast() }
    return text
  }

  /// The box around a network's junctions, or `nil` without any.
  static func bounds(of network: RoadNetwork?) -> GeoBox? {
    guard let nodes = network?.nodes, let first = nodes.first?.coordinates else { return nil }
    var (west, south, east, north) = (
      first.longitude, first.latitude, first.longitude, first.latitude
    )
    for node in nodes {
      west = min(west, node.coordinates.longitude)
      east = max(east, node.coordinates.longitude)
      south = min(south, node.coordinates.latitude)
      north = max(north, node.coordinates.latitude)
    }
    return try? GeoBox(west: west, south: south, east: east, north: north)
  }

  /// The hint for `place` when it lies off `bounds` but would lie inside with latitude and
  /// longitude exchanged; empty otherwise.
  static func swapHint(for place: GeoCoordinates, within bounds: GeoBox?) -> String {
    guard let bounds, !bounds.contains(place),
      let swapped = try? GeoCoordinates(latitude: place.longitude, longitude: place.latitude),
      bounds.contains(swapped)
    else { return "" }
    return swapHint(swapped)
  }

  /// Splits `VALUE,HALF_WIDTH` at its last comma.
  private static func splitHalfWidth(
    _ text: String, option: String
  ) throws(UsageError)
    -> (String, Double)
  {
    guard let comma = text.lastIndex(of: ","),
      let halfWidth = decimal(text[text.index(after: comma)...])
    else {
      throw UsageError("\(option) expects ...,HALF_WIDTH_M, got '\(text)'")
    }
    return (String(text[..<comma]), halfWidth)
  }

  /// A finite decimal number (`-12.5`, `1e3`), as the HTTP API reads one: not `nan`, `inf`
  /// or hexadecimal (`0x10`), which `Double(_:)` takes.
  static func decimal(_ text: some StringProtocol) -> Double? {
    QueryParameters.decimal(Substring(text))
  }

  /// Parses exactly `count` comma-separated finite numbers.
  static func parseNumbers(
    _ text: String, count: Int, option: String
  ) throws(UsageError)
    -> [Double]
  {
    let parts = text.split(separator: ",", omittingEmptySubsequences: false)
    let numbers = parts.compactMap { decimal($0.trimmingCharacters(in: .whitespaces)) }
    guard parts.count == count, numbers.count == count, numbers.allSatisfy(\.isFinite) else {
      throw UsageError("\(option) expects \(count) comma-separated numbers, got '\(text)'")
    }
    return numbers
  }
}
