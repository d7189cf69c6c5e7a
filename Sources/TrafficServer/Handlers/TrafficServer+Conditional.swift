import Codec
import Foundation

/// Conditional requests: the validator of an answer's body (`ETag`) and whether a client's
/// copy is current (`If-None-Match`, `If-Modified-Since`).
extension TrafficServer {
  /// Whether a conditional request's copy is current (RFC 9110 §13.2.2): `If-None-Match`
  /// names the answer's `ETag`, or, without `If-None-Match`, the answer's `Last-Modified`
  /// is not after `If-Modified-Since` (on `GET` and `HEAD`) and lies in a second that has
  /// passed (HTTP dates have whole seconds: a change later in the same second would be
  /// hidden behind the same date).
  static func isNotModified(
    _ response: HTTPResponse, for request: HTTPRequest, now: Date
  ) -> Bool {
    if let condition = request.headers["If-None-Match"] {
      guard let tag = response.headers["ETag"] else { return false }
      return matches(condition, tag: tag)
    }
    guard request.method == "GET" || request.method == "HEAD",
      let modified = response.headers["Last-Modified"].flatMap(HTTPDate.parse),
      let since = request.headers["If-Modified-Since"].flatMap(HTTPDate.parse)
    else { return false }
    return modified <= since
      && modified.timeIntervalSince1970 < now.timeIntervalSince1970.rounded(.down)
  }

  /// Whether an `If-None-Match` list names `tag` (weak comparison, RFC 9110 §13.1.2).
  static func matches(_ condition: String, tag: String) -> Bool {
    if condition.trimmingCharacters(in: .whitespaces) == "*" { return true }
    return condition.split(separator: ",").contains { item in
      var candidate = item.trimmingCharacters(in: .whitespaces)
      if candidate.hasPrefix("W/") { candidate.removeFirst(2) }
      return candidate == tag
    }
  }

  /// A strong validator of a body: a 64-bit hash of the bytes and the length, in hex.
  ///
  /// Four lanes take 32 bytes at a time, each word mixed by a multiply and a xor-shift as
  /// in Steele et al.'s SplitMix64 finaliser, so the multiplies overlap instead of waiting
  /// on each other (a 32 KB answer hashes in about a microsecond); the lanes are then mixed
  /// into one, and the tail byte by byte.
  static func fingerprint(_ body: Data) -> String {
    let multiplier: UInt64 = 0xbf58_476d_1ce4_e5b9
    var lanes: (UInt64, UInt64, UInt64, UInt64) = (
      0xcbf2_9ce4_8422_2325, 0x9e37_79b9_7f4a_7c15, 0x94d0_49bb_1331_11eb, 0x2545_f491_4f6c_dd1d
    )
    var hash: UInt64 = 0
    body.withUnsafeBytes { bytes in
      var offset = 0
      while offset + 32 <= bytes.count {
        lanes.0 =
          (lanes.0 ^ bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* multiplier
        lanes.1 =
          (lanes.1 ^ bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self)) &* multiplier
        lanes.2 =
          (lanes.2 ^ bytes.loadUnaligned(fromByteOffset: offset + 16, as: UInt64.self))
          &* multiplier
        lanes.3 =
          (lanes.3 ^ bytes.loadUnaligned(fromByteOffset: offset + 24, as: UInt64.self))
          &* multiplier
        lanes.0 ^= lanes.0 >> 31
        lanes.1 ^= lanes.1 >> 31
        lanes.2 ^= lanes.2 >> 31
        lanes.3 ^= lanes.3 >> 31
        offset += 32
      }
      for lane in [lanes.0, lanes.1, lanes.2, lanes.3] {
        hash = (hash ^ lane) &* multiplier
        hash ^= hash >> 31
      }
      while offset < bytes.count {
        hash = (hash ^ UInt64(bytes[offset])) &* 0x0000_0100_0000_01b3
        offset += 1
      }
    }
    hash = (hash ^ (hash >> 30)) &* 0x94d0_49bb_1331_11eb
    hash ^= hash >> 31
    return String(hash, radix: 16) + "-" + String(body.count, radix: 16)
  }
}
