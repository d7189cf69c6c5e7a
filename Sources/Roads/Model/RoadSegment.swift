import Geo

/// A directed piece of road between two nodes, with no junction in between.
///
/// A two-way road gives two segments, one per direction, whose geometries are each other's
/// reverse (``oppositeID`` links them). Traffic on a segment moves from ``fromNode`` to
/// ``toNode`` along ``geometry``.
public struct RoadSegment: Hashable, Sendable, Identifiable {
  /// Position in ``RoadNetwork/segments``.
  public let id: Int
  /// The road's id in the source data: the OpenStreetMap way id in decimal, or the SUMO edge
  /// id (for example `"-156640643#1"`). Several segments share one way id.
  public let sourceID: String
  /// The node the segment leaves (index into ``RoadNetwork/nodes``).
  public let fromNode: Int
  /// The node the segment enters (index into ``RoadNetwork/nodes``).
  public let toNode: Int
  /// The path in the direction of travel.
  public let geometry: GeoPolyline
  /// Geodesic length of ``geometry``, meters.
  public let lengthInMeters: Double
  /// Street name (`name`), if any.
  public let name: String?
  /// Road number (`ref`, e.g. `"A 10"`), if any.
  public let ref: String?
  /// The road class.
  public let roadClass: RoadClass
  /// The legal (or assumed) speed limit, meters per second.
  public let speedLimitInMetersPerSecond: Double
  /// Where ``speedLimitInMetersPerSecond`` comes from.
  public let speedLimitSource: SpeedLimitSource
  /// Lanes in the direction of travel, when known.
  public let laneCount: Int?
  /// Whether the segment runs against the drawing direction of its source way.
  public let isReversed: Bool
  /// The segment covering the same road in the other direction, if the road is two-way.
  public let oppositeID: Int?
  /// Whether passenger cars may drive it: `false` for a road open only to other motor
  /// vehicles (a SUMO edge whose lanes allow buses or delivery vans but no `passenger`).
  /// Map matching uses every segment; car routes only these.
  public let isOpenToCars: Bool
  /// Whether the segment is part of a roundabout (OpenStreetMap `junction=roundabout` or
  /// `circular`, a SUMO `<roundabout>`), which route directions count exits on.
  public let isRoundabout: Bool
  /// Whether driving the segment costs a toll: OpenStreetMap `toll=yes` for its direction
  /// (`toll:forward` / `toll:backward` override `toll`, as OSRM's car profile reads them).
  /// `false` where no toll is known, which includes every network imported before tolls
  /// were stored and every SUMO network.
  public let isToll: Bool

  /// Creates a segment. ``lengthInMeters`` is computed from the geometry.
  public init(
    id: Int, sourceID: String, fromNode: Int, toNode: Int, geometry: GeoPolyline,
    name: String? = nil, ref: String? = nil, roadClass: RoadClass,
    speedLimit: SpeedLimit, laneCount: Int? = nil, isReversed: Bool = false,
    oppositeID: Int? = nil, isOpenToCars: Bool = true, isRoundabout: Bool = false,
    isToll: Bool = false
  ) {
    self.id = id
    self.sourceID = sourceID
    self.fromNode = fromNode
    self.toNode = toNode
    self.geometry = geometry
    self.lengthInMeters = geometry.lengthInMeters
    self.name = name
    self.ref = ref
    self.roadClass = roadClass
    self.speedLimitInMetersPerSecond = speedLimit.metersPerSecond
    self.speedLimitSource = speedLimit.source
    self.laneCount = laneCount
    self.isReversed = isReversed
    self.oppositeID = oppositeID
    self.isOpenToCars = isOpenToCars
    self.isRoundabout = isRoundabout
    self.isToll = isToll
  }

  /// The functional road class 1...5 (see ``RoadClass/functionalClass``).
  public var functionalClass: Int { roadClass.functionalClass }

  /// Time to drive the segment at the speed limit, seconds.
  public var travelTimeInSeconds: Double {
    speedLimitInMetersPerSecond > 0 ? lengthInMeters / speedLimitInMetersPerSecond : .infinity
  }
}
