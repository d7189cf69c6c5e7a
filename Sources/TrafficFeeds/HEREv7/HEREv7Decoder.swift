import Codec
import Foundation
import Traffic

/// Reads HERE Traffic API v7 incidents responses (`GET /v7/incidents`) and lookup answers
/// (`GET /v7/incidents/{id}`), with the `Traffic` module's wire codec (`V7IncidentWire`).
///
/// The format is the model's own, so the mapping is one to one:
///
/// | v7 | model |
/// |---|---|
/// | `type` (`accident` ... `other`) | the `TrafficIncidentType` of that name; absent or unknown names: `.unknown` |
/// | `criticality` `critical` / `major` / `minor` / `lowImpact` | `.critical` / `.major` / `.minor` / `.low`; absent: `.unknown` |
/// | `id`, `originalId`, `parentId` | the same |
/// | `startTime`, `endTime`, `entryTime` (RFC 3339) | the same |
/// | `roadClosed`, `codes`, `junctionTraversability`, `vehicleRestrictions` | the same |
/// | `description` | `description` and the one source text |
/// | `location.shape.links` | the polylines (consecutive links joined) |
/// | `location.olr`, `location.tmc` (+ `additionalTmc`) | `TrafficLocation.openLR`, `.tmc` |
///
/// `sourceUpdated` becomes the document's publication time. A v7 response is a full
/// picture of its area, so documents are full refreshes. A result without a shape is placed
/// by its `olr` (decoded with `OpenLR`, its reference points joined); one with neither
/// (requested with `locationReferencing=none` or `tmc` only) is skipped with a problem.
public enum HEREv7Decoder: FeedDecoder {
  /// `.hereV7`.
  public static let format = FeedFormat.hereV7

  /// Whether the text looks like a v7 incidents response: JSON whose `results` items carry
  /// `incidentDetails`, or a single lookup result.
  ///
  /// - Complexity: O(n) byte search, no parsing.
  public static func recognizes(_ data: Data) -> Bool {
    guard
      let first = data.first(where: { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }),
      first == UInt8(ascii: "{")
    else { return false }
    // A response with results has "incidentDetails"; an empty one still has v7's pair of
    // top-level members.
    return data.range(of: Data("\"incidentDetails\"".utf8)) != nil
      || (data.range(of: Data("\"sourceUpdated\"".utf8)) != nil
        && data.range(of: Data("\"results\"".utf8)) != nil)
  }

  /// Decodes a v7 incidents response or lookup answer.
  ///
  /// - Parameters:
  ///   - data: UTF-8 JSON text.
  ///   - options: `defaultLanguage` is used for texts without a language (else en-US).
  /// - Returns: The incidents; unreadable results are listed in `problems` with their path.
  /// - Throws: `FeedError` when the text is not JSON or not a v7 response.
  /// - Complexity: O(n) in the size of `data`.
  public static func decode(
    _ input: FeedInput, options: FeedOptions
  ) throws(FeedError) -> FeedDocument {
    let language = options.defaultLanguage ?? .enUS
    var document = FeedDocument(isFullRefresh: true)
    let root = try JSONFeed.read(input, format: format, streaming: ["results"]) {
      _, index, item in
      do throws(JSONFieldError) {
        document.incidents.append(
          try V7IncidentWire.decodeIncident(
            item, at: "results[\(index)]", defaultLanguage: language))
      } catch {
        let details = item["incidentDetails"]
        let id = details?["originalId"]?.string ?? details?["id"]?.string
        document.problems.append(
          FeedError(format: format, location: error.path, reason: error.reason, recordId: id))
      }
    }
    if root["incidentDetails"] != nil {
      // A lookup answer: the root is the one result.
      do throws(JSONFieldError) {
        document.incidents = [
          try V7IncidentWire.decodeIncident(root, at: "$", defaultLanguage: language)
        ]
      } catch {
        throw FeedError(format: format, location: error.path, reason: error.reason)
      }
      return document
    }
    do throws(V7WireError) {
      document.publicationTime = try V7Envelope.read(root).sourceUpdated
    } catch {
      throw FeedError(format: format, location: error.location, reason: error.reason)
    }
    return document
  }
}
