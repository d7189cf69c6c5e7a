import Foundation
import Roads
import Traffic

/// Reads the geometry of a DATEX II situation record's location (v2 `groupOfLocations`, v3
/// `locationReference`); see `DATEXIIDecoder` for the order of preference.
struct DATEXIILocationReader {
  /// The order of the numbers in a GML `posList`.
  var axisOrder: FeedOptions.AxisOrder
  /// The national grid of the publisher's country, for publishers that write its projected
  /// metres (northing, easting) in `latitude`/`longitude` (Fintraffic: ETRS-TM35FIN); `nil`
  /// when positions out of the degree ranges are errors.
  var nationalGrid: TransverseMercator? = nil

  /// ETRS-TM35FIN (EPSG:3067): transverse Mercator on GRS80, central meridian 27° E, scale
  /// 0.9996, false easting 500 000 m; Finland's national grid.
  static let etrsTM35FIN = TransverseMercator(
    semiMajorAxis: 6_378_137, flattening: 1 / 298.257222101, centralMeridian: 27)

  /// ETRS89 / UTM of `zone` (northern hemisphere, GRS80), the grid of European publishers.
  static func etrs89UTM(zone: Int) -> TransverseMercator {
    TransverseMercator(
      semiMajorAxis: 6_378_137, flattening: 1 / 298.257222101,
      centralMeridian: Double(zone) * 6 - 183)
  }

  /// The national grid whose metres a publisher of `countryCode` may write as coordinates.
  static func nationalGrid(ofCountry countryCode: String?) -> TransverseMercator? {
    countryCode?.uppercased() == "FI" ? etrsTM35FIN : nil
  }

  /// A position from two numbers read as latitude and longitude. When they lie outside the
  /// degree ranges they are read as grid metres, when that reading is certain:
  /// - one number is an easting prefixed with its UTM zone (`33342865.72` is 342 865.72 m in
  ///   zone 33, as Mecklenburg-Vorpommern writes ETRS89 / UTM, EPSG:5650) and the other a
  ///   northing: ETRS89 / UTM of that zone, northern hemisphere;
  /// - else, with a `grid` (declared by `srsName`, or the Finnish national grid), both
  ///   numbers in 0 ..< 10 000 000: the larger is the northing, the smaller the easting (so
  ///   the order does not matter: in Europe northings exceed 3.8 million metres and eastings
  ///   stay below 1 million; Fintraffic's DATEX II v2 writes the easting as `latitude`, its v3
  ///   the northing).
  ///
  /// - Throws: `GeoError` when the position is valid in neither reading.
  static func position(
    latitude: Double, longitude: Double, grid: TransverseMercator?
  ) throws(GeoError) -> GeoCoordinates {
    if abs(latitude) > 90 || abs(longitude) > 180,
      let (gridLatitude, gridLongitude) = gridPosition(latitude, longitude, grid: grid)
    {
      return try GeoCoordinates(latitude: gridLatitude, longitude: gridLongitude)
    }
    return try GeoCoordinates(latitude: latitude, longitude: longitude)
  }

  /// Latitude and longitude of two grid numbers, or `nil` when they cannot be read as such
  /// (see `position(latitude:longitude:grid:)`).
  static func gridPosition(
    _ first: Double, _ second: Double, grid: TransverseMercator?
  ) -> (latitude: Double, longitude: Double)? {
    let metres = 0.0..<10_000_000
    let zonePrefixed = 10_000_000.0..<61_000_000
    let projection: TransverseMercator
    let easting: Double
    let northing: Double
    if zonePrefixed.contains(first) != zonePrefixed.contains(second) {
      let (prefixed, other) = zonePrefixed.contains(first) ? (first, second) : (second, first)
      let zone = Int(prefixed / 1_000_000)
      easting = prefixed - Double(zone) * 1_000_000
      guard metres.contains(other), (1...60).contains(zone), (100_000...900_000).contains(easting)
      else { return nil }
      projection = etrs89UTM(zone: zone)
      northing = other
    } else if let grid, metres.contains(first), metres.contains(second) {
      projection = grid
      (northing, easting) = first >= second ? (first, second) : (second, first)
    } else {
      return nil
    }
    let position = projection.unproject(easting: easting, northing: northing)
    return (position.latitude, position.longitude)
  }

