import Foundation
import Traffic

/// The location references of a DATEX II location besides coordinates: ALERT-C (TMC) codes
/// and binary OpenLR.
extension DATEXIILocationReader {
  /// Names of the ALERT-C location elements (v2 and v3): `alertCPoint` (methods 2 and 4),
  /// `alertCLinear` (methods 2 and 4, and by code) and `alertCArea`.
  static let alertCNames: Set<String> = ["alertCPoint", "alertCLinear", "alertCArea"]

  /// The TMC references below `node`, in document order. An ALERT-C element without a
  /// country code, a table number or a numeric primary location code is ignored.
  static func tmcReferences(in node: XMLNode) -> [TMCLocationReference] {
    var elements: [XMLNode] = []
    for name in alertCNames { elements += node.all(name) }
    elements.sort { $0.line < $1.line }
    return elements.compactMap(tmcReference)
  }

  /// One ALERT-C element as a TMC reference (DATEX II `AlertCPoint` / `AlertCLinear`
  /// subtypes: `alertCLocationCountryCode`, `alertCLocationTableNumber`,
  /// `alertCLocationTableVersion`, `alertCDirection/alertCDirectionCoded`, the primary and
  /// secondary `alertCMethod2/4...PointLocation` with `alertCLocation/specificLocation` and,
  /// for method 4, `offsetDistance/offsetDistance` in meters; `locationCodeForLinearLocation`
  /// for a linear location by code; `areaLocation` for an area).
  static func tmcReference(_ element: XMLNode) -> TMCLocationReference? {
    guard let country = element.childValue("alertCLocationCountryCode"),
      let table = element.childValue("alertCLocationTableNumber")
    else { return nil }
    var primaryNode: XMLNode?
    var secondaryNode: XMLNode?
    for child in element.children {
      if child.name.hasSuffix("PrimaryPointLocation") {
        primaryNode = child
      } else if child.name.hasSuffix("SecondaryPointLocation") {
        secondaryNode = child
      } else if child.name == "locationCodeForLinearLocation" || child.name == "areaLocation" {
        primaryNode = primaryNode ?? child
      }
    }
    guard
      let primary = (primaryNode ?? element).first("specificLocation")?.value.flatMap({ Int($0) })
    else { return nil }
    let secondary = secondaryNode?.first("specificLocation")?.value.flatMap { Int($0) }
    let direction = alertCDirection(
      coded: element.first("alertCDirectionCoded")?.value,
      affected: element.first("alertCAffectedDirection")?.value)
    return try? TMCLocationReference(
      countryCode: country, tableNumber: table,
      tableVersion: element.childValue("alertCLocationTableVersion"),
      primaryLocationCode: primary, secondaryLocationCode: secondary, direction: direction,
      primaryOffsetInMeters: primaryNode.flatMap(offsetDistance),
      secondaryOffsetInMeters: secondaryNode.flatMap(offsetDistance))
  }

  /// The direction of an ALERT-C location: the coded one (`positive`, `negative`; v2 also
  /// codes `both` and `unknown`) as v3's `alertCAffectedDirection` qualifies it: `both` and
  /// `unknown` are themselves, `opposite` turns the coded direction round, `aligned` (or
  /// none) keeps it.
  static func alertCDirection(coded: String?, affected: String?) -> TMCLocationReference.Direction {
    var direction: TMCLocationReference.Direction
    switch coded {
    case "positive": direction = .positive
    case "negative": direction = .negative
    case "both": direction = .both
    default: direction = .unknown
    }
    switch affected {
    case "both": direction = .both
    case "unknown": direction = .unknown
    case "opposite":
      if direction == .positive {
        direction = .negative
      } else if direction == .negative {
        direction = .positive
      }
    default: break
    }
    return direction
  }

  /// The method 4 offset of a point location: the innermost `offsetDistance` with a
  /// non-negative number (v2 and v3 nest `offsetDistance` in `offsetDistance`).
  static func offsetDistance(_ pointLocation: XMLNode) -> Double? {
    var node = pointLocation.first("offsetDistance")
    while let current = node {
      if let inner = current.child("offsetDistance") {
        node = inner
        continue
      }
      guard let value = current.value.flatMap(Double.init), value.isFinite, value >= 0 else {
        return nil
      }
      return value
    }
    return nil
  }

