import Codec
import Foundation
import Synchronization
import Traffic

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Polls feeds over HTTP and ingests what they publish: one independent loop per feed, so a
/// broken or slow feed never holds up the others.
///
/// Each fetch is a conditional GET (`If-None-Match` with the last `ETag`,
/// `If-Modified-Since` with the last `Last-Modified`), bounded by a timeout; a `304` changes
/// nothing. A document is decoded with its feed's decoder and ingested as imports and
/// pushes are (`FeedApplication`). After a failure the next attempt waits
/// twice as long as the last (from the feed's interval up to one hour), and the first success
/// returns to the interval.
///
/// What the poller knows about each feed (the validators, the last success, the counts)
/// lives in a `FeedStateStore`, by default the engine's store, so that a restarted poller
/// asks conditionally on its first request and reports what it knew. The validators of a
/// document are saved only after its incidents were stored: a process that dies in between
/// fetches the document again rather than losing it. A state saved for another URL than
/// the feed's is ignored.
public final class FeedPoller: Sendable {
  /// One feed to poll.
  public struct Feed: Sendable {
    /// The feed's name: its status and saved state go by it; its incidents are ingested
    /// under it when it was given, else under the source the document names itself
    /// (`FeedDocument.sourceName`), else under it.
    public var name: String
    /// Whether `name` was given (rather than made from the URL).
    public var isNamed: Bool
    /// The format, or `nil` to recognise each document.
    public var format: FeedFormat?
    /// Where to fetch it.
    public var url: URL
    /// Seconds between fetches while it works.
    public var intervalInSeconds: Double
    /// Decoder settings (axis order, language, country).
    public var options: FeedOptions

    /// Creates a feed; the name defaults to the URL's host and path.
    public init(
      format: FeedFormat?, url: URL, intervalInSeconds: Double = 60, name: String? = nil,
      options: FeedOptions? = nil
    ) {
      let defaultName = name ?? "\(url.host ?? "feed")\(url.path)"
      self.name = defaultName
      isNamed = name != nil
      self.format = format
      self.url = url
      self.intervalInSeconds = intervalInSeconds
      self.options = options ?? FeedOptions(sourceName: defaultName)
    }

    /// The URL for logs, errors and status pages: without user, password or query, where
    /// feed keys often travel.
    public var displayURL: String {
      guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
        return url.absoluteString
      }
      components.user = nil
      components.password = nil
      if components.query != nil { components.query = "…" }
      return components.string ?? url.absoluteString
    }

    /// The longest interval between fetches, seconds: a week.
    public static let maximumIntervalInSeconds = 604_800.0

