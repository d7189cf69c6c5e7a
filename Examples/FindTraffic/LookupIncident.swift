import Traffic

/// The guide's "Look up an incident": fetch an incident by its original id, with texts in
/// German, using the completion-handler form of the HERE SDK.
///
/// - Returns: The German description, or the error's name.
func lookupIncidentInGerman(
  _ trafficEngine: TrafficEngine, originalId: String,
  print: @escaping @Sendable (String) -> Void = { Swift.print($0) }
) async -> String {
  await withCheckedContinuation { continuation in
    let trafficIncidentLookupOptions = TrafficIncidentLookupOptions(languageCode: .deDE)
    trafficEngine.lookupIncident(with: originalId, lookupOptions: trafficIncidentLookupOptions) {
      trafficQueryError, trafficIncident in
      if let trafficQueryError {
        print("Lookup failed: \(trafficQueryError)")
        continuation.resume(returning: trafficQueryError.name)
        return
      }
      let text = trafficIncident?.description.text ?? ""
      print("Fetched incident: \(text)")
      continuation.resume(returning: text)
    }
  }
}
