import Codec
import Foundation
import TrafficFeeds

/// Files named on the command line. `-` is standard input where a file is read and standard
/// output where one is written; every problem is one line in our words naming the file.
enum FileArguments {
  /// The feed input `path` names: standard input (read whole) for `-`; a regular file,
  /// once it is known to exist and be readable (decoders read it in chunks); anything else
  /// (a FIFO, `<(…)`, `/dev/stdin`) read whole first, since it can be read only once and
  /// the format is told from its first bytes.
  static func feed(_ path: String) throws(UsageError) -> FeedInput {
    if path == "-" { return .data(try standardInput()) }
    try checkReadable(path)
    guard kind(path) == .regular else { return .data(try contents(path)) }
    return .file(URL(fileURLWithPath: path))
  }

  /// What a path names, symbolic links followed.
  enum Kind: Equatable {
    case missing, regular, directory
    /// A device, FIFO or socket: read or written in place, and only once.
    case other
  }

  /// What `path` names, symbolic links followed (`.missing` for a dangling link).
  static func kind(_ path: String) -> Kind {
    var status = stat()
    guard stat(path, &status) == 0 else { return .missing }
    switch status.st_mode & S_IFMT {
    case S_IFREG: return .regular
    case S_IFDIR: return .directory
    default: return .other
    }
  }

  /// Fails unless `path` is a file (of any kind but a directory) this process may read.
  static func checkReadable(_ path: String) throws(UsageError) {
    switch kind(path) {
    case .missing: throw UsageError("\(path): no such file")
    case .directory: throw UsageError("\(path): is a directory, not a file")
    case .regular, .other: break
    }
    guard access(path, R_OK) == 0 else {
      throw UsageError("\(path): cannot read: \(SystemErrorText.describe(errno: errno))")
    }
  }

  /// The bytes of `path` (a file of any kind, read once to its end), or of standard input
  /// for `-`.
  static func contents(_ path: String) throws(UsageError) -> Data {
    if path == "-" { return try standardInput() }
    try checkReadable(path)
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else {
      throw UsageError("\(path): cannot read: \(SystemErrorText.describe(errno: errno))")
    }
    defer { close(descriptor) }
    return try readToEnd(descriptor, name: path)
  }

  /// Standard input, read to its end.
  static func standardInput() throws(UsageError) -> Data {
    try readToEnd(STDIN_FILENO, name: "standard input")
  }

