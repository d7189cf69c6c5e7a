/// The OpenLR binary physical data format, version 3: line locations, geo-coordinate
/// locations, points along a line and POIs with an access point.
///
/// Specification: TomTom International B.V., "OpenLR White Paper", version 1.5 revision 2,
/// section 7 ("Binary physical data format"). A location reference is a header byte
/// (bit 7 reserved, bit 6 area flag 1, bit 5 point flag, bit 4 area flag 0, bit 3 attribute
/// flag, bits 2-0 the version) followed by location reference points (LRPs):
/// - the first coordinate pair is absolute: longitude, then latitude, each a 24-bit two's
///   complement integer `n` meaning `(n - 0.5 * sign(n)) * 360 / 2^24` degrees;
/// - every later pair is relative to the previous LRP: two 16-bit integers in units of
///   10^-5 degrees (longitude first);
/// - attribute 1 (bits 7-6 orientation or side of road, bits 5-3 functional road class,
///   bits 2-0 form of way), attribute 2 (bits 7-5 lowest functional road class to the next
///   point, bits 4-0 the bearing sector of 11.25 degrees), attribute 3 (the distance to the
///   next point in units of 58.6 m), and on the last LRP attribute 4 (bit 6 positive offset
///   present, bit 5 negative offset present, bits 4-0 the bearing sector);
/// - offsets are one byte each, `b` meaning `(b + 0.5) / 256` of the distance between the
///   first two LRPs (positive) or the last two (negative).
///
/// Decoded bucket values (bearing, distance, offsets) are the midpoints of their buckets, so
/// that encoding a decoded reference gives back the same bytes. Area locations (circle,
/// rectangle, grid, polygon, closed line) and version 2 are refused with an error naming them.
public enum OpenLR {
  /// The format name used in errors.
  static let format = "OpenLR"

  /// The binary format version this codec reads and writes.
  public static let version = 3

  /// Degrees per unit of a 24-bit absolute coordinate.
  static let absoluteResolution = 360.0 / Double(1 << 24)
  /// Units of a relative coordinate per degree.
  static let relativeScale = 100_000.0
  /// Meters per unit of the distance to the next point.
  public static let distanceResolutionInMeters = 58.6
  /// Degrees per bearing sector.
  public static let bearingSectorInDegrees = 11.25

  /// What kind of road a line is (white paper, "form of way").
  public enum FormOfWay: UInt8, Hashable, Sendable, CaseIterable {
    /// Not known or not one of the others.
    case undefined = 0
    /// A motorway.
    case motorway = 1
    /// A road with separated carriageways.
    case multipleCarriageway = 2
    /// A road with one carriageway.
    case singleCarriageway = 3
    /// A roundabout.
    case roundabout = 4
    /// An open area where traffic moves freely (a square).
    case trafficSquare = 5
    /// A slip road (ramp).
    case slipRoad = 6
    /// Any other kind of way.
    case other = 7
  }

  /// How a point location relates to the direction of its line.
  public enum Orientation: UInt8, Hashable, Sendable, CaseIterable {
    /// No orientation, or unknown.
    case unknown = 0
    /// In the direction from the first to the last LRP.
    case withLineDirection = 1
    /// Against that direction.
    case againstLineDirection = 2
    /// Both directions.
    case both = 3
  }

  /// On which side of the road a point location lies.
  public enum SideOfRoad: UInt8, Hashable, Sendable, CaseIterable {
    /// On the road, or unknown.
    case onRoadOrUnknown = 0
    /// On the right of the line's direction.
    case right = 1
    /// On the left.
    case left = 2
    /// On both sides.
    case both = 3
  }

  /// One location reference point: a position and the properties of the line leaving it (for
  /// the last point, the line arriving at it).
  public struct ReferencePoint: Hashable, Sendable {
    /// Where the point lies.
    public var coordinates: GeoCoordinates
    /// The functional road class of the line, 0 (most important) ... 7.
    public var functionalRoadClass: Int
    /// The form of way of the line.
    public var formOfWay: FormOfWay
    /// The bearing of the line, degrees clockwise from true north, 0..<360 (decoded: the
    /// middle of its 11.25-degree sector).
    public var bearingInDegrees: Double
    /// The lowest functional road class on the path to the next point, 0...7; 7 on the last
    /// point, which has no next point.
    public var lowestFunctionalRoadClassToNext: Int
    /// The distance along the path to the next point, meters (decoded: the middle of its
    /// 58.6 m bucket); 0 on the last point.
    public var distanceToNextInMeters: Double

