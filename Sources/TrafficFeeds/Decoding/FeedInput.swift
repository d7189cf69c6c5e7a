import Codec
import Foundation
import Zlib

/// A feed document to decode: bytes already in memory, or a file that decoders read in
/// chunks, so that a large document is never held whole (memory stays bounded by the largest
/// record and the decoded incidents).
public struct FeedInput: Sendable {
  private enum Source: Sendable {
    case data(Data)
    case file(URL)
  }

  private let source: Source
  /// Told the bytes read from the file, as they are read.
  private(set) var progress: ProgressReporter?

  /// Bytes read per chunk from a file.
  static let chunkBytes = 1 << 20

  /// A document in memory.
  public static func data(_ data: Data) -> FeedInput { FeedInput(source: .data(data)) }

  /// A document in a file, read in chunks while decoding.
  public static func file(_ url: URL) -> FeedInput { FeedInput(source: .file(url)) }

  /// The same input, telling `progress` the bytes of the file read while decoding.
  package func reporting(to progress: ProgressReporter?) -> FeedInput {
    var input = self
    input.progress = progress
    return input
  }

  /// The first bytes of the document (at most `maximumCount`), for recognising its format.
  ///
  /// - Throws: `FeedReadError` when the file cannot be opened or read.
  public func prefix(_ maximumCount: Int) throws(FeedReadError) -> Data {
    if case .data(let data) = source, !StreamingInflater.isGzip(data) {
      return data.prefix(maximumCount)
    }
    let chunks = try FeedChunks(reporting(to: nil))
    var head = Data()
    while head.count < maximumCount, let chunk = try chunks.next() {
      head.append(chunk.prefix(maximumCount - head.count))
    }
    return head
  }

  /// The most bytes a compressed document may inflate to (a guard against compression
  /// bombs; memory stays bounded either way, since documents are streamed).
  public static let maximumInflatedBytes = 1 << 32

  /// The document's bytes in memory when it was given as `Data`.
  var inMemoryData: Data? {
    if case .data(let data) = source { return data }
    return nil
  }

  /// The file when it was given as one.
  var fileURL: URL? {
    if case .file(let url) = source { return url }
    return nil
  }
}

/// Why a feed document could not be read (before decoding): the file and the system's reason.
public struct FeedReadError: Error, Hashable, Sendable, CustomStringConvertible {
  /// What failed, e.g. `"cannot read /data/feed.xml: No such file or directory"`.
  public var description: String

  init(_ description: String) {
    self.description = description
  }
}

/// Reads a `FeedInput` chunk by chunk. Used from one thread at a time.
final class FeedChunks {
  private var remaining: Data?
  private let handle: FileHandle?
  private let url: URL?
  private let progress: ProgressReporter?
  /// Set when the first chunk shows a gzip stream; `nil` before and for plain documents.
  private var inflater: StreamingInflater?
  private var sawFirstChunk = false

  /// Opens the input.
  ///
  /// - Throws: `FeedReadError` when the file cannot be opened.
  init(_ input: FeedInput) throws(FeedReadError) {
    progress = input.progress
    if let data = input.inMemoryData {
      remaining = data
      handle = nil
      url = nil
      return
    }
    let url = input.fileURL ?? URL(fileURLWithPath: "/dev/null")
    self.url = url
    do {
      handle = try FileHandle(forReadingFrom: url)
    } catch {
      throw FeedReadError("cannot read \(url.path): \(Self.reason(error))")
    }
  }

  deinit { try? handle?.close() }

  /// The next chunk of the document (inflated when it is gzip-compressed), `nil` at the end.
  ///
  /// - Throws: `FeedReadError` when reading the file fails or the compressed data is corrupt
  ///   or truncated.
  func next() throws(FeedReadError) -> Data? {
    while true {
      let raw = try nextRaw()
      if !sawFirstChunk {
        sawFirstChunk = true
        if let raw, StreamingInflater.isGzip(raw) {
          do {
            inflater = try StreamingInflater(maxOutputBytes: FeedInput.maximumInflatedBytes)
          } catch {
            throw FeedReadError("cannot read \(name): gzip: \(error)")
          }
        }
      }
      guard let inflater else { return raw }
      do throws(ZlibError) {
        guard let raw else {
          try inflater.finish()
          return nil
        }
        let inflated = try inflater.inflate(raw)
        if !inflated.isEmpty { return inflated }
      } catch {
        throw FeedReadError("cannot read \(name): gzip: \(error)")
      }
    }
  }

  private var name: String { url?.path ?? "the document" }

  /// The next chunk as stored, `nil` at the end.
  private func nextRaw() throws(FeedReadError) -> Data? {
    if let data = remaining {
      guard !data.isEmpty else { return nil }
      let chunk = data.prefix(FeedInput.chunkBytes)
      remaining = data.dropFirst(chunk.count)
      return chunk
    }
    guard let handle else { return nil }
    do {
      guard let chunk = try handle.read(upToCount: FeedInput.chunkBytes), !chunk.isEmpty else {
        return nil
      }
      progress?.advance(by: Int64(chunk.count))
      return chunk
    } catch {
      throw FeedReadError("cannot read \(url?.path ?? "the input"): \(Self.reason(error))")
    }
  }

  private static func reason(_ error: any Error) -> String {
    let nsError = error as NSError
    if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError,
      underlying.domain == NSPOSIXErrorDomain,
      let code = POSIXErrorCode(rawValue: Int32(underlying.code))
    {
      return String(cString: strerror(code.rawValue))
    }
    return SystemErrorText.reason(error)
  }
}
