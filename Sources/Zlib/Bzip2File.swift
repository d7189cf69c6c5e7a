import CBZip2
import Codec
import Foundation

/// bzip2 files read through libbz2, decompressed as they are read; files of several
/// concatenated streams (as pbzip2 and lbzip2 write them) are read whole.
public enum Bzip2File {
  /// How much of the file is read at a time, and the size of the pieces handed over.
  static let chunkSize = 1 << 18

  /// Decompresses the file at `path`, handing the decompressed bytes to `body` piece by
  /// piece; `body` returns `false` to stop early.
  ///
  /// - Throws: `ZlibError.malformed` for data that is not bzip2 or is corrupt (with the
  ///   compressed byte where it went wrong), `.truncated` when the file ends inside a
  ///   stream; `Bzip2File.ReadError` when the file cannot be read.
  public static func decompress(
    path: String, _ body: (UnsafeRawBufferPointer) -> Bool
  ) throws {
    guard let file = FileHandle(forReadingAtPath: path) else {
      throw ReadError(path: path, reason: "cannot open it")
    }
    defer { try? file.close() }
    var stream = bz_stream()
    var inStream = false
    defer { if inStream { BZ2_bzDecompressEnd(&stream) } }
    var input = [UInt8]()
    var inputOffset = 0
    var consumed = 0  // compressed bytes before `input`
    var output = [UInt8](repeating: 0, count: chunkSize)
    var sawStream = false
    var streamsEnded = 0
    while true {
      if inputOffset == input.count {
        let data: Data
        do { data = try file.read(upToCount: chunkSize) ?? Data() } catch {
          throw ReadError(path: path, reason: SystemErrorText.reason(error))
        }
        consumed += input.count
        input = [UInt8](data)
        inputOffset = 0
        if input.isEmpty {
          if inStream { throw ZlibError.truncated }
          if !sawStream { throw ZlibError.malformed("the file is empty, not bzip2") }
          return
        }
      }
      if !inStream {
        stream = bz_stream()
        let status = BZ2_bzDecompressInit(&stream, 0, 0)
        guard status == BZ_OK else { throw ZlibError.malformed("libbz2 error \(status)") }
        inStream = true
        sawStream = true
      }
      // Both buffers are non-empty here: the input was refilled above, the output is fixed.
      let status: Int32 = input.withUnsafeMutableBytes { inBuffer in
        output.withUnsafeMutableBytes { outBuffer in
          guard let from = inBuffer.bindMemory(to: CChar.self).baseAddress,
            let to = outBuffer.bindMemory(to: CChar.self).baseAddress
          else { return BZ_PARAM_ERROR }
          stream.next_in = from + inputOffset
          stream.avail_in = UInt32(inBuffer.count - inputOffset)
          stream.next_out = to
          stream.avail_out = UInt32(outBuffer.count)
          return BZ2_bzDecompress(&stream)
        }
      }
      let produced = output.count - Int(stream.avail_out)
      inputOffset = input.count - Int(stream.avail_in)
      switch status {
      case BZ_OK, BZ_STREAM_END:
        if produced > 0 {
          let goOn = output.withUnsafeBytes {
            body(UnsafeRawBufferPointer(rebasing: $0[..<produced]))
          }
          if !goOn { return }
        }
        if status == BZ_STREAM_END {
          BZ2_bzDecompressEnd(&stream)
          inStream = false
          streamsEnded += 1
        }
      case BZ_DATA_ERROR_MAGIC:
        if streamsEnded > 0 {
          // Bytes after a whole stream that start no new one.
          throw ZlibError.malformed(
            "data after the bzip2 stream that is not bzip2, at compressed byte "
              + "\(consumed + inputOffset)")
        }
        throw ZlibError.malformed("not bzip2 data (no BZh signature)")
      case BZ_DATA_ERROR:
        throw ZlibError.malformed(
          "corrupt bzip2 data near compressed byte \(consumed + inputOffset)")
      case BZ_MEM_ERROR:
        throw ZlibError.malformed("out of memory while decompressing bzip2")
      default:
        throw ZlibError.malformed("libbz2 error \(status)")
      }
    }
  }

  /// The file could not be opened or read.
  public struct ReadError: Error, CustomStringConvertible {
    /// The file.
    public let path: String
    /// Why, in plain words.
    public let reason: String
    /// The file and why, in one line.
    public var description: String { "\(path): cannot read: \(reason)" }
  }
}
