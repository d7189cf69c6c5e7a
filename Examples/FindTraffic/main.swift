// Runs the three samples of HERE's "Find Traffic" guide against an embedded engine.
import Traffic

let engine = try sampleEngine()
let sachsendamm = try GeoCoordinates(latitude: 52.4833, longitude: 13.3600)
print("== Incidents within 1 km of Sachsendamm")
_ = try await queryIncidentsInCircle(engine, around: sachsendamm)
print("== The nearest incident")
_ = try await nearestIncident(engine, to: sachsendamm)
print("== Look up by original id, in German")
_ = await lookupIncidentInGerman(engine, originalId: "sachsendamm")
