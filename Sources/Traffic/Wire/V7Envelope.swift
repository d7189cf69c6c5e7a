import Foundation

/// The envelope every HERE v7 response shares, `{"sourceUpdated": ..., "results": [...]}`,
/// read once for the incident and the flow decoders.
package enum V7Envelope {
  /// The update time and the result items of a response object.
  ///
  /// - Throws: `V7WireError` for a root that is not an object, a `sourceUpdated` that is not
  ///   an RFC 3339 date-time, or `results` missing or not an array.
  package static func read(
    _ root: JSONValue
  ) throws(V7WireError) -> (sourceUpdated: Date?, items: [JSONValue]) {
    guard root.object != nil else {
      throw V7WireError(location: "$", reason: "expected an object, found \(root.kindName)")
    }
    var sourceUpdated: Date?
    if let updated = root["sourceUpdated"], !updated.isNull {
      guard let text = updated.string, let date = RFC3339.parse(text) else {
        throw V7WireError(location: "sourceUpdated", reason: "expected an RFC 3339 date-time")
      }
      sourceUpdated = date
    }
    guard let results = root["results"] else {
      throw V7WireError(location: "$", reason: "missing member \"results\"")
    }
    guard let items = results.array else {
      throw V7WireError(
        location: "results", reason: "expected an array, found \(results.kindName)")
    }
    return (sourceUpdated, items)
  }

  /// Decodes every result with `decode`; unreadable ones are left out and listed with their
  /// path, so one broken result never costs the rest.
  ///
  /// - Complexity: O(n) calls of `decode`.
  static func decodeEach<Result>(
    _ items: [JSONValue], _ decode: (JSONValue, String) throws(JSONFieldError) -> Result
  ) -> (results: [Result], problems: [V7WireError]) {
    var results: [Result] = []
    var problems: [V7WireError] = []
    results.reserveCapacity(items.count)
    for (index, item) in items.enumerated() {
      do {
        results.append(try decode(item, "results[\(index)]"))
      } catch {
        problems.append(V7WireError(location: error.path, reason: error.reason))
      }
    }
    return (results, problems)
  }
}
