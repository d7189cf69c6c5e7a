import Geo

extension RoadSegment {
  /// Creates a segment with every stored property given, its length included (decoding a
  /// stored network, whose lengths were computed when it was built).
  init(
    id: Int, sourceID: String, fromNode: Int, toNode: Int, geometry: GeoPolyline,
    lengthInMeters: Double, name: String?, ref: String?, roadClass: RoadClass,
    speedLimitInMetersPerSecond: Double, speedLimitSource: SpeedLimitSource, laneCount: Int?,
    isReversed: Bool, oppositeID: Int?, isOpenToCars: Bool, isRoundabout: Bool,
    isToll: Bool
  ) {
    self.id = id
    self.sourceID = sourceID
    self.fromNode = fromNode
    self.toNode = toNode
    self.geometry = geometry
    self.lengthInMeters = lengthInMeters
    self.name = name
    self.ref = ref
    self.roadClass = roadClass
    self.speedLimitInMetersPerSecond = speedLimitInMetersPerSecond
    self.speedLimitSource = speedLimitSource
    self.laneCount = laneCount
    self.isReversed = isReversed
    self.oppositeID = oppositeID
    self.isOpenToCars = isOpenToCars
    self.isRoundabout = isRoundabout
    self.isToll = isToll
  }
}