    /// Creates a reference point.
    ///
    /// - Parameters:
    ///   - coordinates: The position.
    ///   - functionalRoadClass: 0...7.
    ///   - formOfWay: The kind of road.
    ///   - bearingInDegrees: Degrees clockwise from north.
    ///   - lowestFunctionalRoadClassToNext: 0...7; 7 for the last point.
    ///   - distanceToNextInMeters: Meters to the next point; 0 for the last point.
    public init(
      coordinates: GeoCoordinates, functionalRoadClass: Int, formOfWay: FormOfWay,
      bearingInDegrees: Double, lowestFunctionalRoadClassToNext: Int = 7,
      distanceToNextInMeters: Double = 0
    ) {
      self.coordinates = coordinates
      self.functionalRoadClass = functionalRoadClass
      self.formOfWay = formOfWay
      self.bearingInDegrees = bearingInDegrees
      self.lowestFunctionalRoadClassToNext = lowestFunctionalRoadClassToNext
      self.distanceToNextInMeters = distanceToNextInMeters
    }
  }

  /// A path along roads through two or more reference points.
  public struct Line: Hashable, Sendable {
    /// The reference points in order, at least two.
    public var points: [ReferencePoint]
    /// Where the location begins after the first point, as a fraction 0..<1 of the distance
    /// from the first to the second point; 0 when the reference has no positive offset.
    public var positiveOffset: Double
    /// Where the location ends before the last point, as a fraction 0..<1 of the distance
    /// between the last two points; 0 when the reference has no negative offset.
    public var negativeOffset: Double

    /// Creates a line location.
    public init(points: [ReferencePoint], positiveOffset: Double = 0, negativeOffset: Double = 0) {
      self.points = points
      self.positiveOffset = positiveOffset
      self.negativeOffset = negativeOffset
    }
  }

  /// A point on the line between two reference points.
  public struct PointAlongLine: Hashable, Sendable {
    /// The reference point before the point.
    public var first: ReferencePoint
    /// The reference point after it.
    public var last: ReferencePoint
    /// Where the point lies after `first`, as a fraction 0..<1 of the distance from `first`
    /// to `last`; 0 when the reference has no offset.
    public var positiveOffset: Double
    /// Which direction of the line the point concerns.
    public var orientation: Orientation
    /// Which side of the road the point is on.
    public var sideOfRoad: SideOfRoad

    /// Creates a point along a line.
    public init(
      first: ReferencePoint, last: ReferencePoint, positiveOffset: Double = 0,
      orientation: Orientation = .unknown, sideOfRoad: SideOfRoad = .onRoadOrUnknown
    ) {
      self.first = first
      self.last = last
      self.positiveOffset = positiveOffset
      self.orientation = orientation
      self.sideOfRoad = sideOfRoad
    }

    /// The point at `positiveOffset` on the straight segment from `first` to `last` (the
    /// road between them is not known without a map).
    public var approximatePosition: GeoCoordinates {
      let a = first.coordinates
      let b = last.coordinates
      let t = min(max(positiveOffset, 0), 1)
      return GeoCoordinates(
        uncheckedLatitude: a.latitude + t * (b.latitude - a.latitude),
        longitude: a.longitude + t * (b.longitude - a.longitude))
    }
  }

  /// A decoded location reference.
  public enum Location: Hashable, Sendable {
    /// A line location (header `0x0B`).
    case line(Line)
    /// A single position (header `0x23`).
    case geoCoordinate(GeoCoordinates)
    /// A point along a line (header `0x2B`, 16 or 17 bytes).
    case pointAlongLine(PointAlongLine)
    /// A point of interest reached from a point along a line (header `0x2B`, 20 or 21 bytes).
    case poiWithAccessPoint(PointAlongLine, poi: GeoCoordinates)

    /// The coordinates the reference gives, in order: the LRPs of a line, the position of a
    /// geo-coordinate, the two LRPs of a point along a line, the two LRPs then the POI.
    public var referenceCoordinates: [GeoCoordinates] {
      switch self {
      case .line(let line): return line.points.map(\.coordinates)
      case .geoCoordinate(let point): return [point]
      case .pointAlongLine(let point): return [point.first.coordinates, point.last.coordinates]
      case .poiWithAccessPoint(let point, let poi):
        return [point.first.coordinates, point.last.coordinates, poi]
      }
    }

    /// A geometry for the location without a map: a line's reference points joined in order,
    /// a geo-coordinate as a point, a point along a line at its offset on the straight
    /// segment between its two reference points, a POI at its own position.
    ///
    /// A point is a two-vertex polyline of the same coordinate (`GeoPolyline(point:)`).
    public var approximatePolyline: GeoPolyline {
      switch self {
      case .line(let line):
        let vertices = line.points.map(\.coordinates)
        guard let first = vertices.first, vertices.contains(where: { $0 != first }) else {
          return GeoPolyline(
            point: vertices.first ?? GeoCoordinates(uncheckedLatitude: 0, longitude: 0))
        }
        return GeoPolyline(uncheckedVertices: vertices)
      case .geoCoordinate(let point):
        return GeoPolyline(point: point)
      case .pointAlongLine(let point):
        return GeoPolyline(point: point.approximatePosition)
      case .poiWithAccessPoint(_, let poi):
        return GeoPolyline(point: poi)
      }
    }
  }

  static func failure(_ position: Int?, _ reason: String) -> GeoError {
    .malformed(format: format, position: position, reason: reason)
  }
}
