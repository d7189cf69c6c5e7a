import Foundation

/// What this process may do with a store file and the directory beside it, where SQLite
/// keeps the file's write-ahead log (`-wal`) and its index (`-shm`); by `access(2)`, so that
/// a store that cannot be written is named in plain words before SQLite's own ("unable to
/// open database file", "attempt to write a readonly database") would be.
package enum SQLiteFileAccess {
  /// The directory holding `path` (`.` for a bare file name).
  static func directory(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
  }

  /// Whether a file exists at `path` (of any kind).
  static func exists(_ path: String) -> Bool {
    var status = stat()
    return stat(path, &status) == 0
  }

  /// The size of the file at `path`, or `nil` when there is none.
  static func size(_ path: String) -> Int64? {
    var status = stat()
    return stat(path, &status) == 0 ? Int64(status.st_size) : nil
  }

  /// `nil` when this process may do `mode` (`R_OK`, `W_OK`...) with `path`, else why not,
  /// in words ("permission denied", "read-only file system", "no such file").
  static func denial(_ path: String, _ mode: Int32) -> String? {
    guard access(path, mode) != 0 else { return nil }
    switch errno {
    case EACCES, EPERM: return "permission denied"
    case EROFS: return "read-only file system"
    case ENOENT: return "no such file or directory"
    case let code: return String(cString: strerror(code)).lowercased()
    }
  }

  /// Whether this process can write the store at `path`: the file, when it exists, and its
  /// directory (SQLite makes the `-wal` and `-shm` files there).
  package static func isWritable(_ path: String) -> Bool {
    writeProblem(at: path) == nil
  }

  /// Why this process cannot write (or create) the store at `path`, as a sentence naming it;
  /// `nil` when it can.
  package static func writeProblem(at path: String) -> String? {
    let directory = directory(of: path)
    guard exists(path) else {
      guard exists(directory) else {
        return "cannot create \(path): the directory \(directory) does not exist"
      }
      return denial(directory, W_OK | X_OK).map {
        "cannot create \(path): the directory \(directory) cannot be written (\($0))"
      }
    }
    if let reason = denial(path, W_OK) { return "cannot write \(path): \(reason)" }
    return denial(directory, W_OK | X_OK).map {
      "cannot write \(path): its directory \(directory) cannot be written (\($0)), and SQLite "
        + "keeps the store's -wal and -shm files there"
    }
  }

  /// What to hand `sqlite3_open_v2` to read `path` and never write it or beside it.
  ///
  /// A plain path opens with `mode=ro`. When this process cannot write the store (the file
  /// or its directory) and no process has it open — no write-ahead log, nor a rollback
  /// journal — it is opened `immutable=1`: SQLite then reads the file alone, without
  /// locks and without making a `-shm` index, which it could not make in a directory it
  /// cannot write (nor should leave, owned by this user, beside another user's store). A
  /// log that is there but empty is read the same way when the index cannot be made.
  /// Names SQLite treats itself (empty, `:memory:`, `file:` URIs) are handed on as they are.
  static func readOnlyName(_ path: String) -> (name: String, isURI: Bool) {
    guard !path.isEmpty, path != ":memory:", !path.hasPrefix("file:") else {
      return (path, false)
    }
    let log = size(path + "-wal")
    let journal = size(path + "-journal") ?? 0
    let canMakeIndex = denial(directory(of: path), W_OK | X_OK) == nil
    let immutable =
      journal == 0
      && ((log == nil && !isWritable(path))
        || (log == 0 && !canMakeIndex && !exists(path + "-shm")))
    // The path in a URI: `%`, `?` and `#` escaped; `file:` then `//` and an empty authority
    // before an absolute path, so that one starting `//` is no host.
    var escaped = ""
    for character in path.unicodeScalars {
      switch character {
      case "%": escaped += "%25"
      case "?": escaped += "%3f"
      case "#": escaped += "%23"
      default: escaped.unicodeScalars.append(character)
      }
    }
    let name =
      "file:" + (path.hasPrefix("/") ? "//" : "") + escaped
      + (immutable ? "?mode=ro&immutable=1" : "?mode=ro")
    return (name, true)
  }

  /// Why a read-only opening of `path` failed, in words, when the files beside it explain
  /// it; `nil` otherwise (SQLite's message then).
  static func readOnlyProblem(_ path: String) -> String? {
    if let reason = denial(path, R_OK) { return "cannot read \(path): \(reason)" }
    let directory = directory(of: path)
    if let log = size(path + "-wal"), log > 0, !exists(path + "-shm"),
      denial(directory, W_OK | X_OK) != nil
    {
      return "cannot read \(path): its write-ahead log \(path)-wal holds writes, which SQLite "
        + "reads through an index (\(path)-shm) it cannot make in \(directory); open the "
        + "store once as a user who can write there, or copy the files somewhere writable"
    }
    return nil
  }
}
