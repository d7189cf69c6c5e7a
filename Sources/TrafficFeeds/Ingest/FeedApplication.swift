import Foundation
import Traffic

/// One feed document on its way into an engine: decoded, its source named, then its
/// incidents and flow observations ingested.
///
/// `traffic import`, a push (`POST /v1/feeds/{format}`) and a poll (`FeedPoller`) all take
/// this one path, so that a document does the same whichever way it arrives. Each keeps
/// only what is its own: a push its record limits and authorisation (checked between the
/// two steps, on ``source`` and ``recordCount``), an import its progress and its snapshot
/// built on first read.
///
/// A record the document holds but that could not be read is not a record the source has
/// withdrawn: whatever the format, a full refresh does not end the incident of a skipped
/// record whose id could be read (``FeedError/recordId``), and a document of which no record
/// could be read (some skipped, none decoded) is taken as a set of changes, not as the
/// source's whole picture, so that it ends nothing.
///
/// Two records of one document with the same id cannot both be kept (an id names one
/// incident of its source): the last one is kept, and each earlier one is listed as a
/// skipped record saying so, rather than silently overwritten. A record whose id holds a
/// control character is skipped too.
package struct FeedApplication: Sendable {
  /// The decoded document; ``apply(to:building:recordingEach:maximumHeldByFeed:)`` hands
  /// its incidents over to the engine (they are empty afterwards; ``incidentCount`` keeps
  /// their number).
  package private(set) var document: FeedDocument
  /// The source the incidents are ingested under (``FeedDocument/sourceName(given:origin:)``).
  package let source: String
  /// The number of incidents the document carried.
  package let incidentCount: Int
  /// The source's ids of the records the document holds but that were skipped: still
  /// carried, so a full refresh does not end them.
  package let unreadRecordIds: Set<String>
  /// Whether the document said it was the source's whole picture but none of its records
  /// could be read, so that it is applied as a set of changes (ending nothing).
  package let isRefreshWithheld: Bool
  /// Whether the incidents have been handed to an engine.
  private var isApplied = false

  /// Decodes a document and names its source.
  ///
  /// - Parameters:
  ///   - input: The document.
  ///   - format: Its format.
  ///   - options: The decoder's settings.
  ///   - given: The source name the user gave (`--source`, `?source=`, a named
  ///     `--feed NAME=...`), if any.
  ///   - origin: The source name when neither the user nor the document names one (the
  ///     file, the pushed format, the polled URL); `options.sourceName` by default.
  ///   - isFullRefresh: Whether the document is the source's whole picture, overriding
  ///     what the document says (a push is a set of changes unless the client says so);
  ///     `nil` keeps the document's own.
  /// - Throws: `FeedError` naming the place and the reason when the document cannot be read.
  /// - Complexity: O(n) in the size of the document.
  package init(
    decoding input: FeedInput, format: FeedFormat, options: FeedOptions, given: String?,
    origin: String? = nil, isFullRefresh: Bool? = nil
  ) throws(FeedError) {
    var document = try format.decoder.decode(input, options: options)
    Self.screen(&document, format: format)
    if let isFullRefresh { document.isFullRefresh = isFullRefresh }
    // Records were there, and not one could be read: the source has not said that its
    // incidents ended (a publisher's broken answer, a format change).
    isRefreshWithheld =
      document.isFullRefresh && document.incidents.isEmpty && !document.problems.isEmpty
    if isRefreshWithheld { document.isFullRefresh = false }
    unreadRecordIds = Set(document.problems.compactMap(\.recordId))
    source = document.sourceName(given: given, origin: origin ?? options.sourceName)
    incidentCount = document.incidents.count
    self.document = document
  }

  /// Skips the incidents whose id holds a control character (no published format can
  /// carry a NUL, and a line break or tab in an id breaks logs and keys' grants) and those
  /// of more than ``FeedDocument/maximumVerticesPerIncident`` points (comparing one with
  /// the incidents it may be merged with costs in proportion to both geometries), then keeps
  /// the last of the incidents of each id; each one left out is listed as a problem naming
  /// its id.
  ///
  /// - Complexity: O(n) in the incidents and the lengths of their ids.
  static func screen(_ document: inout FeedDocument, format: FeedFormat) {
    // Control characters (Unicode's Cc: C0, DEL and C1) straight from the UTF-8 bytes: a
    // region's feed has a million ids, and looking up each scalar's category cost seconds.
    func hasControl(_ text: String) -> Bool {
      var afterC2 = false
      for byte in text.utf8 {
        if byte < 0x20 || byte == 0x7F || (afterC2 && byte < 0xA0) { return true }
        afterC2 = byte == 0xC2
      }
      return false
    }
    // Why each incident cannot be taken at all (nil: it can), then which one of each id
    // is kept.
    var refusals: [Int: String] = [:]
    var last: [String: Int] = [:]
    last.reserveCapacity(document.incidents.count)
    for (index, incident) in document.incidents.enumerated() {
      let location = incident.location
      let points = location.additionalPolylines.reduce(location.polyline.vertices.count) {
        $0 + $1.vertices.count
      }
      if hasControl(incident.originalId)
        || (incident.id != incident.originalId && hasControl(incident.id))
      {
        refusals[index] =
          "id \(QueryParameters.excerpt(incident.originalId).debugDescription) holds a "
          + "control character"
      } else if points > FeedDocument.maximumVerticesPerIncident {
        refusals[index] =
          "incident \"\(QueryParameters.excerpt(incident.originalId))\" has \(points) points; "
          + "at most \(FeedDocument.maximumVerticesPerIncident) are taken (simplify its geometry)"
      } else {
        last[incident.originalId] = index
      }
    }
    guard !refusals.isEmpty || last.count < document.incidents.count else { return }
    var kept: [TrafficIncident] = []
    kept.reserveCapacity(last.count)
    for (index, incident) in document.incidents.enumerated() {
      let reason: String
      if let refusal = refusals[index] {
        reason = refusal
      } else if last[incident.originalId] != index {
        reason =
          "id \"\(QueryParameters.excerpt(incident.originalId))\" is given again by a later "
          + "record of the document; the later one is kept"
      } else {
        kept.append(incident)
        continue
      }
      document.problems.append(
        FeedError(format: format, reason: reason, recordId: incident.originalId))
    }
    document.incidents = kept
  }

  /// The records the document holds: incidents and flow observations.
  package var recordCount: Int { incidentCount + document.flowObservations.count }

  /// Ingests the document's incidents under ``source`` as one batch
  /// (`TrafficEngine.ingest(_:from:isFullRefresh:)`), then its flow observations (Waze
  /// jams, HERE v7 flow) when the engine has a road network. A full refresh carries the
  /// skipped records (``unreadRecordIds``) too: their incidents do not end.
  ///
  /// Call it once: the incidents are handed over, not copied, so that the engine holds each
  /// one once.
  /// - Parameters:
  ///   - engine: Where the document goes.
  ///   - building: When the engine builds the snapshot after the write (`.onFirstRead`
  ///     for `traffic import`, which ends after storing).
  ///   - recordingEach: Whether the report lists each record's outcome.
  ///   - maximumHeldByFeed: The most incidents the source may hold afterwards; beyond, the
  ///     document is refused whole with `TrafficStoreError.limitExceeded`.
  /// - Returns: What the ingest changed.
  /// - Throws: `TrafficStoreError`; nothing is stored then (flow observations neither).
  @discardableResult
  package mutating func apply(
    to engine: TrafficEngine, building: TrafficEngine.SnapshotBuild = .now,
    recordingEach: Bool = false, maximumHeldByFeed: Int? = nil
  ) throws(TrafficStoreError) -> IngestReport {
    precondition(!isApplied, "a feed document is applied once")
    isApplied = true
    let incidents = document.incidents
    document.incidents = []
    let report = try engine.ingest(
      incidents, from: source, isFullRefresh: document.isFullRefresh, building: building,
      recordingEach: recordingEach, maximumHeldByFeed: maximumHeldByFeed,
      carrying: unreadRecordIds)
    if !document.flowObservations.isEmpty {
      engine.ingest(observations: document.flowObservations)
    }
    return report
  }
}
