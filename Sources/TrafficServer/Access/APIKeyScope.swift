/// What an API key may do: a line of a keys file, `KEY` then its scopes.
///
/// - `read`: every query (incidents, flow, tiles, routes, publications, feed status);
/// - `probes`: push probes (`POST /v1/probes`);
/// - `write:SOURCE[,SOURCE...]`: push feed documents (`POST /v1/feeds/{format}`) under
///   these source names: the name exactly (`wzdx:colorado`, as a WZDx document of publisher
///   `colorado` names itself, or a `?source=` name), a prefix ending in `*` (`wzdx:*`), or
///   `*` for any. A source the server polls (`--feed`) is written only by a grant that names
///   it exactly: no wildcard reaches it.
///
/// A key without scopes (a line with the key alone, `--api-key KEY`) has them all: `read
/// probes write:*`. A writer names only its own sources, so `fullRefresh` and the ending of
/// incidents a document no longer carries reach only those.
public struct APIKeyScope: Hashable, Sendable, CustomStringConvertible {
  /// Whether the key may query.
  public var canRead: Bool
  /// Whether the key may push probes.
  public var canPushProbes: Bool
  /// The source names the key may push feed documents under: exact names, prefixes ending
  /// in `*`, or `*`.
  public var sources: [String]

  /// A scope.
  public init(canRead: Bool = false, canPushProbes: Bool = false, sources: [String] = []) {
    self.canRead = canRead
    self.canPushProbes = canPushProbes
    self.sources = sources
  }

  /// Everything: a key without scopes, or a server without keys.
  public static let full = APIKeyScope(canRead: true, canPushProbes: true, sources: ["*"])

  /// Whether the key may push documents under `source`; `polled`: the server polls a feed
  /// of that source name, which only a grant naming it exactly reaches.
  public func mayWrite(source: String, polled: Bool) -> Bool {
    sources.contains { grant in
      guard grant.hasSuffix("*") else { return grant == source }
      return !polled && source.hasPrefix(grant.dropLast())
    }
  }

  /// The scopes as a keys file writes them.
  public var description: String {
    var words: [String] = []
    if canRead { words.append("read") }
    if canPushProbes { words.append("probes") }
    if !sources.isEmpty { words.append("write:" + sources.joined(separator: ",")) }
    return words.isEmpty ? "nothing" : words.joined(separator: " ")
  }

  /// The scope of the words after a key (none: ``full``).
  ///
  /// - Throws: ``ScopeError`` naming the word that is not a scope.
  public static func parse(_ words: [Substring]) throws(ScopeError) -> APIKeyScope {
    guard !words.isEmpty else { return .full }
    var scope = APIKeyScope()
    for word in words {
      switch word {
      case "read": scope.canRead = true
      case "probes": scope.canPushProbes = true
      case _ where word.hasPrefix("write:"):
        for grant in word.dropFirst("write:".count).split(
          separator: ",", omittingEmptySubsequences: false)
        {
          guard !grant.isEmpty, grant.count <= 100, !grant.dropLast().contains("*") else {
            throw ScopeError(
              "write grant \"\(grant)\" must be a source name of 1 to 100 characters, a"
                + " prefix ending in *, or *")
          }
          scope.sources.append(String(grant))
        }
      default:
        throw ScopeError(
          "\"\(word)\" is not a scope; give read, probes or write:SOURCE[,SOURCE...]")
      }
    }
    return scope
  }

  /// Why the words after a key are not scopes.
  public struct ScopeError: Error, CustomStringConvertible {
    /// What is wrong.
    public var description: String
    init(_ description: String) { self.description = description }
  }
}
