import Codec
import Foundation
import Geo
import Traffic
import TrafficRouting

extension TrafficServer {
  /// `POST /v8/matrix?async=false`: HERE Matrix Routing API v8, synchronous, on the engine's
  /// live traffic. The body is read by its codec (`V8MatrixWire.Request`, beside the writer
  /// the remote engine uses); errors come in v8's shape, as those of `/v8/routes`. A
  /// waypoint outside the region or off the network does not fail the request: its row or
  /// column gets error code 4 or 2.
  func matrix(query: QueryParameters, request: HTTPRequest) -> HTTPResponse {
    do throws(V8Failure) {
      try Self.checkMatrixQuery(query)
      let body: V8MatrixWire.Request
      do { body = try V8MatrixWire.Request(json: request.body) } catch {
        throw .malformed(error.description)
      }
      let destinations = body.columns
      let cells = body.origins.count * destinations.count
      // The server's table size (`--max-table-size`, as for OSRM's tables).
      let limit = configuration.maxTableSize * configuration.maxTableSize
      guard cells <= limit else {
        throw .malformed(
          "a matrix of \(body.origins.count) origins × \(destinations.count) destinations has "
            + "\(cells) cells, more than the \(limit) allowed (--max-table-size)")
      }
      let all = body.origins + destinations
      let region = body.region.resolved(for: all)
      let outside = region.outside(all)
      let computed: (matrix: RouteMatrix, unmatched: Set<Int>)
      do throws(RoutingError) {
        computed = try router.matrix(
          origins: body.origins.map { Waypoint($0) },
          destinations: destinations.map { Waypoint($0) },
          options: body.options, maximumCells: limit, excluding: outside)
      } catch {
        throw Self.v8Failure(error)
      }
      let answer = V8MatrixWire.Response(
        computed.matrix, attributes: body.attributes, unmatched: computed.unmatched,
        outside: outside, region: region)
      var response = HTTPResponse.json(answer.encoded())
      response.headers.add("Cache-Control", "no-store")
      return response
    } catch {
      return error.response
    }
  }

  /// The query of `/v8/matrix`: `async=false` (required: only synchronous requests are
  /// served) and `apiKey`; anything else is refused by name.
  private static func checkMatrixQuery(_ query: QueryParameters) throws(V8Failure) {
    for pair in query.pairs where pair.name != "async" && pair.name != "apiKey" {
      throw .malformed(
        "unknown parameter \(QueryParameters.excerpt(pair.name)); /v8/matrix takes async=false")
    }
    let values = query.pairs.filter { $0.name == "async" }.map(\.value)
    guard values.count <= 1 else {
      throw .malformed("async is given more than once; give async=false once")
    }
    switch values.first {
    case "false": return
    case nil:
      throw .malformed(
        "async=false is required: only synchronous matrices are served (v8's default, "
          + "async=true, is not)")
    case let value?:
      throw .malformed(
        "async \(QueryParameters.excerpt(value)) is not served: only synchronous matrices "
          + "(async=false)")
    }
  }

}
