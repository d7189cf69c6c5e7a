import Foundation
import Traffic
import TrafficMap

/// The map code of HERE's traffic guide, on a headless `MapView`: show the traffic layers,
/// switch them, tap an incident, look it up, draw its polyline yourself, add your own
/// marker. Each step writes a PNG to `folder`.
///
/// - Returns: The files written, in order, and the description of the tapped incident.
func runMapExample(
  _ sample: SampleTraffic, folder: URL, print: (String) -> Void = { Swift.print($0) }
) async throws -> (files: [URL], tappedDescription: String?) {
  try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  var files: [URL] = []
  let mapView = try MapView(size: Size2D(width: 800, height: 600), engine: sample.engine)
  func save(_ name: String) throws {
    let url = folder.appendingPathComponent(name)
    try mapView.renderImage().write(to: url)
    files.append(url)
    print("wrote \(url.path)")
  }

  // Load a scene, then show traffic flow and incidents (features need a loaded scene).
  mapView.camera.lookAt(
    point: sample.center, zoom: MapMeasure(kind: .zoomLevel, value: sample.zoomLevel))
  try await mapView.mapScene.loadScene(mapScheme: .normalDay)
  try mapView.mapScene.enableFeatures([
    MapFeatures.trafficFlow: MapFeatureModes.trafficFlowWithFreeFlow
  ])
  try mapView.mapScene.enableFeatures([MapFeatures.trafficIncidents: MapFeatureModes.defaultMode])
  try save("1-flow-and-incidents.png")

  // Only congestion: flow without the green of free flow.
  try mapView.mapScene.enableFeatures([
    MapFeatures.trafficFlow: MapFeatureModes.trafficFlowWithoutFreeFlow
  ])
  try save("2-without-free-flow.png")

  // Turn flow off; incidents stay.
  try mapView.mapScene.disableFeatures([MapFeatures.trafficFlow])
  try save("3-incidents-only.png")

  // Tap where the incident's icon is: pick, then look the incident up by its original id —
  // the pick result's description is empty, as in the HERE SDK.
  let incident = try await sample.engine.lookupIncident(with: sample.tappedIncidentId)
  var description: String?
  if let tapPoint = mapView.geoToViewCoordinates(
    geoCoordinates: incident.location.polyline.vertices[0])
  {
    let tap = Rectangle2D(origin: tapPoint, size: Size2D(width: 1, height: 1))
    let result = await mapView.pickMapContent(inside: tap)
    if let picked = result.trafficIncidents.first {
      let found = try await sample.engine.lookupIncident(
        with: picked.originalId, lookupOptions: TrafficIncidentLookupOptions(languageCode: .enUS))
      description = found.description.text
      print("picked \(picked.type) (\(picked.impact)): \(found.description.text)")
      // Draw the incident's polyline yourself, and mark where you tapped.
      mapView.mapScene.addMapPolyline(
        MapPolyline(
          geometry: found.location.polyline, widthInPixels: 10,
          color: MapColor(rgb: 0x7C4DFF, alpha: 0.8), outlineWidthInPixels: 2,
          outlineColor: .white, metadata: found.originalId))
      if let place = mapView.viewToGeoCoordinates(viewCoordinates: tap.center) {
        mapView.mapScene.addMapMarker(
          MapMarker(
            at: place, image: .pin(color: MapColor(rgb: 0x2962FF), heightInPixels: 40),
            anchor: .bottomCenter, metadata: "tap"))
      }
    }
  }
  try save("4-picked-incident.png")

  // Your own markers: the icon of each incident type beside the view's left edge, a legend.
  for (index, type) in [TrafficIncidentType.accident, .roadClosure, .construction, .weather]
    .enumerated()
  {
    if let place = mapView.viewToGeoCoordinates(
      viewCoordinates: Point2D(x: 24, y: 24 + Double(index) * 32))
    {
      mapView.mapScene.addMapMarker(
        MapMarker(at: place, image: .incidentIcon(type), anchor: .center, metadata: "\(type)"))
    }
  }
  try mapView.mapScene.disableFeatures([MapFeatures.trafficIncidents])
  try save("5-own-markers-layers-off.png")
  return (files, description)
}
