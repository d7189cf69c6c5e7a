/// A category of vehicles an incident restricts, as in the HERE SDK
/// (`TrafficIncident.RestrictedVehicleCategory`).
///
/// A vehicle can belong to several categories: a passenger car is a `car`, a `motorVehicle`
/// and part of `all`. It is restricted when one of its categories is a key of
/// `TrafficIncident.vehicleRestrictions` and the matching `VehicleRestriction` applies to it.
public enum RestrictedVehicleCategory: String, CaseIterable, Hashable, Sendable, Codable,
  CodingKeyRepresentable
{
  /// Buses and coaches.
  case bus
  /// Passenger cars.
  case car
  /// Heavy goods vehicles (in the EU, a gross combination mass over 3,500 kg).
  case heavyGoodsVehicle
  /// Trucks of any weight.
  case truck
  /// Motorcycles.
  case motorcycle
  /// Any self-propelled vehicle not on rails.
  case motorVehicle
  /// Taxis.
  case taxi
  /// Trains (level crossings, rail replacement).
  case train
  /// Vehicles transporting a load of abnormal size (as each country's rules define it).
  case transportingAbnormalSizeLoad
  /// Vehicles transporting hazardous goods.
  case transportingHazardousGoods
  /// Vehicles towing a trailer.
  case vehicleWithTrailer
  /// Other vehicles.
  case other
  /// Every vehicle.
  case all
}
