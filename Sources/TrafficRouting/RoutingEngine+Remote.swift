import Codec
import Dispatch
import Foundation
import Geo
import Roads
import Synchronization
import Traffic

/// Routes of a remote engine: asked of its server as HERE Routing v8 (`V8RouteQuery`), the
/// answer read back by `V8RouteWire`.
extension RoutingEngine {
  /// The routes of the remote engine's server (`GET /v8/routes`).
  func remoteRoutes(
    from origin: Waypoint, to destination: Waypoint, via: [Waypoint], options: RouteOptions
  ) async throws(RoutingError) -> [Route] {
    let query = V8RouteQuery(
      origin: origin, destination: destination, via: via, options: options,
      returning: [.summary, .polyline, .incidents, .turnByTurnActions],
      spans: [.length, .duration, .dynamicSpeedInfo, .roadNames, .speedLimit, .functionalClass])
    let parameters = try query.parameters()
    let answer: (status: Int, body: Data)?
    do {
      answer = try await trafficEngine.remoteGet(path: "/v8/routes", parameters: parameters)
    } catch {
      throw .unreachable(error)
    }
    guard let answer else { throw .noRoadNetwork }
    guard answer.status == 200 else {
      let cause =
        (try? JSONParser.parse(answer.body))?["cause"]?.string
        ?? String(decoding: answer.body.prefix(200), as: UTF8.self)
      throw .remote("the routing server answered \(answer.status): \(cause)")
    }
    return try V8RouteWire.decode(answer.body)
  }

  /// The matrix of the remote engine's server (`POST /v8/matrix?async=false`, region
  /// `world`, travel times and distances). A waypoint the server could not match throws as
  /// an embedded engine does (the first one, counting the origins, then the destinations).
  func remoteMatrix(
    origins: [Waypoint], destinations: [Waypoint], options: RouteOptions
  ) async throws(RoutingError) -> RouteMatrix {
    for (index, waypoint) in (origins + destinations).enumerated()
    where waypoint.headingInDegrees != nil {
      throw .invalidOption(
        "a matrix server takes no headings (waypoint \(index) has one); leave them out")
    }
    let rows = origins.map(\.coordinates)
    let columns = destinations.map(\.coordinates)
    let response = try await askMatrix(origins: rows, destinations: columns, options: options)
    guard response.travelTimes != nil, response.distances != nil else {
      throw .remote("the routing server's matrix has no travelTimes or distances")
    }
    if let index = try await firstUnmatched(
      response, origins: rows, destinations: columns, options: options)
    {
      let place = index < rows.count ? rows[index] : columns[index - rows.count]
      throw .placeOffNetwork(index: index, place, radiusInMeters: snappingRadiusInMeters)
    }
    return response.routeMatrix(origins: rows, destinations: columns)
  }

  /// The server's answer to a matrix request, of the size asked for.
  private func askMatrix(
    origins: [GeoCoordinates], destinations: [GeoCoordinates], options: RouteOptions
  ) async throws(RoutingError) -> V8MatrixWire.Response {
    let request = V8MatrixWire.Request(
      origins: origins, destinations: destinations, region: .world, options: options,
      attributes: [.travelTimes, .distances])
    let body = try request.encoded()
    let answer: (status: Int, body: Data)?
    do {
      answer = try await trafficEngine.remotePost(
        path: "/v8/matrix", parameters: [("async", "false")], json: body)
    } catch {
      throw .unreachable(error)
    }
    guard let answer else { throw .noRoadNetwork }
    guard answer.status == 200 else {
      if answer.status == 404 { throw .noRoadNetwork }
      let cause =
        (try? JSONParser.parse(answer.body))?["cause"]?.string
        ?? String(decoding: answer.body.prefix(200), as: UTF8.self)
      throw .remote("the routing server answered \(answer.status): \(cause)")
    }
    let response: V8MatrixWire.Response
    do { response = try V8MatrixWire.Response(json: answer.body) } catch {
      throw .remote("the routing server's matrix cannot be read: \(error)")
    }
    guard response.numOrigins == origins.count, response.numDestinations == destinations.count
    else {
      throw .remote(
        "the routing server answered a \(response.numOrigins) × \(response.numDestinations) "
          + "matrix for \(origins.count) × \(destinations.count) waypoints")
    }
    return response
  }

  /// The first waypoint the server could not match, or `nil`. A cell's code 2 (or 4,
  /// outside the region) says that its origin or its destination is unmatched: a row of
  /// them is an unmatched origin once some destination is known to match (a cell of its
  /// column is neither), and the other way round; when every cell is one, a second
  /// question (the first origin to each origin) tells them apart.
  private func firstUnmatched(
    _ response: V8MatrixWire.Response, origins: [GeoCoordinates],
    destinations: [GeoCoordinates], options: RouteOptions
  ) async throws(RoutingError) -> Int? {
    let codes: Set = [
      V8MatrixWire.CellError.unmatched.rawValue, V8MatrixWire.CellError.outsideRegion.rawValue,
    ]
    guard response.errorCodes?.contains(where: codes.contains) == true else { return nil }
    let rows = origins.indices.filter { row in
      destinations.indices.allSatisfy { codes.contains(response.errorCode(row: row, column: $0)) }
    }
    let columns = destinations.indices.filter { column in
      origins.indices.allSatisfy { codes.contains(response.errorCode(row: $0, column: column)) }
    }
    if columns.count < destinations.count, let row = rows.first { return row }
    if rows.count < origins.count, let column = columns.first { return origins.count + column }
    // Every cell is unmatched: every origin or every destination is unmatched, or both.
    let probe = try await askMatrix(
      origins: [origins[0]], destinations: origins, options: options)
    if codes.contains(probe.errorCode(row: 0, column: 0)) { return 0 }
    if let row = origins.indices.first(where: {
      codes.contains(probe.errorCode(row: 0, column: $0))
    }) {
      return row
    }
    return origins.count
  }
}
