import Codec
import Foundation

/// The envelope every HERE v7 response shares, `{"sourceUpdated": ..., "results": [...]}`,
/// read and written once for the incident and the flow codecs (and the v7 feed decoder).
package enum V7Envelope {
  /// The update time and the result items of a response object.
  ///
  /// - Throws: `V7WireError` for a root that is not an object, a `sourceUpdated` that is not
  ///   an RFC 3339 date-time, or `results` missing or not an array.
  package static func read(
    _ root: JSONValue
  ) throws(V7WireError) -> (sourceUpdated: Date?, items: [JSONValue]) {
    let sourceUpdated = try self.sourceUpdated(of: root)
    guard let results = root["results"] else {
      throw V7WireError(location: "$", reason: "missing member \"results\"")
    }
    guard let items = results.array else {
      throw V7WireError(
        location: "results", reason: "expected an array, found \(results.kindName)")
    }
    return (sourceUpdated, items)
  }

  /// The `sourceUpdated` of a response object (`nil` when absent or `null`), which v7's
  /// answers and this project's route-traffic answer share.
  ///
  /// - Throws: `V7WireError` for a root that is not an object, or a `sourceUpdated` that is
  ///   not an RFC 3339 date-time.
  package static func sourceUpdated(of root: JSONValue) throws(V7WireError) -> Date? {
    guard root.object != nil else {
      throw V7WireError(location: "$", reason: "expected an object, found \(root.kindName)")
    }
    guard let updated = root["sourceUpdated"], !updated.isNull else { return nil }
    guard let text = updated.string, let date = RFC3339.parse(text) else {
      throw V7WireError(location: "sourceUpdated", reason: "expected an RFC 3339 date-time")
    }
    return date
  }

  /// Writes the envelope around `results`, each written by `writeResult`.
  ///
  /// - Parameters:
  ///   - results: The results, in the order to write them.
  ///   - sourceUpdated: When the data was last updated; `nil` writes `null`.
  ///   - capacity: The bytes to reserve.
  ///   - writeResult: Writes one result (a JSON object).
  /// - Returns: UTF-8 JSON text.
  /// - Complexity: O(n) calls of `writeResult`.
  static func write<Results: Collection>(
    _ results: Results, sourceUpdated: Date?, capacity: Int,
    _ writeResult: (Results.Element, inout JSONWriter) -> Void
  ) -> Data {
    var writer = JSONWriter(capacity: capacity)
    writeHead(sourceUpdated: sourceUpdated, to: &writer)
    for result in results {
      writeResult(result, &writer)
    }
    writer.endArray()
    writer.endObject()
    return Data(writer.bytes)
  }

  /// Writes the envelope up to the opening `[` of `results`; ``tail`` closes it.
  static func writeHead(sourceUpdated: Date?, to writer: inout JSONWriter) {
    writer.beginObject()
    writer.member("sourceUpdated", sourceUpdated)
    writer.key("results")
    writer.beginArray()
  }

  /// The text that closes the envelope after the last result.
  static let tail: StaticString = "]}"

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
