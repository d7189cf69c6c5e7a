import Foundation

/// A tile's bytes and what HTTP caching needs of them.
public struct RenderedTile: Sendable {
  /// The PNG or vector tile bytes.
  public var data: Data
  /// The HTTP content type.
  public var contentType: String
  /// A strong HTTP entity tag, quoted: equal tags mean equal content (it is derived from
  /// what the tile shows, so an update elsewhere keeps the tag).
  public var etag: String
  /// Whether the bytes came from the cache rather than a fresh rendering.
  public var fromCache: Bool
}