  /// What `descriptor` gives until its end; `name` names it in the error.
  private static func readToEnd(_ descriptor: Int32, name: String) throws(UsageError) -> Data {
    var data = Data()
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if count == 0 { return data }
      if count < 0 {
        if errno == EINTR { continue }
        throw UsageError("\(name): cannot read: \(SystemErrorText.describe(errno: errno))")
      }
      data.append(contentsOf: buffer[..<count])
    }
  }

  /// Writes `data` to `path` (atomically: a reader never sees half a file), or to standard
  /// output for `-`.
  static func write(_ data: Data, to path: String, console: Console) throws {
    var rest: Data? = data
    try write(
      pieces: {
        defer { rest = nil }
        return rest.map { [UInt8]($0) }
      }, to: path, console: console)
  }

  /// Writes a document piece by piece (`-` for standard output).
  ///
  /// A regular file (or a new one) is written into a file beside it that replaces it once
  /// complete, so that a reader never sees half a document and a failed write leaves the
  /// old one; through a symbolic link, the file it points to is replaced, not the link. A
  /// device or FIFO is written in place; a directory is refused.
  static func write(
    pieces next: () -> [UInt8]?, to path: String, console: Console
  ) throws {
    if path == "-" {
      while console.outputFailure() == nil, let piece = next() { console.writeData(Data(piece)) }
      return
    }
    switch kind(path) {
    case .directory:
      throw UsageError("\(path): is a directory; give the name of a file to write")
    case .other:
      try writeInPlace(pieces: next, to: path)
    case .regular, .missing:
      try replace(resolvingLinks(path), pieces: next, named: path)
    }
  }

  /// Writes into the device or FIFO `path` as it is (never replaced by a file).
  private static func writeInPlace(pieces next: () -> [UInt8]?, to path: String) throws {
    let descriptor = open(path, O_WRONLY | O_CLOEXEC)
    guard descriptor >= 0 else {
      throw UsageError("\(path): cannot write: \(SystemErrorText.describe(errno: errno))")
    }
    let stream = StandardStream(descriptor: descriptor)
    while stream.failure == nil, let piece = next() {
      piece.withUnsafeBytes { stream.write($0) }
    }
    let closed = close(descriptor) == 0 ? nil : SystemErrorText.describe(errno: errno)
    if let failure = stream.failure ?? closed { throw WriteFailure(path, failure) }
  }

  /// Writes the regular file `target` through a file beside it that replaces it once
  /// complete (keeping its permissions); `name` is the path the user gave.
  private static func replace(
    _ target: String, pieces next: () -> [UInt8]?, named name: String
  ) throws {
    let directory = URL(fileURLWithPath: target).deletingLastPathComponent().path
    guard kind(directory) == .directory else {
      throw UsageError("\(name): cannot write: the directory \(directory) does not exist")
    }
    var existing = stat()
    let mode = stat(target, &existing) == 0 ? existing.st_mode & 0o7777 : 0o666
    let partial = target + ".partial-\(getpid())"
    let descriptor = open(partial, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
    guard descriptor >= 0 else {
      throw UsageError("\(name): cannot write: \(SystemErrorText.describe(errno: errno))")
    }
    // The mode asked for passed the umask; an existing file's is kept as it was.
    if existing.st_mode != 0 { fchmod(descriptor, mode) }
    let stream = StandardStream(descriptor: descriptor)
    while stream.failure == nil, let piece = next() {
      piece.withUnsafeBytes { stream.write($0) }
    }
    let synced = fsync(descriptor) == 0 ? nil : SystemErrorText.describe(errno: errno)
    let closed = close(descriptor) == 0 ? nil : SystemErrorText.describe(errno: errno)
    if let failure = stream.failure ?? synced ?? closed {
      unlink(partial)
      throw WriteFailure(name, failure)
    }
    guard rename(partial, target) == 0 else {
      let reason = SystemErrorText.describe(errno: errno)
      unlink(partial)
      throw WriteFailure(name, reason)
    }
  }

  /// `path` with the symbolic links of its last component followed (to a file that may
  /// not exist yet): what a write through the link replaces.
  static func resolvingLinks(_ path: String) -> String {
    var current = path
    // As many links as the kernel follows (ELOOP beyond).
    for _ in 0..<40 {
      var status = stat()
      guard lstat(current, &status) == 0, status.st_mode & S_IFMT == S_IFLNK else {
        return current
      }
      var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
      let length = readlink(current, &buffer, buffer.count - 1)
      guard length > 0 else { return current }
      let target = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
      current =
        target.hasPrefix("/")
        ? target
        : URL(fileURLWithPath: current).deletingLastPathComponent().appendingPathComponent(target)
          .path
    }
    return current
  }

  /// Prints a command's summary line: on standard error when its output went to standard
  /// output (`-o -`), where it would mix with the data, and then only if it was written.
  static func summary(_ line: String, output: String, console: Console) {
    guard output == "-" else { return console.print(line) }
    if console.outputFailure() == nil { console.error(line) }
  }

  /// Why a file operation failed, in a few plain words (never Foundation's own text).
  static func reason(_ error: any Error) -> String { SystemErrorText.reason(error) }
}

/// A file that was opened could not be written (a full disk, an I/O error): not the
/// user's input, so status 1.
struct WriteFailure: Error, CustomStringConvertible {
  let description: String
  init(_ path: String, _ reason: String) { description = "\(path): cannot write: \(reason)" }
}
