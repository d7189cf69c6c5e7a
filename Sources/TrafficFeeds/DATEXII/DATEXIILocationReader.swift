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

  /// The national grid whose metres a publisher of `countryCode` may write as coordinates.
  static func nationalGrid(ofCountry countryCode: String?) -> TransverseMercator? {
    countryCode?.uppercased() == "FI" ? etrsTM35FIN : nil
  }

  /// A position from two numbers read as latitude and longitude. Numbers outside the degree
  /// ranges are read as metres of `grid`, when there is one and both are in 0 ..< 10 000 000:
  /// the larger as the northing, the smaller as the easting (in Finland northings exceed 6.6
  /// million metres and eastings stay below 1 million; Fintraffic's DATEX II v2 writes the
  /// easting as `latitude`, its v3 the northing).
  ///
  /// - Throws: `GeoError` when the position is not valid in either reading.
  static func position(
    latitude: Double, longitude: Double, grid: TransverseMercator?
  ) throws(GeoError) -> GeoCoordinates {
    let metres = 0.0..<10_000_000
    if let grid, abs(latitude) > 90 || abs(longitude) > 180, metres.contains(latitude),
      metres.contains(longitude)
    {
      let (northing, easting) =
        latitude >= longitude ? (latitude, longitude) : (longitude, latitude)
      let (gridLatitude, gridLongitude) = grid.unproject(easting: easting, northing: northing)
      return try GeoCoordinates(latitude: gridLatitude, longitude: gridLongitude)
    }
    return try GeoCoordinates(latitude: latitude, longitude: longitude)
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
    var posLists: [(node: XMLNode, dimension: String?)] = []
    Self.collectPosLists(of: member, dimension: nil, into: &posLists)
    if !posLists.isEmpty {
      var result: [GeoPolyline] = []
      for (node, dimension) in posLists {
        result.append(try polyline(posList: node, dimension: dimension))
      }
      return result
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
    return []
  }

  /// `posList` elements below `node` with the `srsDimension` in force.
  static func collectPosLists(
    of node: XMLNode, dimension: String?, into result: inout [(node: XMLNode, dimension: String?)]
  ) {
    let dimension = node.attributes["srsDimension"] ?? dimension
    if node.name == "posList" {
      result.append((node, dimension))
      return
    }
    for child in node.children {
      collectPosLists(of: child, dimension: dimension, into: &result)
    }
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

  /// A polyline from a GML `posList`.
  func polyline(posList node: XMLNode, dimension: String?) throws(RecordProblem) -> GeoPolyline {
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
        vertices.append(
          try Self.position(latitude: latitude, longitude: longitude, grid: nationalGrid))
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