  /// The grid a GML `srsName` declares, for the projected systems DATEX II publishers use:
  /// ETRS89 / UTM (EPSG:25828–25838), WGS 84 / UTM north (EPSG:32601–32660), ETRS-TM35FIN
  /// (EPSG:3067), SWEREF 99 TM (EPSG:3006); `nil` for degrees and for anything else.
  static func grid(srsName: String?) -> TransverseMercator? {
    guard let srsName else { return nil }
    let digits = srsName.reversed().prefix(while: \.isNumber).reversed()
    guard srsName.uppercased().contains("EPSG"), let code = Int(String(digits)) else {
      return nil
    }
    switch code {
    case 25828...25838: return etrs89UTM(zone: code - 25800)
    case 32601...32660: return .utm(zone: code - 32600)
    case 3067: return etrsTM35FIN
    case 3006: return etrs89UTM(zone: 33)
    default: return nil
    }
  }

  /// Names of elements whose coordinates start a linear location.
  static let startNames = ["from", "linearCoordinatesStartPoint", "startPoint", "fromPoint"]
  /// Names of elements whose coordinates end a linear location.
  static let endNames = ["to", "linearCoordinatesEndPoint", "endPoint", "toPoint"]

  /// The location of `record`: the first member with coordinates as the main polyline, the
  /// others as additional polylines; a member without coordinates is placed by its binary
  /// OpenLR when that decodes. The location keeps every ALERT-C (TMC) reference of the record
  /// and the first binary OpenLR that decodes.
  ///
  /// - Throws: `RecordProblem` when no member has coordinates or decodable OpenLR (naming
  ///   Alert-C codes, the OpenLR error or predefined locations when that is all there is), or
  ///   when coordinates are invalid.
  func location(of record: XMLNode) throws(RecordProblem) -> TrafficLocation {
    let containers = record.children.filter {
      $0.name == "groupOfLocations" || $0.name == "locationReference"
    }
    guard !containers.isEmpty else {
      throw RecordProblem("the record has no groupOfLocations or locationReference")
    }
    var polylines: [GeoPolyline] = []
    var tmc: [TMCLocationReference] = []
    var openLR: String?
    var openLRProblem: String?
    for container in containers {
      tmc += Self.tmcReferences(in: container)
      var members: [XMLNode] = []
      Self.collectMembers(of: container, into: &members)
      if members.isEmpty { members = [container] }
      for member in members {
        let memberPolylines = try self.polylines(of: member)
        guard let binary = Self.openLRBinary(in: member, insideOpenLR: true) else {
          polylines += memberPolylines
          continue
        }
        do {
          let reference = try OpenLR.decode(base64: binary.text)
          if openLR == nil { openLR = binary.text }
          polylines += memberPolylines.isEmpty ? [reference.approximatePolyline] : memberPolylines
        } catch {
          openLRProblem = openLRProblem ?? "\(error.description) (line \(binary.line))"
          polylines += memberPolylines
        }
      }
    }
    guard let main = polylines.first else {
      throw RecordProblem(Self.missingCoordinatesReason(containers, openLRProblem: openLRProblem))
    }
    if openLR == nil {
      openLR = containers.lazy.compactMap(Self.openLRLinear).first
    }
    do {
      return try TrafficLocation(
        polyline: main, additionalPolylines: Array(polylines.dropFirst()), tmc: tmc,
        openLR: openLR)
    } catch {
      throw RecordProblem(error.description)
    }
  }

  /// Members of location groups and itineraries, in document order.
  static func collectMembers(of node: XMLNode, into members: inout [XMLNode]) {
    for child in node.children {
      if child.name == "locationContainedInGroup" || child.name == "locationContainedInItinerary" {
        members.append(child)
      } else {
        collectMembers(of: child, into: &members)
      }
    }
  }

