import Codec
import Foundation

extension V7IncidentWire {
  /// Encodes an incidents response.
  ///
  /// Descriptions are written as the incidents carry them: localise them first
  /// (`TrafficIncident.localized(to:)`) to answer a `lang` parameter.
  ///
  /// - Parameters:
  ///   - incidents: The results, in the order to write them.
  ///   - sourceUpdated: When the underlying data was last updated; `nil` writes `null`.
  ///   - locationReferencing: The location references to write; the shape by default, none
  ///     for `locationReferencing=none`.
  /// - Returns: UTF-8 JSON text.
  /// - Complexity: O(n) in the total number of vertices and characters.
  public static func encode(
    _ incidents: some Collection<TrafficIncident>, sourceUpdated: Date?,
    locationReferencing: LocationReferencing = .shape
  ) -> Data {
    V7Envelope.write(
      incidents, sourceUpdated: sourceUpdated, capacity: 128 + incidents.count * 768
    ) { incident, writer in
      writeResult(incident, references: locationReferencing, to: &writer)
    }
  }

  /// Encodes the answer to a lookup by id: the single result object.
  ///
  /// - Parameters:
  ///   - incident: The incident found.
  ///   - locationReferencing: The location references to write; the shape by default.
  /// - Returns: UTF-8 JSON text `{"location": ..., "incidentDetails": ...}`.
  /// - Complexity: O(n) in the number of vertices and characters.
  public static func encodeLookup(
    _ incident: TrafficIncident, locationReferencing: LocationReferencing = .shape
  ) -> Data {
    var writer = JSONWriter(capacity: 1024)
    writeResult(incident, references: locationReferencing, to: &writer)
    return Data(writer.bytes)
  }

  static func writeResult(
    _ incident: TrafficIncident, references: LocationReferencing, to w: inout JSONWriter
  ) {
    let location = incident.location
    w.beginObject()
    w.key("location")
    w.beginObject()
    w.member("length", location.lengthInMeters)
    if let description = location.description {
      w.member("description", description)
    }
    if references.contains(.shape) {
      w.key("shape")
      w.beginObject()
      w.key("links")
      w.beginArray()
      writeLink(location.polyline, to: &w)
      for polyline in location.additionalPolylines {
        writeLink(polyline, to: &w)
      }
      w.endArray()
      w.endObject()
    }
    if references.contains(.openLR), let openLR = location.openLR {
      w.member("olr", openLR)
    }
    if references.contains(.tmc), let first = location.tmc.first {
      w.key("tmc")
      writeTMC(first, to: &w)
      if location.tmc.count > 1 {
        w.key("additionalTmc")
        w.beginArray()
        for reference in location.tmc.dropFirst() {
          writeTMC(reference, to: &w)
        }
        w.endArray()
      }
    }
    w.endObject()
    w.key("incidentDetails")
    w.beginObject()
    w.member("id", incident.id)
    w.member("originalId", incident.originalId)
    if let parentId = incident.parentId {
      w.member("parentId", parentId)
    }
    if let time = incident.startTime {
      w.member("startTime", time)
    }
    if let time = incident.endTime {
      w.member("endTime", time)
    }
    if let time = incident.entryTime {
      w.member("entryTime", time)
    }
    w.member("roadClosed", incident.isRoadClosed)
    if let criticality = incident.impact.wireName {
      w.member("criticality", criticality)
    }
    if let type = incident.type.wireName {
      w.member("type", type)
    }
    if !incident.codes.isEmpty {
      w.key("codes")
      w.beginArray()
      for code in incident.codes {
        w.integer(code)
      }
      w.endArray()
    }
    w.key("description")
    writeText(incident.description, to: &w)
    w.key("summary")
    writeText(incident.summary, to: &w)
    w.member("junctionTraversability", incident.junctionsTraversability.rawValue)
    if !incident.vehicleRestrictions.isEmpty {
      w.key("vehicleRestrictions")
      w.beginArray()
      for category in RestrictedVehicleCategory.allCases {
        guard let restriction = incident.vehicleRestrictions[category] else { continue }
        writeRestriction(restriction, category: category, to: &w)
      }
      w.endArray()
    }
    w.endObject()
    w.endObject()
  }

  /// Writes one v7 shape link, `{"points":[{"lat":..,"lng":..},...],"length":..}` (the
  /// length in meters, one decimal); flow results write their shape with it too.
  static func writeLink(_ polyline: GeoPolyline, to w: inout JSONWriter) {
    w.beginObject()
    w.key("points")
    w.beginArray()
    var length = 0.0
    var previous: GeoCoordinates?
    for vertex in polyline.vertices {
      w.beginObject()
      w.member("lat", vertex.latitude)
      w.member("lng", vertex.longitude)
      w.endObject()
      if let previous { length += previous.fastDistance(to: vertex) }
      previous = vertex
    }
    w.endArray()
    w.member("length", length, decimals: 1)
    w.endObject()
  }

