#if canImport(Glibc)
  import Glibc
#endif

/// The address a request comes from: the TCP peer, unless the peer is a reverse proxy the
/// operator trusts (`ServerConfiguration.trustedProxies`) — then the client that proxy
/// names in `X-Forwarded-For`. Rate limits, the per-key fallback and the access log use it.
///
/// `X-Forwarded-For` lists the client first and each proxy appends the address it got the
/// request from; only the entries added by trusted proxies can be believed. So the list is
/// read from the right, skipping trusted proxies: the first other address is the client.
/// A header from an untrusted peer is ignored (anyone can send one); an entry that is not an
/// IP address stops the walk (the peer's address is kept).
enum ClientAddress {
  /// The client's address for a request from `peer` carrying `forwardedFor`.
  static func resolve(peer: String, forwardedFor: String?, trusted: Set<String>) -> String {
    guard !trusted.isEmpty, trusted.contains(peer), let forwardedFor else { return peer }
    let entries = forwardedFor.split(separator: ",").map {
      $0.trimmingCharacters(in: .whitespaces)
    }
    var client = peer
    for entry in entries.reversed() {
      guard isAddress(entry) else { return client }
      client = entry
      if !trusted.contains(entry) { return entry }
    }
    return client
  }

  /// The `X-Forwarded-For` lines of a request as one list (RFC 9110 §5.3: repeated lines
  /// are one field, in order): a proxy that adds a line of its own after the client's
  /// must not leave the client's line to name the client.
  static func joined(_ lines: [String]) -> String? {
    lines.isEmpty ? nil : lines.joined(separator: ", ")
  }

  /// Whether `text` is an IPv4 or IPv6 literal.
  static func isAddress(_ text: String) -> Bool {
    var v4 = in_addr()
    var v6 = in6_addr()
    return inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1
  }
}
