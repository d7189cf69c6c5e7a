import Foundation

/// What a feed poller remembers about one feed between runs: the validators for a
/// conditional request and the outcome of the fetches so far.
///
/// The validators belong to `url`: a poller configured with another URL for the same name
/// ignores them.
public struct FeedPollState: Hashable, Sendable {
  /// The feed's configured name, unique in a store.
  public var name: String
  /// The URL fetched, as configured (with its query and credentials, since stores are
  /// private to the deployment).
  public var url: String
  /// The `ETag` of the last document ingested, for `If-None-Match`.
  public var etag: String?
  /// The `Last-Modified` of the last document ingested, verbatim, for `If-Modified-Since`.
  public var lastModified: String?
  /// When the feed was last fetched, successfully or not.
  public var lastFetch: Date?
  /// When a fetch last succeeded (a document ingested, or `304 Not Modified`).
  public var lastSuccess: Date?
  /// Why the last fetch failed; `nil` after a success.
  public var lastError: String?
  /// Fetches made, all told.
  public var fetchCount: Int
  /// Fetches that failed, all told.
  public var errorCount: Int
  /// Failures since the last success (what the poller's backoff grows with).
  public var consecutiveFailures: Int
  /// Incidents in the last document ingested.
  public var incidentCount: Int
  /// Records skipped in the last document ingested.
  public var problemCount: Int

  /// Creates a state; a feed never fetched has only a name and a URL.
  public init(
    name: String, url: String, etag: String? = nil, lastModified: String? = nil,
    lastFetch: Date? = nil, lastSuccess: Date? = nil, lastError: String? = nil,
    fetchCount: Int = 0, errorCount: Int = 0, consecutiveFailures: Int = 0,
    incidentCount: Int = 0, problemCount: Int = 0
  ) {
    self.name = name
    self.url = url
    self.etag = etag
    self.lastModified = lastModified
    self.lastFetch = lastFetch
    self.lastSuccess = lastSuccess
    self.lastError = lastError
    self.fetchCount = fetchCount
    self.errorCount = errorCount
    self.consecutiveFailures = consecutiveFailures
    self.incidentCount = incidentCount
    self.problemCount = problemCount
  }
}
