import CSQLite
import Dispatch
import Synchronization
import Traffic

/// Checkpoints a store's write-ahead log on a background thread after each write, so that
/// a write is answered without copying its pages into the database file and syncing it
/// (a fifth of a 1,000-incident push on a large store).
///
/// The checkpoints are passive: they never wait for and never block the store's own
/// connection, and copy what no reader still needs. SQLite's automatic checkpoint on the
/// store's connection stays as a backstop, at `backstopPages`, for when this falls behind.
/// Requests made while one is pending coalesce into it.
final class WALCheckpointer: Sendable {
  /// The write-ahead log size, pages, at which the store's own connection checkpoints
  /// during a commit (SQLite's default is 1,000).
  static let backstopPages = 16_384

  private let path: String
  /// The checkpoints' own connection, opened by the first one (`nil` after it failed to
  /// open: the backstop then does the work).
  private let connection = Mutex<(handle: SQLiteConnection?, failed: Bool)>((nil, false))
  private let isScheduled = Atomic<Bool>(false)
  private let queue = DispatchQueue(label: "traffic.sqlite.checkpoint", qos: .utility)

  /// A checkpointer for the database file at `path` (in WAL mode).
  init(path: String) {
    self.path = path
  }

  /// Asks for a checkpoint soon, on the background thread.
  func schedule() {
    guard !isScheduled.exchange(true, ordering: .acquiringAndReleasing) else { return }
    queue.async { [self] in
      isScheduled.store(false, ordering: .releasing)
      checkpointNow()
    }
  }

  /// Runs `body` while no background checkpoint runs: one running is waited for, and those
  /// asked for meanwhile wait for `body`. (SQLite fails a checkpoint at once, whatever the
  /// busy timeout, while another connection runs one.)
  func pausing<Result>(
    _ body: () throws(TrafficStoreError) -> Result
  ) throws(TrafficStoreError) -> Result {
    try connection.withLock { _ throws(TrafficStoreError) in try body() }
  }

  /// Runs a passive checkpoint on the calling thread.
  func checkpointNow() {
    connection.withLock { connection in
      if connection.handle == nil, !connection.failed {
        // SQLite opens lazily: the first read finds the write-ahead log.
        let opened = try? SQLiteConnection(path: path, readOnly: false)
        connection.handle = (try? opened?.integer("PRAGMA user_version")) != nil ? opened : nil
        connection.failed = connection.handle == nil
      }
      connection.handle?.checkpointPassively()
    }
  }
}
