import Foundation
import Synchronization
import Traffic
import TrafficFeeds

/// Takes pushed feed documents (`POST /v1/feeds/{format}`) into the engine and keeps the
/// status of each pushing source (`GET /v1/feeds`).
final class FeedIngest: Sendable {
  /// The status of one source, keyed by format and source name.
  struct Status: Sendable {
    var format: FeedFormat
    var source: String
    /// The order the source first pushed in (0 for the first one).
    var arrival = 0
    var pushes = 0
    var lastPushTime: Date?
    var lastPublicationTime: Date?
    var lastIncidentCount = 0
    var lastProblemCount = 0
    var lastError: String?
    var lastErrorTime: Date?
  }

  /// What one push did.
  struct Outcome: Sendable {
    /// The document and the source its incidents were ingested under
    /// (`FeedDocument.sourceName`).
    var application: FeedApplication
    var report = IngestReport()
  }

  private let engine: TrafficEngine
  private let statuses = Mutex([String: Status]())
  /// The most records (incidents and flow observations) one pushed document may hold.
  let maximumRecords: Int
  /// The most incidents one source may hold through pushes.
  let maximumHeldBySource: Int

  init(engine: TrafficEngine, maximumRecords: Int = 100_000, maximumHeldBySource: Int = 500_000) {
    self.engine = engine
    self.maximumRecords = maximumRecords
    self.maximumHeldBySource = maximumHeldBySource
  }

  /// Decodes one document and applies its incidents as one batch.
  ///
  /// Ingestion is `FeedApplication`, as for imports and polls: new versions only for
  /// changed incidents, merging with other feeds' reports, and, for a full refresh, ending
  /// the source's incidents the document no longer carries.
  /// - Throws: `TrafficQueryError.badRequest` naming the problem when the document cannot
  ///   be read; `.httpError` 413 beyond `maximumRecords` or when the source would hold more
  ///   than `maximumHeldBySource` incidents, or the refusal of `authorize`;
  ///   `.internalError` when the store fails.
  /// - Parameters:
  ///   - givenSource: The source name the client gave (`?source=`); else the document's
  ///     own (`FeedDocument.sourceName`), else `options.sourceName`.
  ///   - isFullRefresh: Whether the document is the source's whole picture (its incidents
  ///     the document no longer carries end); a push is a set of changes unless the client
  ///     says so (`?fullRefresh=true`), since the same source's polls and imports carry the
  ///     whole picture and a push of a few changes must not end the rest.
  ///   - recordingEach: Whether the report lists each record's outcome (`?records=true`).
  ///   - authorize: Checks that the caller may write the source the document goes under
  ///     (throws the refusal), before anything is stored.
  func push(
    _ data: Data, format: FeedFormat, options: FeedOptions, givenSource: String?,
    isFullRefresh: Bool, recordingEach: Bool = false, now: Date,
    authorize: (String) throws(TrafficQueryError) -> Void = { _ in }
  ) throws(TrafficQueryError) -> Outcome {
    // A source the client names is checked before the document is read.
    if let givenSource { try authorize(givenSource) }
    var application: FeedApplication
    do {
      application = try FeedApplication(
        decoding: .data(data), format: format, options: options, given: givenSource,
        isFullRefresh: isFullRefresh)
    } catch {
      recordFailure(
        error.description, format: format, source: givenSource ?? options.sourceName, at: now)
      throw .badRequest("the \(format) document cannot be read: \(error)")
    }
    let source = application.source
    let records = application.recordCount
    guard records <= maximumRecords else {
      recordFailure(
        "\(records) records, more than \(maximumRecords)", format: format, source: source, at: now)
      throw .httpError(
        status: 413,
        "the document holds \(records) records, more than the \(maximumRecords) one push may"
          + " hold; split it into several pushes")
    }
    // A source the document names itself is checked now that it is known.
    if givenSource == nil { try authorize(source) }
    let report: IngestReport
    do {
      report = try application.apply(
        to: engine, recordingEach: recordingEach, maximumHeldByFeed: maximumHeldBySource)
    } catch .limitExceeded(let detail) {
      recordFailure(detail, format: format, source: source, at: now)
      throw .httpError(status: 413, detail)
    } catch {
      recordFailure(error.description, format: format, source: source, at: now)
      if let unavailable = TrafficQueryError.storeUnavailable(error, engine: engine) {
        throw unavailable
      }
      throw .internalError("the incidents could not be stored: \(error)")
    }
    let document = application.document
    updateStatus(format: format, source: source) { status in
      status.lastPushTime = now
      status.lastPublicationTime = document.publicationTime
      status.lastIncidentCount = application.incidentCount
      status.lastProblemCount = document.problems.count
      status.lastError = document.problems.first?.description
    }
    return Outcome(application: application, report: report)
  }

  /// The most sources `GET /v1/feeds` lists that never pushed successfully: beyond, the
  /// one whose last failure is oldest is forgotten (failed pushes under ever new names
  /// grew the list, all held in memory, without bound).
  static let maximumFailedSources = 1_000

  /// Counts a push of a source that failed, with the reason.
  private func recordFailure(_ reason: String, format: FeedFormat, source: String, at now: Date) {
    updateStatus(format: format, source: source) { status in
      status.lastError = reason
      status.lastErrorTime = now
    }
    statuses.withLock { statuses in
      let failed = statuses.filter { $0.value.lastPushTime == nil }
      guard failed.count > Self.maximumFailedSources,
        let oldest = failed.min(by: {
          ($0.value.lastErrorTime ?? .distantPast, $0.value.arrival)
            < ($1.value.lastErrorTime ?? .distantPast, $1.value.arrival)
        })
      else { return }
      statuses[oldest.key] = nil
    }
  }

  /// Counts a push of a source and lets `change` record what it did.
  private func updateStatus(
    format: FeedFormat, source: String, _ change: (inout Status) -> Void
  ) {
    let key = "\(format.rawValue)\u{0}\(source)"
    statuses.withLock { statuses in
      var status =
        statuses[key] ?? Status(format: format, source: source, arrival: statuses.count)
      status.pushes += 1
      change(&status)
      statuses[key] = status
    }
  }

  /// The status of every source that pushed, ordered by format and source.
  func statusList() -> [Status] {
    statuses.withLock { Array($0.values) }.sorted {
      ($0.format.rawValue, $0.source) < ($1.format.rawValue, $1.source)
    }
  }
}
