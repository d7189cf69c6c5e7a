import Traffic

/// The guide's "nearest incident": the incident closest to a place, measured to its road's
/// segments (the guide's own sample measures to vertices only, which picks the wrong one
/// next to a long straight road).
///
/// - Returns: The nearest incident's original id and distance in meters, if any.
func nearestIncident(
  _ trafficEngine: TrafficEngine, to geoCoordinates: GeoCoordinates,
  print: (String) -> Void = { Swift.print($0) }
) async throws -> (originalId: String, distanceInMeters: Double)? {
  guard let nearest = try await trafficEngine.nearestIncident(to: geoCoordinates, within: 1000)
  else {
    print("No incident within 1 km.")
    return nil
  }
  print(
    "Nearest incident: \(nearest.incident.originalId), "
      + "\(Int(nearest.distanceInMeters.rounded())) m away: \(nearest.incident.summary.text)")
  return (nearest.incident.originalId, nearest.distanceInMeters)
}