  /// Why a location without coordinates cannot be placed.
  static func missingCoordinatesReason(
    _ containers: [XMLNode], openLRProblem: String? = nil
  ) -> String {
    var alertC: [String] = []
    var predefined: [String] = []
    for container in containers {
      for name in ["specificLocation", "alertCLocationCode"] {
        alertC += container.all(name).compactMap(\.value)
      }
      predefined += container.all("predefinedLocationReference").compactMap {
        $0.attributes["id"]
      }
    }
    if let openLRProblem {
      return "the location has no coordinates, only binary OpenLR, which cannot be decoded: "
        + openLRProblem
    }
    if !alertC.isEmpty {
      return "the location has no coordinates, only Alert-C (TMC) location codes "
        + alertC.prefix(4).joined(separator: ", ") + ", which need a TMC location table"
    }
    if !predefined.isEmpty {
      return "the location has no coordinates, only references to predefined locations "
        + predefined.prefix(4).joined(separator: ", ")
    }
    return "the location has no coordinates"
  }

  /// The polylines of one location member, or none when it has no coordinates.
  func polylines(of member: XMLNode) throws(RecordProblem) -> [GeoPolyline] {
    var posLists: [PosList] = []
    Self.collectPosLists(of: member, dimension: nil, srsName: nil, into: &posLists)
    if !posLists.isEmpty {
      var result: [GeoPolyline] = []
      for posList in posLists {
        result.append(
          try polyline(
            posList: posList.node, dimension: posList.dimension,
            grid: Self.grid(srsName: posList.srsName) ?? nationalGrid))
      }
      return result
    }
    if let line = member.first("linearByCoordinates"),
      let polyline = try polyline(byCoordinates: line)
    {
      return [polyline]
    }
    if let from = try firstCoordinates(in: member, names: Self.startNames),
      let to = try firstCoordinates(in: member, names: Self.endNames)
    {
      return [from == to ? GeoPolyline(point: from) : GeoPolyline(uncheckedVertices: [from, to])]
    }
    var referencePoints: [GeoCoordinates] = []
    for node in member.all("openlrCoordinates") {
      if let point = try Self.coordinates(in: node, grid: nationalGrid) {
        referencePoints.append(point)
      }
    }
    if referencePoints.count >= 2 { return [GeoPolyline(uncheckedVertices: referencePoints)] }
    if let point = referencePoints.first { return [GeoPolyline(point: point)] }
    if let node = member.first("pointCoordinates", excluding: ["locationForDisplay"]),
      let point = try Self.coordinates(in: node, grid: nationalGrid)
    {
      return [GeoPolyline(point: point)]
    }
    if let node = member.first("locationForDisplay"),
      let point = try Self.coordinates(in: node, grid: nationalGrid)
    {
      return [GeoPolyline(point: point)]
    }
    // Publishers hang coordinates off extensions of their own naming (`pointExtension`,
    // `areaExtension`, ...): any latitude/longitude pair places the member.
    if let point = try Self.coordinates(in: member, grid: nationalGrid) {
      return [GeoPolyline(point: point)]
    }
    return []
  }

  /// A GML `posList` with the `srsDimension` and `srsName` in force.
  struct PosList {
    var node: XMLNode
    var dimension: String?
    var srsName: String?
  }

  /// `posList` elements below `node` with the `srsDimension` and `srsName` in force.
  static func collectPosLists(
    of node: XMLNode, dimension: String?, srsName: String?, into result: inout [PosList]
  ) {
    let dimension = node.attributes["srsDimension"] ?? dimension
    let srsName = node.attributes["srsName"] ?? srsName
    if node.name == "posList" {
      result.append(PosList(node: node, dimension: dimension, srsName: srsName))
      return
    }
    for child in node.children {
      collectPosLists(of: child, dimension: dimension, srsName: srsName, into: &result)
    }
  }

