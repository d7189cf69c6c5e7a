import Codec
import Foundation
import Geo

extension V8MatrixWire {
  /// The answer of a synchronous matrix request: `{"matrixId", "matrix": {"numOrigins",
  /// "numDestinations", "travelTimes"?, "distances"?, "errorCodes"?}, "regionDefinition"}`,
  /// the cells flattened row by row (cell `numDestinations · i + j` for origin `i` and
  /// destination `j`).
  public struct Response: Hashable, Sendable {
    /// The answer's id.
    public var matrixId: String
    /// The rows.
    public var numOrigins: Int
    /// The columns.
    public var numDestinations: Int
    /// Whole seconds of each cell (0 where its error code is not 0); `nil`: not asked for.
    public var travelTimes: [Int]?
    /// Whole meters of each cell (0 where its error code is not 0); `nil`: not asked for.
    public var distances: [Int]?
    /// The error code of each cell (``CellError``); `nil`: every cell is 0.
    public var errorCodes: [Int]?
    /// The region the matrix was computed in (an `autoCircle` as the circle it became).
    public var region: Region

    /// An answer.
    public init(
      matrixId: String, numOrigins: Int, numDestinations: Int, travelTimes: [Int]?,
      distances: [Int]?, errorCodes: [Int]?, region: Region
    ) {
      self.matrixId = matrixId
      self.numOrigins = numOrigins
      self.numDestinations = numDestinations
      self.travelTimes = travelTimes
      self.distances = distances
      self.errorCodes = errorCodes
      self.region = region
    }

    /// The answer of a matrix: seconds and meters rounded to whole ones, the cells of
    /// waypoints `outside` the region (indices counting the origins, then the destinations)
    /// with error code 4, of the other `unmatched` ones 2, the other cells without a route 1
    /// (HERE's codes).
    public init(
      _ matrix: RouteMatrix, attributes: Attributes, unmatched: Set<Int>,
      outside: Set<Int> = [], region: Region, matrixId: String = UUID().uuidString.lowercased()
    ) {
      let rows = matrix.origins.count
      let columns = matrix.destinations.count
      var codes: [Int] = []
      codes.reserveCapacity(rows * columns)
      var times: [Int] = []
      var meters: [Int] = []
      for row in 0..<rows {
        for column in 0..<columns {
          let seconds = matrix.travelTimesInSeconds[row][column]
          let length = matrix.distancesInMeters[row][column]
          if outside.contains(row) || outside.contains(rows + column) {
            codes.append(CellError.outsideRegion.rawValue)
          } else if unmatched.contains(row) || unmatched.contains(rows + column) {
            codes.append(CellError.unmatched.rawValue)
          } else if seconds == nil || length == nil {
            codes.append(CellError.noRoute.rawValue)
          } else {
            codes.append(CellError.none.rawValue)
          }
          times.append(Self.whole(seconds))
          meters.append(Self.whole(length))
        }
      }
      self.init(
        matrixId: matrixId, numOrigins: rows, numDestinations: columns,
        travelTimes: attributes.contains(.travelTimes) ? times : nil,
        distances: attributes.contains(.distances) ? meters : nil,
        errorCodes: codes.contains { $0 != 0 } ? codes : nil, region: region)
    }

    static func whole(_ value: Double?) -> Int {
      guard let value, value.isFinite else { return 0 }
      return Int(min(value, 9e15).rounded())
    }

    /// The error code of a cell (0 when the answer has none).
    public func errorCode(row: Int, column: Int) -> Int {
      errorCodes?[row * numDestinations + column] ?? 0
    }

    /// The cells as a matrix: `nil` where the error code is not 0 (or the attribute was not
    /// asked for). The waypoints' places are the points asked for, at 0 m from the road
    /// (v8 answers have no places).
    public func routeMatrix(
      origins: [GeoCoordinates], destinations: [GeoCoordinates]
    ) -> RouteMatrix {
      func cells(_ values: [Int]?) -> [[Double?]] {
        (0..<numOrigins).map { row in
          (0..<numDestinations).map { column in
            guard let values, errorCode(row: row, column: column) == 0 else { return nil }
            return Double(values[row * numDestinations + column])
          }
        }
      }
      func places(_ points: [GeoCoordinates]) -> [RouteMatrix.Place] {
        points.map { RouteMatrix.Place(location: $0, originalLocation: $0, distanceInMeters: 0) }
      }
      return RouteMatrix(
        travelTimesInSeconds: cells(travelTimes), distancesInMeters: cells(distances),
        origins: places(origins), destinations: places(destinations))
    }

