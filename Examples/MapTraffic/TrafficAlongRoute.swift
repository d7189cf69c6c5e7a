import Roads
import Traffic

/// The guide's "traffic along a route": a route between two places of the road network
/// (computed by travel time on the network), then the traffic on it — spans with their jam
/// factors and delays, the incidents on the route, and the total delay.
///
/// - Returns: The traffic on the route, or `nil` when no route of the network leads from one
///   of its first twenty nodes to one of its last fifty.
func trafficAlongRoute(
  _ sample: SampleTraffic, print: (String) -> Void = { Swift.print($0) }
) throws -> TrafficOnRoute? {
  guard let network = sample.engine.roadNetwork else { return nil }
  let graph = RoutingGraph(network: network)
  var found: RoutingGraph.Path?
  search: for start in network.nodes.prefix(20) {
    for target in network.nodes.suffix(50).reversed() {
      if let route = try graph.shortestPath(
        fromNode: start.id, toNode: target.id, metric: .travelTime),
        route.segmentIDs.count > 2
      {
        found = route
        break search
      }
    }
  }
  guard let route = found else { return nil }
  // The route's shape: its segments' geometry, joined.
  var vertices: [GeoCoordinates] = []
  for id in route.segmentIDs {
    for vertex in network.segments[id].geometry.vertices where vertex != vertices.last {
      vertices.append(vertex)
    }
  }
  let traffic = try sample.engine.trafficOnRoute(try GeoPolyline(vertices: vertices))
  print(
    "Route of \(Int(traffic.lengthInMeters)) m: delay \(Int(traffic.totalDelayInSeconds)) s, "
      + "\(traffic.spans.filter { $0.jamFactor >= 4 }.count) congested spans, "
      + "\(traffic.incidents.count) incidents on it")
  for item in traffic.incidents {
    print("  at \(Int(item.offsetInMeters)) m: \(item.incident.type) \(item.incident.originalId)")
  }
  return traffic
}
