import Codec
import Foundation
import Geo
import Traffic

/// The locations of published records: points, lines with their GML, OpenLR and ALERT-C
/// references, and groups of them.
extension DATEXIIPublisher {
  /// The record's `locationReference`: one location, or a group of several.
  static func location(_ incident: TrafficIncident, into xml: inout XMLWriter) {
    let location = incident.location
    let polylines = location.allPolylines
    if polylines.count == 1 {
      member(
        polylines[0], of: incident, isFirst: true, element: "sit:locationReference", into: &xml)
      return
    }
    xml.open("sit:locationReference", [("xsi:type", "loc:LocationGroupByList")])
    for (index, polyline) in polylines.enumerated() {
      member(
        polyline, of: incident, isFirst: index == 0, element: "loc:locationContainedInGroup",
        into: &xml)
    }
    xml.close()
  }

  /// One location: a point or a line; the first carries the references and road.
  private static func member(
    _ polyline: GeoPolyline, of incident: TrafficIncident, isFirst: Bool, element: String,
    into xml: inout XMLWriter
  ) {
    let vertices = polyline.vertices
    let isPoint = vertices.allSatisfy { $0 == vertices[0] }
    xml.open(
      element, [("xsi:type", isPoint ? "loc:PointLocation" : "loc:SingleRoadLinearLocation")])
    supplementaryDescription(incident.details, into: &xml)
    let tmc = isFirst ? incident.location.tmc : []
    if isPoint {
      xml.open("loc:pointByCoordinates")
      coordinates("loc:pointCoordinates", vertices[0], into: &xml)
      xml.close()
      for reference in tmc { alertC(reference, isLinear: false, into: &xml) }
    } else {
      if isFirst, let text = incident.location.openLR,
        case .line(let line)? = try? OpenLR.decode(base64: text)
      {
        openLR(line, into: &xml)
      }
      xml.open("loc:gmlLineString", [("srsName", "EPSG:4326"), ("srsDimension", "2")])
      var positions = ""
      positions.reserveCapacity(vertices.count * 24)
      for (index, vertex) in vertices.enumerated() {
        if index > 0 { positions += " " }
        positions += degrees(vertex.latitude) + " " + degrees(vertex.longitude)
      }
      xml.element("loc:posList", positions)
      xml.close()
      for reference in tmc { alertC(reference, isLinear: true, into: &xml) }
    }
    xml.close()
  }

  private static func supplementaryDescription(
    _ details: TrafficIncidentDetails, into xml: inout XMLWriter
  ) {
    let road = [details.towards, details.roadName, details.roadNumber]
    guard details.totalLanes != nil || road.contains(where: { $0 != nil }) else { return }
    xml.open("loc:supplementaryPositionalDescription")
    if let total = details.totalLanes {
      xml.open("loc:carriageway")
      xml.element("loc:carriageway", "mainCarriageway")
      xml.element("loc:originalNumberOfLanes", String(total))
      xml.close()
    }
    if road.contains(where: { $0 != nil }) {
      xml.open("loc:roadInformation")
      xml.element("loc:roadDestination", limited(details.towards))
      xml.element("loc:roadName", limited(details.roadName))
      xml.element("loc:roadNumber", limited(details.roadNumber))
      xml.close()
    }
    xml.close()
  }

  /// A point's `latitude` and `longitude`: in 7 decimals, or with `isExact` as many as
  /// give the same double back (an OpenLR point lies on the edge of its 24-bit bucket, so
  /// only the exact value encodes back to the same binary reference).
  private static func coordinates(
    _ element: String, _ point: GeoCoordinates, isExact: Bool = false, into xml: inout XMLWriter
  ) {
    xml.open(element)
    xml.element("loc:latitude", isExact ? exact(point.latitude) : degrees(point.latitude))
    xml.element("loc:longitude", isExact ? exact(point.longitude) : degrees(point.longitude))
    xml.close()
  }

  /// The shortest decimal that reads back as the same double (an `xs:float` literal).
  private static func exact(_ value: Double) -> String {
    value == 0 ? "0" : "\(value)"
  }

  /// Degrees with 7 decimals (about 1 cm), without trailing zeros.
  private static func degrees(_ value: Double) -> String {
    var text = String(format: "%.7f", value)
    while text.hasSuffix("0") { text.removeLast() }
    if text.hasSuffix(".") { text.removeLast() }
    return text == "-0" ? "0" : text
  }

  private static func openLR(_ line: OpenLR.Line, into xml: inout XMLWriter) {
    guard line.points.count >= 2 else { return }
    xml.open("loc:openlrLinear")
    xml.open("loc:firstDirection")
    for point in line.points.dropLast() {
      xml.open("loc:openlrLocationReferencePoint")
      coordinates("loc:openlrCoordinates", point.coordinates, isExact: true, into: &xml)
      lineAttributes(point, into: &xml)
      xml.open("loc:openlrPathAttributes")
      xml.element(
        "loc:openlrLowestFrcToNextLRPoint",
        "frc\(min(max(point.lowestFunctionalRoadClassToNext, 0), 7))")
      xml.element(
        "loc:openlrDistanceToNextLRPoint",
        String(distance(point.distanceToNextInMeters)))
      xml.close()
      xml.close()
    }
    if let last = line.points.last {
      xml.open("loc:openlrLastLocationReferencePoint")
      coordinates("loc:openlrCoordinates", last.coordinates, isExact: true, into: &xml)
      lineAttributes(last, into: &xml)
      xml.close()
    }
    let positive = offsetInMeters(
      line.positiveOffset, of: distance(line.points[0].distanceToNextInMeters))
    let negative = offsetInMeters(
      line.negativeOffset, of: distance(line.points[line.points.count - 2].distanceToNextInMeters))
    if positive != nil || negative != nil {
      xml.open("loc:openlrOffsets")
      xml.element("loc:openlrPositiveOffset", positive.map(String.init))
      xml.element("loc:openlrNegativeOffset", negative.map(String.init))
      xml.close()
    }
    xml.close()
    xml.close()
  }

