import Traffic

/// The guide's "Query incidents": every incident within 1 km of a place, with its
/// description printed in English.
///
/// - Returns: The descriptions printed, in order.
func queryIncidentsInCircle(
  _ trafficEngine: TrafficEngine, around geoCoordinates: GeoCoordinates,
  print: (String) -> Void = { Swift.print($0) }
) async throws -> [String] {
  let geoCircle = try GeoCircle(center: geoCoordinates, radiusInMeters: 1000)
  var trafficIncidentsQueryOptions = TrafficIncidentsQueryOptions()
  trafficIncidentsQueryOptions.languageCode = .enUS
  let trafficIncidents = try await trafficEngine.queryForIncidents(
    inside: geoCircle, queryOptions: trafficIncidentsQueryOptions)
  var printed: [String] = []
  for trafficIncident in trafficIncidents {
    print(trafficIncident.description.text)
    printed.append(trafficIncident.description.text)
  }
  return printed
}