  /// The base64 text of the first binary OpenLR element below `node`: `openlrBinary`, NDW's
  /// `openLrLinearAsBinary` / `openLrPointAsBinary` / `openLrAreaAsBinary` (any element whose
  /// name starts with `openlr` and contains `binary`, ignoring case), or a `binary` element
  /// inside an element whose name starts with `openlr`. White space is removed.
  static func openLRBinary(
    in node: XMLNode, insideOpenLR: Bool = false
  ) -> (
    text: String, line: Int
  )? {
    let lower = node.name.lowercased()
    let isOpenLR = lower.hasPrefix("openlr")
    if (isOpenLR && lower.contains("binary")) || (insideOpenLR && lower == "binary"),
      let value = node.value
    {
      return (String(value.filter { !$0.isWhitespace }), node.line)
    }
    for child in node.children {
      if let found = openLRBinary(in: child, insideOpenLR: insideOpenLR || isOpenLR) {
        return found
      }
    }
    return nil
  }
}

extension DATEXIILocationReader {
  /// The first structured OpenLR line below `node` (DATEX II v3 `openlrLinear`: its first
  /// direction's reference points, last point and offsets) as binary OpenLR in base64, so
  /// that a location keeps its OpenLR however the publisher wrote it; `nil` when there is
  /// none or it is incomplete.
  static func openLRLinear(in node: XMLNode) -> String? {
    guard let linear = node.first("openlrLinear"),
      let direction = linear.child("firstDirection") ?? linear.first("firstDirection")
    else { return nil }
    var points: [OpenLR.ReferencePoint] = []
    for element in direction.children("openlrLocationReferencePoint") {
      guard var point = referencePoint(element),
        let path = element.child("openlrPathAttributes"),
        let lowest = functionalRoadClass(path.childValue("openlrLowestFrcToNextLRPoint")),
        let distance = path.childValue("openlrDistanceToNextLRPoint").flatMap(Double.init)
      else { return nil }
      point.lowestFunctionalRoadClassToNext = lowest
      point.distanceToNextInMeters = distance
      points.append(point)
    }
    guard !points.isEmpty,
      let last = direction.child("openlrLastLocationReferencePoint").flatMap(referencePoint)
    else { return nil }
    points.append(last)
    // Offsets are metres along the first (positive) and the last (negative) stretch between
    // reference points; binary OpenLR gives them as fractions of those stretches.
    let offsets = direction.child("openlrOffsets")
    func fraction(_ name: String, of distance: Double) -> Double {
      offsetFraction(
        meters: offsets?.childValue(name).flatMap(nonNegative) ?? 0, distance: distance)
    }
    let line = OpenLR.Line(
      points: points,
      positiveOffset: fraction("openlrPositiveOffset", of: points[0].distanceToNextInMeters),
      negativeOffset: fraction(
        "openlrNegativeOffset", of: points[points.count - 2].distanceToNextInMeters))
    return try? OpenLR.encodeBase64(.line(line))
  }

  /// An OpenLR offset in metres as the fraction of its stretch (`distance` metres) that
  /// binary OpenLR codes: below 1 (an offset beyond the stretch is its last 256th); 0 for
  /// no offset or a stretch of no length.
  static func offsetFraction(meters: Double, distance: Double) -> Double {
    guard meters > 0, distance > 0 else { return 0 }
    return min(meters / distance, 255.5 / 256)
  }

  private static func nonNegative(_ text: String) -> Double? {
    guard let value = Double(text), value.isFinite, value >= 0 else { return nil }
    return value
  }

  private static func referencePoint(_ element: XMLNode) -> OpenLR.ReferencePoint? {
    guard let coordinates = element.child("openlrCoordinates"),
      let latitude = coordinates.childValue("latitude").flatMap(Double.init),
      let longitude = coordinates.childValue("longitude").flatMap(Double.init),
      let position = try? GeoCoordinates(latitude: latitude, longitude: longitude),
      let attributes = element.child("openlrLineAttributes"),
      let frc = functionalRoadClass(attributes.childValue("openlrFunctionalRoadClass")),
      let bearing = attributes.childValue("openlrBearing").flatMap(Double.init)
    else { return nil }
    let formOfWay = OpenLR.FormOfWay.allCases.first {
      "\($0)" == attributes.childValue("openlrFormOfWay")
    }
    return OpenLR.ReferencePoint(
      coordinates: position, functionalRoadClass: frc, formOfWay: formOfWay ?? .undefined,
      bearingInDegrees: bearing)
  }

  /// `frc0` ... `frc7` as 0 ... 7.
  private static func functionalRoadClass(_ text: String?) -> Int? {
    guard let text, text.hasPrefix("frc"), let value = Int(text.dropFirst(3)),
      (0...7).contains(value)
    else { return nil }
    return value
  }
}
