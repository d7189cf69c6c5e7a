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
    var document: FeedDocument
    var report = IngestReport()
  }

  private let engine: TrafficEngine
  private let statuses = Mutex([String: Status]())

  init(engine: TrafficEngine) {
    self.engine = engine
  }

  /// Decodes one document and applies its incidents as one batch.
  ///
  /// Ingestion is `TrafficEngine.ingest`: new versions only for changed incidents, merging
  /// with other feeds' reports, and, for a full refresh, ending the source's incidents the
  /// document no longer carries.
  /// - Throws: `TrafficQueryError.badRequest` naming the problem when the document cannot
  ///   be read; `.internalError` when the store fails.
  func push(
    _ data: Data, format: FeedFormat, options: FeedOptions, now: Date
  ) throws(TrafficQueryError) -> Outcome {
    let key = "\(format.rawValue)\u{0}\(options.sourceName)"
    let document: FeedDocument
    do {
      document = try format.decoder.decode(data, options: options)
    } catch {
      statuses.withLock { statuses in
        var status = statuses[key] ?? Status(format: format, source: options.sourceName)
        status.pushes += 1
        status.lastError = error.description
        status.lastErrorTime = now
        statuses[key] = status
      }
      throw .badRequest("the \(format) document cannot be read: \(error)")
    }
    var outcome = Outcome(document: document)
    do {
      outcome.report = try engine.ingest(
        document.incidents, from: options.sourceName, isFullRefresh: document.isFullRefresh)
      // Jams (Waze) also describe flow, when the engine has a road network.
      if !document.flowObservations.isEmpty {
        _ = engine.ingest(observations: document.flowObservations)
      }
    } catch {
      statuses.withLock { statuses in
        var status = statuses[key] ?? Status(format: format, source: options.sourceName)
        status.pushes += 1
        status.lastError = error.description
        status.lastErrorTime = now
        statuses[key] = status
      }
      throw .internalError("the incidents could not be stored: \(error)")
    }
    statuses.withLock { statuses in
      var status = statuses[key] ?? Status(format: format, source: options.sourceName)
      status.pushes += 1
      status.lastPushTime = now
      status.lastPublicationTime = document.publicationTime
      status.lastIncidentCount = document.incidents.count
      status.lastProblemCount = document.problems.count
      status.lastError = document.problems.first?.description
      statuses[key] = status
    }
    return outcome
  }

  /// The status of every source that pushed, ordered by format and source.
  func statusList() -> [Status] {
    statuses.withLock { Array($0.values) }.sorted {
      ($0.format.rawValue, $0.source) < ($1.format.rawValue, $1.source)
    }
  }
}
