/// The rules under which vehicles of one `RestrictedVehicleCategory` may not pass an incident,
/// as in the HERE SDK (`TrafficIncident.VehicleRestriction`).
///
/// A vehicle of the matching category is restricted when at least one rule applies to it:
/// `isRestrictedAlways`, one of the `is...Restricted` flags, or one of the bounds
/// (`restrictedIfGrossWeightMoreThanInKilograms` = 7500 restricts vehicles heavier than
/// 7.5 t). A `nil` bound is not given. The HERE SDK's fields are all here with their names;
/// the axle count, hazardous goods and tunnel category rules are additions of this library
/// for sources such as DATEX II that carry them.
public struct VehicleRestriction: Hashable, Sendable, Codable {
  /// Vehicles of the category are restricted whatever their properties.
  public var isRestrictedAlways: Bool = false
  /// Vehicles running on diesel are restricted.
  public var isDieselFuelRestricted: Bool = false
  /// Vehicles running on petrol are restricted.
  public var isPetrolFuelRestricted: Bool = false
  /// Vehicles running on liquefied petroleum gas are restricted.
  public var isLpgFuelRestricted: Bool = false
  /// Vehicles towing a caravan are restricted.
  public var isCaravanRestricted: Bool = false
  /// Vehicles towing a trailer are restricted.
  public var isTrailerRestricted: Bool = false
  /// Vehicles without snow chains are restricted.
  public var isDrivingWithoutSnowChainsRestricted: Bool = false
  /// Vehicles without winter tyres are restricted.
  public var isDrivingWithoutWinterTyresRestricted: Bool = false
  /// Vehicles with an even licence plate number are restricted.
  public var isEvenNumberPlateRestricted: Bool = false
  /// Vehicles with an odd licence plate number are restricted.
  public var isOddNumberPlateRestricted: Bool = false
  /// Through traffic is restricted.
  public var isThroughTrafficRestricted: Bool = false
  /// Residents' traffic is restricted.
  public var isResidentsTrafficRestricted: Bool = false
  /// Traffic with a destination inside the incident area is restricted.
  public var isDestinationInIncidentAreaRestricted: Bool = false
  /// Vehicles meeting Euro 3 or a weaker emission standard are restricted.
  public var isEuro3EmissionStandardRestricted: Bool = false
  /// Vehicles meeting Euro 4 or a weaker emission standard are restricted.
  public var isEuro4EmissionStandardRestricted: Bool = false
  /// Vehicles meeting Euro 5 or a weaker emission standard are restricted.
  public var isEuro5EmissionStandardRestricted: Bool = false
  /// Vehicles heavier (gross weight) than this many kilograms are restricted.
  public var restrictedIfGrossWeightMoreThanInKilograms: Int?
  /// Vehicles lighter (gross weight) than this many kilograms are restricted.
  public var restrictedIfGrossWeightLessThanInKilograms: Int?
  /// Vehicles with more than this many kilograms on one axle are restricted.
  public var restrictedIfAxleWeightMoreThanInKilograms: Int?
  /// Vehicles with less than this many kilograms on one axle are restricted.
  public var restrictedIfAxleWeightLessThanInKilograms: Int?
  /// Vehicles longer than this many centimeters are restricted.
  public var restrictedIfLongerThanInCentimeters: Int?
  /// Vehicles shorter than this many centimeters are restricted.
  public var restrictedIfShorterThanInCentimeters: Int?
  /// Vehicles higher than this many centimeters are restricted.
  public var restrictedIfHigherThanInCentimeters: Int?
  /// Vehicles lower than this many centimeters are restricted.
  public var restrictedIfLowerThanInCentimeters: Int?
  /// Vehicles wider than this many centimeters are restricted.
  public var restrictedIfWiderThanInCentimeters: Int?
  /// Vehicles narrower than this many centimeters are restricted.
  public var restrictedIfNarrowerThanInCentimeters: Int?
  /// Vehicles with more occupants than this are restricted.
  public var restrictedIfOccupantsMoreThan: Int?
  /// Vehicles with fewer occupants than this are restricted (car-pool lanes).
  public var restrictedIfOccupantsFewerThan: Int?
  /// Vehicles with more axles than this are restricted (an addition of this library).
  public var restrictedIfAxleCountMoreThan: Int?
  /// Vehicles carrying any of these kinds of hazardous goods are restricted (an addition of
  /// this library).
  public var restrictedHazardousGoods: Set<HazardousGoods> = []
  /// Vehicles whose load is barred from tunnels of this ADR category (or a stricter one) are
  /// restricted (an addition of this library).
  public var restrictedTunnelCategory: TunnelCategory?

  /// A restriction with no rule set; set the rules that apply.
  public init() {}

  /// A restriction that applies to every vehicle of its category.
  public static var always: VehicleRestriction {
    var restriction = VehicleRestriction()
    restriction.isRestrictedAlways = true
    return restriction
  }

  /// Kinds of hazardous goods, as used by HERE's routing services and DATEX II.
  public enum HazardousGoods: String, CaseIterable, Hashable, Sendable, Codable {
    /// Explosives (ADR class 1).
    case explosive
    /// Gases (ADR class 2).
    case gas
    /// Flammable liquids (ADR class 3).
    case flammable
    /// Combustible solids (ADR class 4).
    case combustible
    /// Organic peroxides and oxidisers (ADR class 5).
    case organic
    /// Toxic substances (ADR class 6.1).
    case poison
    /// Radioactive material (ADR class 7).
    case radioactive
    /// Corrosives (ADR class 8).
    case corrosive
    /// Substances toxic when inhaled.
    case poisonousInhalation
    /// Goods harmful to water.
    case harmfulToWater
    /// Other dangerous goods (ADR class 9).
    case other
  }

  /// ADR tunnel categories (UNECE ADR 1.9.5), from least (`b`) to most (`e`) strict.
  public enum TunnelCategory: String, CaseIterable, Hashable, Sendable, Codable, Comparable {
    /// Category B: restricts goods that could cause a very large explosion.
    case b
    /// Category C: adds goods that could cause a large explosion or toxic release.
    case c
    /// Category D: adds goods that could cause a large fire.
    case d
    /// Category E: restricts all dangerous goods needing a tunnel code.
    case e

    /// Orders categories from least to most strict.
    public static func < (lhs: TunnelCategory, rhs: TunnelCategory) -> Bool {
      lhs.rawValue < rhs.rawValue
    }
  }
}
