extension TrafficEngine {
  /// `queryForIncidents(inside:queryOptions:)` with a completion handler, as in the HERE SDK.
  ///
  /// - Parameter completion: Called exactly once, from a background task: with the
  ///   incidents, or with the error (`operationCancelled` after `TaskHandle.cancel()`).
  /// - Returns: A handle to cancel the query.
  @discardableResult
  public func queryForIncidents(
    inside area: some GeoArea,
    queryOptions: TrafficIncidentsQueryOptions = TrafficIncidentsQueryOptions(),
    completion: @escaping @Sendable (TrafficQueryError?, [TrafficIncident]?) -> Void
  ) -> TaskHandle {
    run(completion) { () async throws(TrafficQueryError) in
      try await self.queryForIncidents(inside: area, queryOptions: queryOptions)
    }
  }

  /// `lookupIncident(with:lookupOptions:)` with a completion handler, as in the HERE SDK.
  ///
  /// - Parameter completion: Called exactly once: with the incident or with the error.
  /// - Returns: A handle to cancel the lookup.
  @discardableResult
  public func lookupIncident(
    with originalId: String,
    lookupOptions: TrafficIncidentLookupOptions = TrafficIncidentLookupOptions(),
    completion: @escaping @Sendable (TrafficQueryError?, TrafficIncident?) -> Void
  ) -> TaskHandle {
    run(completion) { () async throws(TrafficQueryError) in
      try await self.lookupIncident(with: originalId, lookupOptions: lookupOptions)
    }
  }

  func run<Result: Sendable>(
    _ completion: @escaping @Sendable (TrafficQueryError?, Result?) -> Void,
    _ work: @escaping @Sendable () async throws(TrafficQueryError) -> Result
  ) -> TaskHandle {
    let handle = TaskHandle(onCancel: { completion(.operationCancelled, nil) })
    handle.attach(
      Task.detached {
        let outcome: Swift.Result<Result, TrafficQueryError>
        do throws(TrafficQueryError) {
          outcome = .success(try await work())
        } catch {
          outcome = .failure(error)
        }
        guard handle.finish() else { return }
        switch outcome {
        case .success(let value): completion(nil, value)
        case .failure(let error): completion(error, nil)
        }
      })
    return handle
  }
}