    /// Parses the command line's `[NAME=]FORMAT:URL[@SECONDS]` (`auto` for the format
    /// recognises each document; NAME names the source, as `traffic import --source`).
    ///
    /// - Throws: `FeedError` naming what is wrong.
    public static func parse(_ text: String) throws(FeedError) -> Feed {
      var text = text
      var name: String?
      if let equals = text.firstIndex(of: "="),
        !text[..<equals].contains(":"), !text[..<equals].contains("/")
      {
        let given = String(text[..<equals])
        guard FeedDocument.isValidSourceName(given) else {
          throw FeedError(
            format: .hereV7,
            reason: "the feed name before '=' must have \(FeedDocument.sourceNameRule)")
        }
        name = given
        text = String(text[text.index(after: equals)...])
      }
      guard let colon = text.firstIndex(of: ":") else {
        throw FeedError(format: .hereV7, reason: "expected FORMAT:URL[@SECONDS], got '\(text)'")
      }
      let formatName = String(text[..<colon])
      var rest = String(text[text.index(after: colon)...])
      var interval = 60.0
      if let at = rest.lastIndex(of: "@"), let seconds = Double(rest[rest.index(after: at)...]) {
        guard seconds.isFinite, seconds >= 1, seconds <= maximumIntervalInSeconds else {
          throw FeedError(
            format: .hereV7,
            reason: "the interval \(rest[rest.index(after: at)...]) s must be 1 ... "
              + "\(Int(maximumIntervalInSeconds)) (a week)")
        }
        interval = seconds
        rest = String(rest[..<at])
      }
      let format: FeedFormat?
      if formatName == "auto" {
        format = nil
      } else if let named = FeedFormat(rawValue: formatName) {
        format = named
      } else {
        throw FeedError(
          format: .hereV7,
          reason: "unknown feed format '\(formatName)'; use auto or "
            + FeedFormat.allCases.map(\.rawValue).joined(separator: ", "))
      }
      guard let url = URL(string: rest), let scheme = url.scheme?.lowercased(),
        ["http", "https", "file"].contains(scheme),
        scheme == "file" || !(url.host ?? "").isEmpty
      else {
        throw FeedError(
          format: format ?? .hereV7,
          reason: "'\(rest)' is not an http(s) URL with a host, nor a file URL")
      }
      return Feed(format: format, url: url, intervalInSeconds: interval, name: name)
    }
  }

  /// What is known about one feed (the `GET /v1/feeds` answer).
  public struct Status: Sendable {
    /// The feed.
    public var feed: Feed
    /// When the last fetch started.
    public var lastFetch: Date?
    /// When a fetch last succeeded (a document ingested, or `304`).
    public var lastSuccess: Date?
    /// What went wrong last, when the last fetch failed.
    public var lastError: String?
    /// Failures since the last success.
    public var consecutiveFailures = 0
    /// Fetches so far (across restarts, when the state is kept in a store).
    public var fetches = 0
    /// Fetches that failed so far.
    public var failures = 0
    /// Incidents in the last document ingested.
    public var incidentCount = 0
    /// Records skipped in the last document.
    public var problemCount = 0
    /// What the last ingest changed.
    public var lastReport: IngestReport?
    /// The source name the last document was ingested under (its publisher's, unless the
    /// feed is named).
    public var source: String?
    /// The `ETag` of the last document ingested.
    public var etag: String?
    /// The `Last-Modified` of the last document ingested.
    public var lastModified: String?
    /// When the next fetch is due.
    public var nextFetch: Date?
  }

  private let engine: TrafficEngine
  private let stateStore: (any FeedStateStore)?
  private let configuration: URLSessionConfiguration
  private let timeoutInSeconds: Double
  private let statuses: Mutex<[String: Status]>
  private let tasks = Mutex<[Task<Void, Never>]>([])
  /// Largest document accepted, bytes.
  public let maximumDocumentBytes: Int

  /// Creates a poller with the feeds' saved states; nothing is fetched until `start()`.
  ///
  /// A feed whose saved state cannot be read starts without one, that error as its
  /// `lastError`.
  /// - Parameters:
  ///   - feeds: The feeds (names must be unique; a later one of the same name replaces).
  ///   - engine: Where incidents go.
  ///   - stateStore: Where the feeds' states are kept between runs; `nil` for the engine's
  ///     store when it is a `FeedStateStore` (every store of this package is).
  ///   - timeoutInSeconds: The longest one fetch may take.
  ///   - maximumDocumentBytes: Larger documents are refused.
  public init(
    feeds: [Feed], engine: TrafficEngine, stateStore: (any FeedStateStore)? = nil,
    timeoutInSeconds: Double = 30, maximumDocumentBytes: Int = 100 << 20
  ) {
    self.engine = engine
    let stateStore = stateStore ?? (engine.store as? any FeedStateStore)
    self.stateStore = stateStore
    self.maximumDocumentBytes = maximumDocumentBytes
    let configuration = URLSessionConfiguration.ephemeral
    configuration.timeoutIntervalForRequest = timeoutInSeconds
    configuration.timeoutIntervalForResource = timeoutInSeconds
    configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
    self.configuration = configuration
    self.timeoutInSeconds = timeoutInSeconds
    statuses = Mutex(
      Dictionary(
        feeds.map { ($0.name, FeedPoller.restoredStatus(of: $0, from: stateStore)) },
        uniquingKeysWith: { $1 }))
  }

  /// The status `feed` starts with: its saved state, when one was saved for its URL.
  private static func restoredStatus(
    of feed: Feed, from store: (any FeedStateStore)?
  ) -> Status {
    var status = Status(feed: feed)
    let saved: FeedPollState?
    do { saved = try store?.feedState(named: feed.name) } catch {
      status.lastError = "the saved state of the feed could not be read: \(error)"
      return status
    }
    // Validators and counts of another URL say nothing about this one.
    guard let saved, saved.url == feed.url.absoluteString else { return status }
    status.etag = saved.etag
    status.lastModified = saved.lastModified
    status.lastFetch = saved.lastFetch
    status.lastSuccess = saved.lastSuccess
    status.lastError = saved.lastError
    status.fetches = saved.fetchCount
    status.failures = saved.errorCount
    status.consecutiveFailures = saved.consecutiveFailures
    status.incidentCount = saved.incidentCount
    status.problemCount = saved.problemCount
    return status
  }

  /// The state to save for `status`.
  private static func state(of status: Status) -> FeedPollState {
    FeedPollState(
      name: status.feed.name, url: status.feed.url.absoluteString, etag: status.etag,
      lastModified: status.lastModified, lastFetch: status.lastFetch,
      lastSuccess: status.lastSuccess, lastError: status.lastError, fetchCount: status.fetches,
      errorCount: status.failures, consecutiveFailures: status.consecutiveFailures,
      incidentCount: status.incidentCount, problemCount: status.problemCount)
  }

  /// The feeds' statuses, by name.
  public var status: [Status] {
    statuses.withLock { Array($0.values) }.sorted { $0.feed.name < $1.feed.name }
  }

  /// The source names the feeds write: each feed's name, and the source its last document
  /// was ingested under (an unnamed feed's publisher). A push may not write these without
  /// a key granted the source by name.
  public var sourceNames: Set<String> {
    statuses.withLock { statuses in
      var names = Set<String>()
      for status in statuses.values {
        names.insert(status.feed.name)
        if let source = status.source { names.insert(source) }
      }
      return names
    }
  }

  /// Starts one polling loop per feed.
  public func start() {
    let feeds = statuses.withLock { $0.values.map(\.feed) }
    let started = feeds.map { feed in
      Task.detached { [self] in
        while !Task.isCancelled {
          let delay = await poll(feed.name)
          try? await Task.sleep(for: .seconds(delay))
        }
      }
    }
    tasks.withLock { $0 += started }
  }

  /// Stops every loop (a fetch under way is cancelled).
  public func stop() {
    for task in tasks.withLock({ $0 }) { task.cancel() }
    tasks.withLock { $0 = [] }
  }

  /// Fetches and ingests one feed once, then saves its state.
  ///
  /// When the state cannot be saved, the fetch still counts as a success, and `lastError`
  /// says so.
  /// - Returns: Seconds to wait before the next fetch (the interval, or the backoff).
  @discardableResult
  public func poll(_ name: String) async -> Double {
    guard var status = statuses.withLock({ $0[name] }) else { return 3600 }
    let feed = status.feed
    let started = Date()
    status.lastFetch = started
    status.fetches += 1
    do {
      try await fetch(&status)
      status.lastSuccess = Date()
      status.lastError = nil
      status.consecutiveFailures = 0
    } catch {
      status.lastError = error.description
      status.failures += 1
      status.consecutiveFailures += 1
    }
    // After the ingest: the validators saved are those of a document already stored.
    do { try stateStore?.saveFeedState(Self.state(of: status)) } catch {
      status.lastError = "the state of the feed could not be saved: \(error)"
    }
    let delay =
      status.consecutiveFailures == 0
      ? feed.intervalInSeconds
      : min(3600, feed.intervalInSeconds * pow(2, Double(min(status.consecutiveFailures, 20))))
    status.nextFetch = Date().addingTimeInterval(delay)
    let final = status
    statuses.withLock { $0[name] = final }
    return delay
  }

  private func fetch(_ status: inout Status) async throws(FeedError) {
    let feed = status.feed
    var request = URLRequest(url: feed.url)
    if let etag = status.etag { request.setValue(etag, forHTTPHeaderField: "If-None-Match") }
    if let modified = status.lastModified {
      request.setValue(modified, forHTTPHeaderField: "If-Modified-Since")
    }
    // The document goes to a file and is decoded from there, streamed: memory holds one
    // record at a time, however large the feed.
    let file: URL
    var downloaded: URL?
    defer { if let downloaded { try? FileManager.default.removeItem(at: downloaded) } }
    var response: URLResponse?
    do throws(BoundedDownload.Failure) {
      if feed.url.isFileURL {
        // A local file (a mounted share, a file another process refreshes): read it.
        file = feed.url
      } else {
        // Bounded as a whole, in time and size (a session's timeouts bound each wait for a
        // byte only, so a server sending one byte a second held the feed's loop).
        (file, response) = try await BoundedDownload.fetch(
          request, configuration: configuration, timeoutInSeconds: timeoutInSeconds,
          maximumBytes: maximumDocumentBytes)
        downloaded = file
      }
    } catch {
      throw FeedError(
        format: feed.format ?? .hereV7, location: feed.displayURL, reason: error.description)
    }
    if let http = response as? HTTPURLResponse {
      if http.statusCode == 304 { return }
      guard http.statusCode == 200 else {
        throw FeedError(
          format: feed.format ?? .hereV7, location: feed.displayURL,
          reason: "HTTP status \(http.statusCode)")
      }
    }
    // Taken only once the document is stored: asking with them earlier would answer 304
    // for a document that never arrived.
    let http = response as? HTTPURLResponse
    let validators = (
      etag: http?.value(forHTTPHeaderField: "ETag"),
      lastModified: http?.value(forHTTPHeaderField: "Last-Modified")
    )
    let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? nil
    guard let size else {
      throw FeedError(
        format: feed.format ?? .hereV7, location: feed.displayURL,
        reason: "fetch failed: cannot read \(file.path)")
    }
    guard size <= maximumDocumentBytes else {
      throw FeedError(
        format: feed.format ?? .hereV7, location: feed.displayURL,
        reason: "the document has \(size) bytes, more than the limit \(maximumDocumentBytes)")
    }
    let input = FeedInput.file(file)
    var detected = feed.format
    if detected == nil {
      do { detected = try FeedFormat.detect(input) } catch {
        throw FeedError(format: .hereV7, location: feed.displayURL, reason: error.description)
      }
    }
    guard let format = detected else {
      throw FeedError(
        format: .hereV7, location: feed.displayURL,
        reason: "the document is not a recognised feed format")
    }
    var options = feed.options
    options.now = Date()
    var application = try FeedApplication(
      decoding: input, format: format, options: options,
      given: feed.isNamed ? feed.name : nil, origin: feed.name)
    let report: IngestReport
    do { report = try application.apply(to: engine) } catch {
      throw FeedError(format: format, location: feed.displayURL, reason: "\(error)")
    }
    status.etag = validators.etag
    status.lastModified = validators.lastModified
    status.incidentCount = application.incidentCount
    status.problemCount = application.document.problems.count
    status.lastReport = report
    status.source = application.source
  }
}
