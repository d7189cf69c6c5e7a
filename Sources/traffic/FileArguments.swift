import Codec
import Foundation
import TrafficFeeds

/// Files named on the command line. `-` is standard input where a file is read and standard
/// output where one is written; every problem is one line in our words naming the file.
enum FileArguments {
  /// The feed input `path` names: standard input (read whole) for `-`, else the file, once
  /// it is known to exist and be readable.
  static func feed(_ path: String) throws(UsageError) -> FeedInput {
    if path == "-" { return .data(standardInput()) }
    try checkReadable(path)
    return .file(URL(fileURLWithPath: path))
  }

  /// Fails unless `path` is a readable file.
  static func checkReadable(_ path: String) throws(UsageError) {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
      throw UsageError("\(path): no such file")
    }
    guard !isDirectory.boolValue else { throw UsageError("\(path): is a directory, not a file") }
    guard FileManager.default.isReadableFile(atPath: path) else {
      throw UsageError("\(path): cannot read: permission denied")
    }
  }

  /// The bytes of `path`, or of standard input for `-`.
  static func contents(_ path: String) throws(UsageError) -> Data {
    if path == "-" { return standardInput() }
    try checkReadable(path)
    do { return try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
      throw UsageError("\(path): cannot read: \(reason(error))")
    }
  }

  /// Writes `data` to `path` (atomically: a reader never sees half a file), or to standard
  /// output for `-`.
  static func write(_ data: Data, to path: String, console: Console) throws(UsageError) {
    var rest: Data? = data
    try write(
      pieces: {
        defer { rest = nil }
        return rest.map { [UInt8]($0) }
      }, to: path, console: console)
  }

  /// Writes a document piece by piece (`-` for standard output): into a file beside
  /// `path` that replaces it once complete, so that a reader never sees half a document
  /// and a failed write leaves the old one.
  static func write(
    pieces next: () -> [UInt8]?, to path: String, console: Console
  ) throws(UsageError) {
    if path == "-" {
      while console.outputFailure() == nil, let piece = next() { console.writeData(Data(piece)) }
      return
    }
    let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory),
      isDirectory.boolValue
    else {
      throw UsageError("\(path): cannot write: the directory \(directory) does not exist")
    }
    let partial = path + ".partial-\(getpid())"
    do {
      guard FileManager.default.createFile(atPath: partial, contents: nil),
        let handle = FileHandle(forWritingAtPath: partial)
      else { throw UsageError("\(path): cannot write: cannot create \(partial)") }
      defer { try? handle.close() }
      while let piece = next() { try handle.write(contentsOf: piece) }
      try handle.synchronize()
      guard rename(partial, path) == 0 else {
        throw UsageError("\(path): cannot write: \(String(cString: strerror(errno)))")
      }
    } catch let error as UsageError {
      unlink(partial)
      throw error
    } catch {
      unlink(partial)
      throw UsageError("\(path): cannot write: \(reason(error))")
    }
  }

  /// Prints a command's summary line: on standard error when its output went to standard
  /// output (`-o -`), where it would mix with the data, and then only if it was written.
  static func summary(_ line: String, output: String, console: Console) {
    guard output == "-" else { return console.print(line) }
    if console.outputFailure() == nil { console.error(line) }
  }

  /// Standard input, read to its end.
  static func standardInput() -> Data {
    FileHandle.standardInput.readDataToEndOfFile()
  }

  /// Why a file operation failed, in a few plain words (never Foundation's own text).
  static func reason(_ error: any Error) -> String { SystemErrorText.reason(error) }
}