  /// The line of a `linearByCoordinates` (German state feeds): its `start`, its `intermediate`
  /// points in `index` order, its `end`, each a latitude/longitude pair directly or in
  /// `pointCoordinates`; `nil` when it has none.
  func polyline(byCoordinates line: XMLNode) throws(RecordProblem) -> GeoPolyline? {
    var vertices: [GeoCoordinates] = []
    if let start = line.children.first(where: { $0.name == "start" || $0.name == "startPoint" }),
      let point = try Self.coordinates(in: start, grid: nationalGrid)
    {
      vertices.append(point)
    }
    let intermediates = line.children.enumerated()
      .filter { $0.element.name == "intermediate" || $0.element.name == "intermediatePoint" }
      .sorted {
        let left = $0.element.attributes["index"].flatMap { Int($0) } ?? $0.offset
        let right = $1.element.attributes["index"].flatMap { Int($0) } ?? $1.offset
        return left < right
      }
    for (_, node) in intermediates {
      if let point = try Self.coordinates(in: node, grid: nationalGrid) { vertices.append(point) }
    }
    if let end = line.children.first(where: { $0.name == "end" || $0.name == "endPoint" }),
      let point = try Self.coordinates(in: end, grid: nationalGrid)
    {
      vertices.append(point)
    }
    guard let first = vertices.first else { return nil }
    return vertices.count == 1
      ? GeoPolyline(point: first) : GeoPolyline(uncheckedVertices: vertices)
  }

  /// The coordinates in the first element named one of `names`, when it has any.
  func firstCoordinates(
    in member: XMLNode, names: [String]
  ) throws(RecordProblem) -> GeoCoordinates? {
    for name in names {
      if let node = member.first(name),
        let point = try Self.coordinates(in: node, grid: nationalGrid)
      {
        return point
      }
    }
    return nil
  }

  /// The first `latitude`/`longitude` pair at or below `node` (grid metres converted, see
  /// `position(latitude:longitude:grid:)`).
  static func coordinates(
    in node: XMLNode, grid: TransverseMercator? = nil
  ) throws(RecordProblem) -> GeoCoordinates? {
    if let latitudeText = node.childValue("latitude"),
      let longitudeText = node.childValue("longitude")
    {
      guard let latitude = Double(latitudeText), let longitude = Double(longitudeText) else {
        throw RecordProblem(
          "coordinates \"\(latitudeText)\", \"\(longitudeText)\" (line \(node.line)) are not "
            + "numbers")
      }
      do {
        return try position(latitude: latitude, longitude: longitude, grid: grid)
      } catch {
        throw RecordProblem("\(error.description) (line \(node.line))")
      }
    }
    for child in node.children {
      if let point = try coordinates(in: child, grid: grid) { return point }
    }
    return nil
  }

  /// A polyline from a GML `posList`, whose metres (if any) are of `grid`.
  func polyline(
    posList node: XMLNode, dimension: String?, grid: TransverseMercator?
  ) throws(RecordProblem) -> GeoPolyline {
    let size = dimension.flatMap { Int($0) } ?? 2
    guard size == 2 || size == 3 else {
      throw RecordProblem(
        "posList srsDimension \"\(dimension ?? "")\" (line \(node.line)) is not 2 or 3")
    }
    var numbers: [Double] = []
    for token in node.text.split(whereSeparator: { $0 == " " || $0.isNewline || $0 == "\t" }) {
      guard let number = Double(token), number.isFinite else {
        throw RecordProblem(
          "posList value \"\(token.prefix(40))\" (line \(node.line)) is not a number")
      }
      numbers.append(number)
    }
    guard !numbers.isEmpty, numbers.count % size == 0 else {
      throw RecordProblem(
        "posList (line \(node.line)) has \(numbers.count) numbers, not a multiple of \(size)")
    }
    var vertices: [GeoCoordinates] = []
    vertices.reserveCapacity(numbers.count / size)
    var index = 0
    while index < numbers.count {
      let (latitude, longitude) =
        axisOrder == .latLon
        ? (numbers[index], numbers[index + 1]) : (numbers[index + 1], numbers[index])
      do {
        vertices.append(try Self.position(latitude: latitude, longitude: longitude, grid: grid))
      } catch {
        throw RecordProblem(
          "posList position \(index / size + 1) (line \(node.line)): \(error.description)")
      }
      index += size
    }
    if vertices.count == 1 { return GeoPolyline(point: vertices[0]) }
    return GeoPolyline(uncheckedVertices: vertices)
  }
}
