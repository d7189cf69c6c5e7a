import Foundation

/// The claim of one `traffic serve` on its SQLite store: an exclusive `flock(2)` on
/// `STORE.lock` beside the store file, taken at start and held until the server stops, so that
/// a second server on the same file (whose snapshot would diverge from the first's) is
/// refused. The file holds the server's process id, for the refusal to name it.
///
/// `flock` locks are the kernel's and never meet SQLite's `fcntl` locks (nor would closing
/// the lock file drop those, as closing a descriptor of the store itself would). Commands
/// that import into the store do not take it. A server that dies leaves the file behind,
/// unlocked: the next server takes it over.
final class ServeLock {
  /// The lock file.
  let path: String
  private let descriptor: Int32

  /// Takes the lock of the store at `store`.
  ///
  /// - Throws: `UsageError` naming the store and the server holding it (its process id when
  ///   known), or why the lock file cannot be made.
  init(store: String) throws(UsageError) {
    // Beside the file itself, however it is named (a symbolic link, another relative path).
    path = URL(fileURLWithPath: store).resolvingSymlinksInPath().path + ".lock"
    while true {
      let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
      guard descriptor >= 0 else {
        let reason = String(cString: strerror(errno)).lowercased()
        throw UsageError("cannot make the lock file \(path) of \(store): \(reason)")
      }
      guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
        let failure = errno
        let holder = Self.processID(in: descriptor)
        close(descriptor)
        guard failure == EWOULDBLOCK else {
          let reason = String(cString: strerror(failure)).lowercased()
          throw UsageError("cannot lock \(path) for \(store): \(reason)")
        }
        throw UsageError(
          "\(store) is in use by another traffic serve"
            + (holder.map { " (pid \($0))" } ?? "")
            + "; run one traffic serve per store file (several nodes share a PostgreSQL store)")
      }
      // The holder before may have removed the file between our open and our lock: then
      // the lock is on a file no one else will find, and the one at the path is taken again.
      var held = stat()
      var named = stat()
      if fstat(descriptor, &held) == 0, stat(path, &named) == 0, held.st_dev == named.st_dev,
        held.st_ino == named.st_ino
      {
        let text = "\(getpid())\n"
        _ = ftruncate(descriptor, 0)
        _ = text.withCString { pwrite(descriptor, $0, strlen($0), 0) }
        self.descriptor = descriptor
        return
      }
      close(descriptor)
    }
  }

  /// Removes the lock file and releases the lock (in this order, so that a server waiting
  /// on the old file sees it is gone).
  deinit {
    unlink(path)
    close(descriptor)
  }

  /// The process id written in the lock file, if one can be read.
  private static func processID(in descriptor: Int32) -> Int? {
    var bytes = [UInt8](repeating: 0, count: 32)
    let count = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, 32, 0) }
    guard count > 0 else { return nil }
    let text = String(decoding: bytes[..<count], as: UTF8.self)
    return Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
  }
}