    /// The JSON of the answer.
    public func encoded() -> Data {
      var w = JSONWriter(capacity: 128 + 8 * numOrigins * numDestinations)
      w.beginObject()
      w.member("matrixId", matrixId)
      w.key("matrix")
      w.beginObject()
      w.member("numOrigins", numOrigins)
      w.member("numDestinations", numDestinations)
      for (name, values) in [
        ("travelTimes", travelTimes), ("distances", distances), ("errorCodes", errorCodes),
      ] {
        guard let values else { continue }
        w.key(name)
        w.beginArray()
        for value in values { w.integer(value) }
        w.endArray()
      }
      w.endObject()
      w.key("regionDefinition")
      V8MatrixWire.write(region, to: &w)
      w.endObject()
      return Data(w.bytes)
    }

    /// Reads an answer.
    ///
    /// - Throws: ``V8MatrixWire/Malformed`` naming what is missing or inconsistent.
    public init(json data: Data) throws(Malformed) {
      let value: JSONValue
      do { value = try JSONParser.parse(data) } catch {
        throw Malformed("the matrix answer is not JSON: \(error)")
      }
      guard let id = value["matrixId"]?.string, let matrix = value["matrix"],
        let rows = matrix["numOrigins"]?.int, let columns = matrix["numDestinations"]?.int,
        rows >= 0, columns >= 0, rows <= 1 << 24, columns <= 1 << 24,
        let regionValue = value["regionDefinition"]
      else {
        throw Malformed(
          "the matrix answer needs matrixId, matrix.numOrigins, matrix.numDestinations and "
            + "regionDefinition")
      }
      func integers(_ name: String) throws(Malformed) -> [Int]? {
        guard let member = matrix[name] else { return nil }
        guard let elements = member.array, elements.count == rows * columns else {
          throw Malformed("matrix.\(name) must be an array of \(rows * columns) integers")
        }
        var values: [Int] = []
        values.reserveCapacity(elements.count)
        for element in elements {
          guard let number = element.int else {
            throw Malformed("matrix.\(name) has \(element.kindName) that is not an integer")
          }
          values.append(number)
        }
        return values
      }
      self.init(
        matrixId: id, numOrigins: rows, numDestinations: columns,
        travelTimes: try integers("travelTimes"), distances: try integers("distances"),
        errorCodes: try integers("errorCodes"), region: try V8MatrixWire.region(regionValue))
    }
  }
}

// MARK: Regions

extension V8MatrixWire.Region {
  /// The region as the matrix is computed in it: an `autoCircle` becomes the circle around
  /// `points` (centered on the middle of their bounding box; its radius the farthest
  /// point's distance, at most the maximum radius, plus the margin, rounded up to a meter).
  public func resolved(for points: [GeoCoordinates]) -> Self {
    guard case .autoCircle(let margin, let maxRadius) = self, !points.isEmpty else {
      return self
    }
    let center = Self.center(points)
    let farthest = points.map { center.distance(to: $0) }.max() ?? 0
    let reach = min(farthest, maxRadius ?? .infinity)
    let radius = (reach + (margin ?? Self.defaultMarginInMeters)).rounded(.up)
    return .circle(center: center, radiusInMeters: max(radius, 1))
  }

  /// The waypoints an `autoCircle` with a maximum radius leaves out (farther from its
  /// center than that radius), or those outside a circle or box; none for `world`.
  ///
  /// - Returns: The indices in `points` outside the region.
  public func outside(_ points: [GeoCoordinates]) -> Set<Int> {
    var indices = Set<Int>()
    switch self {
    case .world:
      break
    case .autoCircle(_, let maxRadius):
      guard let maxRadius, !points.isEmpty else { break }
      let center = Self.center(points)
      for (index, point) in points.enumerated() where center.distance(to: point) > maxRadius {
        indices.insert(index)
      }
    case .circle(let center, let radius):
      for (index, point) in points.enumerated() where center.distance(to: point) > radius {
        indices.insert(index)
      }
    case .boundingBox(let north, let south, let west, let east):
      for (index, point) in points.enumerated() {
        let latitudeInside = point.latitude >= south && point.latitude <= north
        let longitudeInside =
          west <= east
          ? point.longitude >= west && point.longitude <= east
          : point.longitude >= west || point.longitude <= east
        if !(latitudeInside && longitudeInside) { indices.insert(index) }
      }
    }
    return indices
  }

  /// The middle of the points' bounding box.
  static func center(_ points: [GeoCoordinates]) -> GeoCoordinates {
    let latitudes = points.map(\.latitude)
    let longitudes = points.map(\.longitude)
    return GeoCoordinates(
      uncheckedLatitude: ((latitudes.min() ?? 0) + (latitudes.max() ?? 0)) / 2,
      longitude: ((longitudes.min() ?? 0) + (longitudes.max() ?? 0)) / 2)
  }
}