  private static func writeTMC(_ reference: TMCLocationReference, to w: inout JSONWriter) {
    w.beginObject()
    if let code = reference.extendedCountryCode {
      w.member("extendedCountryCode", code)
    }
    w.member("ebuCountryCode", reference.countryCode)
    w.member("tableId", reference.tableNumber)
    if let version = reference.tableVersion {
      w.member("tableVersion", version)
    }
    w.member("locationId", String(reference.primaryLocationCode))
    if let code = reference.secondaryLocationCode {
      w.member("secondaryLocationId", String(code))
    }
    if let direction = tmcDirectionNames[reference.direction] {
      w.member("queuingDirection", direction)
    }
    if let extent = reference.extent {
      w.member("extent", extent)
    }
    for (name, value) in [
      ("primaryOffset", reference.primaryOffsetInMeters),
      ("secondaryOffset", reference.secondaryOffsetInMeters),
      ("affectedLength", reference.affectedLengthInMeters),
    ] {
      guard let value else { continue }
      w.key(name)
      w.number(value)
    }
    w.endObject()
  }

  /// v7 `queuingDirection` values; an unknown direction is left out.
  static let tmcDirectionNames: [TMCLocationReference.Direction: String] = [
    .positive: "+", .negative: "-", .both: "both",
  ]

  private static func writeText(_ text: LocalizedText, to w: inout JSONWriter) {
    w.beginObject()
    w.member("value", text.text)
    w.member("language", text.language.identifier)
    w.endObject()
  }

  private static func writeRestriction(
    _ restriction: VehicleRestriction, category: RestrictedVehicleCategory,
    to w: inout JSONWriter
  ) {
    w.beginObject()
    w.member("vehicleType", category.rawValue)
    for (name, keyPath) in restrictionFlags where restriction[keyPath: keyPath] {
      w.key(name)
      w.bool(true)
    }
    for (name, keyPath) in restrictionBounds {
      guard let value = restriction[keyPath: keyPath] else { continue }
      w.key(name)
      w.integer(value)
    }
    if !restriction.restrictedHazardousGoods.isEmpty {
      w.key("restrictedHazardousGoods")
      w.beginArray()
      for goods in VehicleRestriction.HazardousGoods.allCases
      where restriction.restrictedHazardousGoods.contains(goods) {
        w.string(goods.rawValue)
      }
      w.endArray()
    }
    if let category = restriction.restrictedTunnelCategory {
      w.member("restrictedTunnelCategory", category.rawValue)
    }
    w.endObject()
  }

  static let restrictionFlags:
    [(String, any WritableKeyPath<VehicleRestriction, Bool> & Sendable)] = [
      ("isRestrictedAlways", \.isRestrictedAlways),
      ("isDieselFuelRestricted", \.isDieselFuelRestricted),
      ("isPetrolFuelRestricted", \.isPetrolFuelRestricted),
      ("isLpgFuelRestricted", \.isLpgFuelRestricted),
      ("isCaravanRestricted", \.isCaravanRestricted),
      ("isTrailerRestricted", \.isTrailerRestricted),
      ("isDrivingWithoutSnowChainsRestricted", \.isDrivingWithoutSnowChainsRestricted),
      ("isDrivingWithoutWinterTyresRestricted", \.isDrivingWithoutWinterTyresRestricted),
      ("isEvenNumberPlateRestricted", \.isEvenNumberPlateRestricted),
      ("isOddNumberPlateRestricted", \.isOddNumberPlateRestricted),
      ("isThroughTrafficRestricted", \.isThroughTrafficRestricted),
      ("isResidentsTrafficRestricted", \.isResidentsTrafficRestricted),
      ("isDestinationInIncidentAreaRestricted", \.isDestinationInIncidentAreaRestricted),
      ("isEuro3EmissionStandardRestricted", \.isEuro3EmissionStandardRestricted),
      ("isEuro4EmissionStandardRestricted", \.isEuro4EmissionStandardRestricted),
      ("isEuro5EmissionStandardRestricted", \.isEuro5EmissionStandardRestricted),
    ]

  static let restrictionBounds:
    [(String, any WritableKeyPath<VehicleRestriction, Int?> & Sendable)] = [
      ("restrictedIfGrossWeightMoreThanInKilograms", \.restrictedIfGrossWeightMoreThanInKilograms),
      ("restrictedIfGrossWeightLessThanInKilograms", \.restrictedIfGrossWeightLessThanInKilograms),
      ("restrictedIfAxleWeightMoreThanInKilograms", \.restrictedIfAxleWeightMoreThanInKilograms),
      ("restrictedIfAxleWeightLessThanInKilograms", \.restrictedIfAxleWeightLessThanInKilograms),
      ("restrictedIfLongerThanInCentimeters", \.restrictedIfLongerThanInCentimeters),
      ("restrictedIfShorterThanInCentimeters", \.restrictedIfShorterThanInCentimeters),
      ("restrictedIfHigherThanInCentimeters", \.restrictedIfHigherThanInCentimeters),
      ("restrictedIfLowerThanInCentimeters", \.restrictedIfLowerThanInCentimeters),
      ("restrictedIfWiderThanInCentimeters", \.restrictedIfWiderThanInCentimeters),
      ("restrictedIfNarrowerThanInCentimeters", \.restrictedIfNarrowerThanInCentimeters),
      ("restrictedIfOccupantsMoreThan", \.restrictedIfOccupantsMoreThan),
      ("restrictedIfOccupantsFewerThan", \.restrictedIfOccupantsFewerThan),
      ("restrictedIfAxleCountMoreThan", \.restrictedIfAxleCountMoreThan),
    ]
}