  /// A distance to the next reference point as written: whole metres.
  private static func distance(_ meters: Double) -> Int { Int(max(0, meters).rounded()) }

  /// An offset, a fraction of a stretch of `distance` whole metres, in the whole metres
  /// DATEX II writes: the number nearest the fraction's that reads back
  /// (`DATEXIILocationReader.offsetFraction`) as the same 256th of the stretch, so that
  /// the binary reference comes back the same; `nil` for no offset.
  static func offsetInMeters(_ fraction: Double, of distance: Int) -> Int? {
    guard fraction > 0, fraction < 1, distance > 0 else { return nil }
    let length = Double(distance)
    func bucket(_ fraction: Double) -> Int { min(255, Int(fraction * 256)) }
    let wanted = bucket(fraction)
    let nearest = Int((fraction * length).rounded())
    let candidates = [
      nearest, Int((Double(wanted) * length / 256).rounded(.up)),
      Int((Double(wanted + 1) * length / 256).rounded(.down)),
    ]
    let exact = candidates.first { meters in
      let read = DATEXIILocationReader.offsetFraction(meters: Double(meters), distance: length)
      return meters > 0 && read > 0 && bucket(read) == wanted
    }
    return exact ?? max(1, nearest)
  }

  private static func lineAttributes(_ point: OpenLR.ReferencePoint, into xml: inout XMLWriter) {
    xml.open("loc:openlrLineAttributes")
    xml.element("loc:openlrFunctionalRoadClass", "frc\(min(max(point.functionalRoadClass, 0), 7))")
    xml.element("loc:openlrFormOfWay", formOfWay(point.formOfWay))
    let bearing = Int(point.bearingInDegrees.rounded()) % 360
    xml.element("loc:openlrBearing", String(bearing < 0 ? bearing + 360 : bearing))
    xml.close()
  }

  private static func formOfWay(_ value: OpenLR.FormOfWay) -> String {
    switch value {
    case .undefined: return "undefined"
    case .motorway: return "motorway"
    case .multipleCarriageway: return "multipleCarriageway"
    case .singleCarriageway: return "singleCarriageway"
    case .roundabout: return "roundabout"
    case .trafficSquare: return "trafficSquare"
    case .slipRoad: return "slipRoad"
    case .other: return "other"
    }
  }

  /// An ALERT-C location: method 4 when it has offsets, else method 2.
  private static func alertC(
    _ reference: TMCLocationReference, isLinear: Bool, into xml: inout XMLWriter
  ) {
    let hasOffsets =
      reference.primaryOffsetInMeters != nil || reference.secondaryOffsetInMeters != nil
    let method = hasOffsets ? 4 : 2
    guard !isLinear || reference.secondaryLocationCode != nil else { return }
    let element = isLinear ? "loc:alertCLinear" : "loc:alertCPoint"
    xml.open(
      element,
      [("xsi:type", "loc:AlertCMethod\(method)" + (isLinear ? "Linear" : "Point"))])
    xml.element("loc:alertCLocationCountryCode", limited(reference.countryCode))
    xml.element("loc:alertCLocationTableNumber", limited(reference.tableNumber))
    xml.element("loc:alertCLocationTableVersion", limited(reference.tableVersion ?? ""))
    xml.open("loc:alertCDirection")
    xml.element(
      "loc:alertCDirectionCoded", reference.direction == .negative ? "negative" : "positive")
    let affected: String
    switch reference.direction {
    case .positive, .negative: affected = "aligned"
    case .both: affected = "both"
    case .unknown: affected = "unknown"
    }
    xml.element("loc:alertCAffectedDirection", affected)
    xml.close()
    pointLocation(
      "loc:alertCMethod\(method)PrimaryPointLocation", code: reference.primaryLocationCode,
      offset: hasOffsets ? reference.primaryOffsetInMeters ?? 0 : nil, into: &xml)
    if isLinear, let secondary = reference.secondaryLocationCode {
      pointLocation(
        "loc:alertCMethod\(method)SecondaryPointLocation", code: secondary,
        offset: hasOffsets ? reference.secondaryOffsetInMeters ?? 0 : nil, into: &xml)
    }
    xml.close()
  }

  private static func pointLocation(
    _ element: String, code: Int, offset: Double?, into xml: inout XMLWriter
  ) {
    xml.open(element)
    xml.open("loc:alertCLocation")
    xml.element("loc:specificLocation", String(code))
    xml.close()
    if let offset {
      xml.open("loc:offsetDistance")
      xml.element("loc:offsetDistance", String(Int(max(0, offset).rounded())))
      xml.close()
    }
    xml.close()
  }
}
