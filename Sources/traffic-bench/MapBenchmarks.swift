import Foundation
import Geo
import Roads
import Traffic
import TrafficMap

/// Sizes of the map benchmarks.
struct MapBenchmarkSizes {
  /// Distinct tiles rendered per zoom level and kind (fewer where fewer hold roads).
  var tilesPerZoom = 60
  /// Renders per zoom level and kind at least: few tiles are drawn again, in turn.
  var minimumRenders = 30
  /// Flow queries of 1 km circles centred on roads.
  var flowQueries = 1_000
  /// Picks (1 × 1 pixel) in total, spread over `pickViews` camera positions.
  var picks = 1_000
  var pickViews = 10

  static let quick = MapBenchmarkSizes(
    tilesPerZoom: 4, minimumRenders: 4, flowQueries: 50, picks: 40, pickViews: 2)
}

/// The map (issue 8) on a road network with flow on every segment (one feed observation
/// per segment, speeds from 10 % to 100 % of the limit so that every colour appears; their
/// ingestion is timed) and an incident on every twentieth segment:
/// - flow queries of 1 km circles (`flow(inside:options:)`, what a flow tile asks);
/// - raster tiles per second at zooms 10, 13 and 16 — flow overlays and basemaps,
///   256 × 256 PNGs drawn by Cairo and encoded, without the cache
///   (`TileRenderer.render(_:)`) — read against node-mapnik's published ~90 tiles/s;
/// - Mapbox Vector Tile encoding (`VectorTileEncoder.encode(tile:engine:)`): time and bytes
///   per tile;
/// - picking at random points of a 512 × 512 view at zoom 15
///   (`MapView.pickMapContent(inside:)`, a 1 × 1 rectangle).
///
/// Tiles are drawn among those holding a segment's midpoint, so that none is empty; where
/// fewer than `minimumRenders` exist (zoom 10 holds a small network in one or two), they
/// are drawn again in turn.
/// - Parameters:
///   - sizes: Tile and pick counts.
///   - network: The roads.
///   - report: Receives each measurement.
/// - Throws: Engine, tile and map errors.
/// - Returns: A sum to fold into the sink.
@MainActor
func runMapBenchmarks(
  _ sizes: MapBenchmarkSizes, network: RoadNetwork?, report: (Measurement) -> Void
) async throws -> Int {
  guard let network else { return 0 }
  let now = Date(timeIntervalSince1970: 1_811_851_200)
  let engine = try TrafficEngine(store: InMemoryTrafficStore(), clock: { now }, network: network)
  var random = SplitMix64(seed: 23)
  let observations = network.segments.map { segment in
    FlowObservation(
      polyline: segment.geometry,
      speedInMetersPerSecond: segment.speedLimitInMetersPerSecond * (0.1 + 0.9 * random.nextUnit()),
      time: now)
  }
  let (covered, ingestTime) = timed { engine.ingest(observations: observations) }
  let incidents = try stride(from: 0, to: network.segments.count, by: 20).map { id in
    let segment = network.segments[id]
    let location =
      id % 40 == 0
      ? try TrafficLocation(polyline: segment.geometry)
      : TrafficLocation(
        point: segment.geometry.coordinates(atDistance: segment.lengthInMeters / 2))
    return try TrafficIncident(
      id: "map-\(id)", type: id % 60 == 0 ? .roadClosure : .accident, impact: .major,
      startTime: now - 600, endTime: now + 3_600, location: location)
  }
  try engine.apply(IncidentBatch(upserts: incidents))
  report(
    Measurement(
      name: "map.flow-observations-ingest", value: ingestTime, unit: "ms",
      n: observations.count, flatbushMilliseconds: nil))
  report(
    Measurement(
      name: "map.segments-with-flow", value: Double(covered), unit: "segments",
      n: network.segments.count, flatbushMilliseconds: nil))

  var sink = 0
  let middles = network.segments.map {
    $0.geometry.coordinates(atDistance: $0.lengthInMeters / 2)
  }

  // The flow query behind every flow tile, on roads with live flow everywhere.
  let circles = try (0..<sizes.flowQueries).map { _ in
    try GeoCircle(
      center: middles[Int(random.next() % UInt64(middles.count))], radiusInMeters: 1_000)
  }
  let flowOptions = TrafficFlowQueryOptions()
  sink &+= try engine.flow(inside: circles[0], options: flowOptions).count
  let flows = try measureLatencies("map.flow-circle-1km", count: circles.count, report: report) {
    try engine.flow(inside: circles[$0], options: flowOptions).count
  }
  report(
    Measurement(
      name: "map.flow-circle-1km.results", value: Double(flows) / Double(circles.count),
      unit: "flows/query", n: circles.count, flatbushMilliseconds: nil))
  sink &+= flows

  let renderer = TileRenderer(engine: engine, clock: { now })
  for zoom in [10, 13, 16] {
    var tiles = Array(Set(try middles.map { try TileID(containing: $0, zoom: zoom) }))
      .sorted { ($0.x, $0.y) < ($1.x, $1.y) }
    shuffle(&tiles, &random)
    tiles = Array(tiles.prefix(sizes.tilesPerZoom))
    for (kind, label) in [(TileKind.flow(.withFreeFlow), "flow"), (.basemap, "basemap")] {
      let distinct = try tiles.map { try TileRequest(kind: kind, tile: $0) }
      let requests = (0..<max(distinct.count, sizes.minimumRenders)).map {
        distinct[$0 % distinct.count]
      }
      sink &+= try renderer.render(requests[0]).count
      let (bytes, time) = try timed {
        try requests.reduce(0) { $0 + (try renderer.render($1).count) }
      }
      sink &+= bytes
      report(
        Measurement(
          name: "map.raster-\(label).z\(zoom)", value: Double(requests.count) / (time / 1000),
          unit: "tiles/s", n: requests.count, flatbushMilliseconds: nil,
          reference: label == "flow" ? "node-mapnik ~90 tiles/s" : nil))
    }
    let encodes = (0..<max(tiles.count, sizes.minimumRenders)).map { tiles[$0 % tiles.count] }
    sink &+= VectorTileEncoder.encode(tile: encodes[0], engine: engine).count
    let (bytes, time) = timed {
      encodes.reduce(0) { $0 + VectorTileEncoder.encode(tile: $1, engine: engine).count }
    }
    report(
      Measurement(
        name: "map.mvt.z\(zoom).encode", value: time / Double(encodes.count), unit: "ms/tile",
        n: encodes.count, flatbushMilliseconds: nil))
    report(
      Measurement(
        name: "map.mvt.z\(zoom).size", value: Double(bytes) / Double(encodes.count),
        unit: "bytes/tile", n: encodes.count, flatbushMilliseconds: nil))
  }

  let view = try MapView(size: Size2D(width: 512, height: 512), engine: engine, clock: { now })
  try await view.mapScene.loadScene(mapScheme: .normalDay)
  try view.mapScene.enableFeatures([
    .trafficFlow: .trafficFlowWithFreeFlow, .trafficIncidents: .defaultMode,
  ])
  let picksPerView = max(1, sizes.picks / max(1, sizes.pickViews))
  let points = (0..<picksPerView * sizes.pickViews).map { _ in
    Rectangle2D(
      origin: Point2D(x: random.nextUnit() * 511, y: random.nextUnit() * 511),
      size: Size2D(width: 1, height: 1))
  }
  let centres = (0..<sizes.pickViews).map { _ in
    middles[Int(random.next() % UInt64(middles.count))]
  }
  // The first pick of a view reads its traffic (later ones reuse it, as taps on a still
  // map do), so each view's first pick is part of the figures.
  let hits = await measureLatencies(
    "map.pick", count: points.count, unit: "picks/s", report: report
  ) { i in
    if i % picksPerView == 0 {
      view.camera.lookAt(
        point: centres[i / picksPerView], zoom: MapMeasure(kind: .zoomLevel, value: 15))
    }
    return await view.pickMapContent(inside: points[i]).trafficIncidents.count
  }
  report(
    Measurement(
      name: "map.pick.hits", value: Double(hits), unit: "incidents", n: points.count,
      flatbushMilliseconds: nil))
  return sink &+ hits
}

/// Fisher–Yates with the benchmark's generator, so that runs draw the same tiles.
private func shuffle<T>(_ items: inout [T], _ random: inout SplitMix64) {
  guard items.count > 1 else { return }
  for i in stride(from: items.count - 1, to: 0, by: -1) {
    items.swapAt(i, Int(random.next() % UInt64(i + 1)))
  }
}
