import Codec
import Foundation

/// A result's `vehicleRestrictions`, written and read: one object per restricted vehicle
/// category with the HERE SDK's field names (see ``V7IncidentWire``).
extension V7IncidentWire {
  /// Writes the restriction of one vehicle category: `vehicleType`, then the rules that are
  /// set, in the order of ``restrictionFlags`` and ``restrictionBounds``.
  static func writeRestriction(
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

  /// Reads one object of `vehicleRestrictions`.
  ///
  /// - Throws: `JSONFieldError` naming an unknown vehicle type, goods or tunnel category, or
  ///   a member of the wrong kind.
  static func decodeRestriction(
    _ value: JSONValue, at path: String
  ) throws(JSONFieldError) -> (RestrictedVehicleCategory, VehicleRestriction) {
    let name = try value.required("vehicleType", at: path).requiredString(
      at: path + ".vehicleType")
    guard let category = RestrictedVehicleCategory(rawValue: name) else {
      throw JSONFieldError(path: path + ".vehicleType", reason: "unknown vehicle type \"\(name)\"")
    }
    var restriction = VehicleRestriction()
    for (key, keyPath) in restrictionFlags {
      guard let member = value[key], !member.isNull else { continue }
      guard let flag = member.bool else {
        throw JSONFieldError(path: "\(path).\(key)", reason: "expected a Boolean")
      }
      restriction[keyPath: keyPath] = flag
    }
    for (key, keyPath) in restrictionBounds {
      guard let member = value[key], !member.isNull else { continue }
      guard let number = member.int else {
        throw JSONFieldError(path: "\(path).\(key)", reason: "expected an integer")
      }
      restriction[keyPath: keyPath] = number
    }
    if let list = value["restrictedHazardousGoods"], !list.isNull {
      let listPath = path + ".restrictedHazardousGoods"
      for (index, item) in try list.requiredArray(at: listPath).enumerated() {
        guard let goods = item.string.flatMap(VehicleRestriction.HazardousGoods.init(rawValue:))
        else {
          throw JSONFieldError(path: "\(listPath)[\(index)]", reason: "unknown hazardous goods")
        }
        restriction.restrictedHazardousGoods.insert(goods)
      }
    }
    if let member = value["restrictedTunnelCategory"], !member.isNull {
      guard let tunnel = member.string.flatMap(VehicleRestriction.TunnelCategory.init(rawValue:))
      else {
        throw JSONFieldError(
          path: path + ".restrictedTunnelCategory", reason: "expected b, c, d or e")
      }
      restriction.restrictedTunnelCategory = tunnel
    }
    return (category, restriction)
  }

  /// The Boolean rules of a restriction, by member name, in the order written.
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

  /// The numeric bounds of a restriction, by member name, in the order written.
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
