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
    /// The original ids the source's last full refresh held, so that the next full refresh
    /// can remove those it no longer carries.
    var originalIds: Set<String> = []
  }

  /// What one push did.
  struct Outcome: Sendable {
    var document: FeedDocument
    var added = 0
    var updated = 0
    var removed = 0
  }

  private let engine: TrafficEngine
  private let statuses = Mutex([String: Status]())
  /// Serialises pushes, so that the bookkeeping of full refreshes matches what was applied.
  private let pushLock = Mutex(())

  init(engine: TrafficEngine) {
    self.engine = engine
  }

  /// The decoder of each format.
  static func decoder(for format: FeedFormat) -> any FeedDecoder.Type {
    switch format {
    case .datex2: return DATEXIIDecoder.self
    case .wzdx: return WZDxDecoder.self
    case .open511: return Open511Decoder.self
    case .waze: return WazeDecoder.self
    case .hereV7: return HEREv7Decoder.self
    case .tomtom: return TomTomDecoder.self
    }
  }

  /// Decodes one document and applies its incidents as one batch.
  ///
  /// When the document is a full refresh, incidents the same source pushed before and no
  /// longer carries are removed in the same batch.
  /// - Throws: `TrafficQueryError.badRequest` naming the problem when the document cannot
  ///   be read; `.internalError` when the store fails.
  func push(
    _ data: Data, format: FeedFormat, options: FeedOptions, now: Date
  ) throws(TrafficQueryError) -> Outcome {
    let key = "\(format.rawValue)\u{0}\(options.sourceName)"
    let document: FeedDocument
    do {
      document = try Self.decoder(for: format).decode(data, options: options)
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
    return try pushLock.withLock { _ throws(TrafficQueryError) -> Outcome in
      let previous = statuses.withLock { $0[key]?.originalIds } ?? []
      let current = Set(document.incidents.map(\.originalId))
      let deletions = document.isFullRefresh ? Array(previous.subtracting(current)).sorted() : []
      var outcome = Outcome(document: document)
      do throws(TrafficStoreError) {
        let changes = try engine.apply(
          IncidentBatch(upserts: document.incidents, deletions: deletions))
        for change in changes {
          switch change.kind {
          case .added: outcome.added += 1
          case .updated: outcome.updated += 1
          case .removed: outcome.removed += 1
          }
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
        if document.isFullRefresh {
          status.originalIds = current
        } else {
          status.originalIds.formUnion(current)
        }
        statuses[key] = status
      }
      return outcome
    }
  }

  /// The status of every source that pushed, ordered by format and source.
  func statusList() -> [Status] {
    statuses.withLock { Array($0.values) }.sorted {
      ($0.format.rawValue, $0.source) < ($1.format.rawValue, $1.source)
    }
  }
}
