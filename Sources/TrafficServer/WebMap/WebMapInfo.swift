import Codec
import Foundation
import Geo
import Traffic

/// What `GET /v1/info` reports: counts and where the data lies, so that the web map opens
/// on the data.
enum WebMapInfo {
  /// The languages the web map offers for incident texts.
  static let languages = ["en-US", "de-DE", "fr-FR", "es-ES", "it-IT", "nl-NL", "pl-PL"]

  /// The bounds of the network and of the incidents, for one state of the incidents.
  struct Bounds: Sendable {
    /// When the incidents last changed and how many there were: the state these bounds
    /// describe.
    var incidentsUpdated: Date?
    var incidentCount: Int
    /// The network's bounds; `nil` without a network.
    var network: Extent?
    /// The bounds of every incident's polylines; `nil` without incidents.
    var incidents: Extent?

    /// The bounds of both, or `nil` when there is neither.
    var data: Extent? {
      switch (network, incidents) {
      case (let a?, let b?): return a.union(b)
      case (let a?, nil): return a
      case (nil, let b?): return b
      case (nil, nil): return nil
      }
    }
  }

  /// A latitude and longitude range (west <= east: data crossing the antimeridian is
  /// reported as spanning the world's width, which a map can still show).
  struct Extent: Sendable, Equatable {
    var west = Double.infinity
    var south = Double.infinity
    var east = -Double.infinity
    var north = -Double.infinity

    var isEmpty: Bool { west > east }

    mutating func add(_ point: GeoCoordinates) {
      west = min(west, point.longitude)
      east = max(east, point.longitude)
      south = min(south, point.latitude)
      north = max(north, point.latitude)
    }

    func union(_ other: Extent) -> Extent {
      Extent(
        west: min(west, other.west), south: min(south, other.south),
        east: max(east, other.east), north: max(north, other.north))
    }

    /// The extent of points, or `nil` when there are none.
    static func of(_ points: some Sequence<GeoCoordinates>) -> Extent? {
      var extent = Extent()
      for point in points { extent.add(point) }
      return extent.isEmpty ? nil : extent
    }
  }

  /// The bounds for the engine's current state.
  ///
  /// - Parameters:
  ///   - engine: The engine.
  ///   - previous: Bounds computed before; their network part is reused, and all of them
  ///     when the incidents did not change since.
  /// - Returns: The bounds.
  /// - Complexity: O(1) when the incidents are unchanged; else O(v) in the incidents'
  ///   vertices, plus O(n) in the network's nodes the first time.
  static func bounds(of engine: TrafficEngine, previous: Bounds?) -> Bounds {
    let snapshot = engine.currentSnapshot
    if let previous, previous.incidentsUpdated == snapshot.updatedAt,
      previous.incidentCount == snapshot.count
    {
      return previous
    }
    let network =
      previous?.network
      ?? engine.roadNetwork.flatMap { network in Extent.of(network.nodes.lazy.map(\.coordinates)) }
    let incidents = Extent.of(
      snapshot.incidents.lazy.flatMap { $0.location.allPolylines.lazy.flatMap(\.vertices) })
    return Bounds(
      incidentsUpdated: snapshot.updatedAt, incidentCount: snapshot.count, network: network,
      incidents: incidents)
  }

  /// The JSON body of `/v1/info`.
  ///
  /// `{"incidents": n, "sourceUpdated", "flowUpdated", "roadSegments": n | null,
  /// "networkBounds", "incidentBounds", "dataBounds" (each `{"west", "south", "east",
  /// "north"}` or null), "maximumZoom", "languages": [...]}`.
  static func encode(engine: TrafficEngine, bounds: Bounds) -> Data {
    var writer = JSONWriter(capacity: 512)
    writer.beginObject()
    writer.member("incidents", bounds.incidentCount)
    writer.member("sourceUpdated", engine.lastUpdate)
    writer.member("flowUpdated", engine.flowLastUpdate)
    writer.key("roadSegments")
    if let network = engine.roadNetwork {
      writer.integer(network.segments.count)
    } else {
      writer.null()
    }
    for (name, extent) in [
      ("networkBounds", bounds.network), ("incidentBounds", bounds.incidents),
      ("dataBounds", bounds.data),
    ] {
      writer.key(name)
      guard let extent else {
        writer.null()
        continue
      }
      writer.beginObject()
      writer.member("west", extent.west)
      writer.member("south", extent.south)
      writer.member("east", extent.east)
      writer.member("north", extent.north)
      writer.endObject()
    }
    writer.member("maximumZoom", TileLayer.maximumZoom)
    writer.key("languages")
    writer.beginArray()
    for language in languages {
      writer.string(language)
    }
    writer.endArray()
    writer.endObject()
    return Data(writer.bytes)
  }
}
