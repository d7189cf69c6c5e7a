import Foundation
import Synchronization

/// Per-client token buckets: each client has a bucket of at most `burst` tokens refilled at
/// `requestsPerSecond`; a request takes one token or is refused with the time until the next
/// token.
final class RateLimiter: Sendable {
  let limit: ServerConfiguration.RateLimit
  private let buckets = Mutex([String: Bucket]())
  /// Past this many clients, full buckets (clients idle long enough) are forgotten, so that
  /// memory stays bounded whatever clients come and go.
  private let pruneThreshold = 10_000

  private struct Bucket {
    var tokens: Double
    var updated: Double
  }

  init(limit: ServerConfiguration.RateLimit) {
    self.limit = limit
  }

  /// The seconds until `client` has a token again; `nil` while it has one (nothing taken).
  func wait(for client: String, now: Double) -> Double? {
    buckets.withLock { buckets in
      guard let bucket = buckets[client] else { return nil }
      let tokens = min(
        limit.burst, bucket.tokens + max(0, now - bucket.updated) * limit.requestsPerSecond)
      return tokens >= 1 ? nil : (1 - tokens) / limit.requestsPerSecond
    }
  }

  /// Takes a token for `client`.
  ///
  /// - Parameters:
  ///   - client: The API key or client address.
  ///   - now: Seconds on a monotonic clock.
  /// - Returns: `nil` when the request may proceed, else the seconds until it may retry.
  /// - Complexity: O(1) amortised.
  func take(for client: String, now: Double) -> Double? {
    buckets.withLock { buckets in
      var bucket = buckets[client] ?? Bucket(tokens: limit.burst, updated: now)
      bucket.tokens = min(
        limit.burst, bucket.tokens + max(0, now - bucket.updated) * limit.requestsPerSecond)
      bucket.updated = now
      defer {
        buckets[client] = bucket
        if buckets.count > pruneThreshold {
          buckets = buckets.filter {
            $0.value.tokens + (now - $0.value.updated) * limit.requestsPerSecond < limit.burst
          }
        }
      }
      if bucket.tokens >= 1 {
        bucket.tokens -= 1
        return nil
      }
      return (1 - bucket.tokens) / limit.requestsPerSecond
    }
  }
}
