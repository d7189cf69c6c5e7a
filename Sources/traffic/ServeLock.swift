import Foundation

/// The claim of one `traffic serve` on its SQLite store: an exclusive `flock(2)` on
/// `STORE.lock` beside the store file, taken at start and held until the server stops, so that
/// a second server on the same file (whose snapshot would diverge from the first's) is
/// refused. The file holds the holder's process id and command, for a refusal to name them.
///
/// `flock` locks are the kernel's and never meet SQLite's `fcntl` locks (nor would closing
/// the lock file drop those, as closing a descriptor of the store itself would). The imports
/// of probes, profiles and a network take it too, while they run: a server holds the
/// store's flow in memory and writes it back when it stops, over what such an import saved
/// (measured: a probes import's learned free flow gone once the server stopped). Incident
/// imports do not take it: their rows stay, for the next server's start. A server that dies
/// leaves the file behind, unlocked: the next server takes it over. The store file itself
/// (when it exists) is locked too, by its inode: a hard link names another lock file.
final class ServeLock {
  /// Who takes the lock, and what the refusal says when a server holds it.
  enum Taker {
    /// `traffic serve`.
    case server
    /// A command that writes what the server holds in memory, and what to do instead.
    case importer(command: String, instead: String)

    /// The command, as the lock file names it for a refusal.
    var command: String {
      switch self {
      case .server: ServeLock.serverCommand
      case .importer(let command, _): command
      }
    }
  }

  /// The lock file.
  let path: String
  private let descriptor: Int32
  /// A descriptor of the store file itself, locked too (`flock`, by its inode): a hard link
  /// to the store names another lock file beside it, and a second server took that one.
  /// Never closed: closing a descriptor of the store would drop the `fcntl` locks SQLite
  /// holds on it in this process; the lock is released with `LOCK_UN`.
  private let storeDescriptor: Int32?

  /// Takes the lock of the store at `store`.
  ///
  /// - Throws: `UsageError` naming the store and the server holding it (its process id when
  ///   known), or why the lock file cannot be made.
  init(store: String, for taker: Taker = .server) throws(UsageError) {
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
        let (holder, holderCommand) = Self.holder(in: descriptor)
        close(descriptor)
        guard failure == EWOULDBLOCK else {
          let reason = String(cString: strerror(failure)).lowercased()
          throw UsageError("cannot lock \(path) for \(store): \(reason)")
        }
        throw Self.refusal(of: taker, store: store, holder: holder, command: holderCommand)
      }
      // The holder before may have removed the file between our open and our lock: then
      // the lock is on a file no one else will find, and the one at the path is taken again.
      var held = stat()
      var named = stat()
      if fstat(descriptor, &held) == 0, stat(path, &named) == 0, held.st_dev == named.st_dev,
        held.st_ino == named.st_ino
      {
        // The store under another name (a hard link): its inode is locked too. A store not
        // made yet has no other name.
        let file = open(
          URL(fileURLWithPath: store).resolvingSymlinksInPath().path, O_RDONLY | O_CLOEXEC)
        if file >= 0, flock(file, LOCK_EX | LOCK_NB) != 0 {
          // Left open (see `storeDescriptor`); the lock file is given up.
          unlink(path)
          close(descriptor)
          throw Self.refusal(of: taker, store: store, holder: nil, command: nil, linked: true)
        }
        let text = "\(getpid())\n\(taker.command)\n"
        _ = ftruncate(descriptor, 0)
        _ = text.withCString { pwrite(descriptor, $0, strlen($0), 0) }
        self.descriptor = descriptor
        self.storeDescriptor = file >= 0 ? file : nil
        return
      }
      close(descriptor)
    }
  }

  /// The process id of the `traffic serve` holding the store at `store` (0 when its lock
  /// file names none), or `nil` when no server holds it. Takes nothing: the lock is tried
  /// shared and released at once.
  static func server(holding store: String) -> Int? {
    let path = URL(fileURLWithPath: store).resolvingSymlinksInPath().path + ".lock"
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    if flock(descriptor, LOCK_SH | LOCK_NB) == 0 {
      flock(descriptor, LOCK_UN)
      return nil
    }
    guard errno == EWOULDBLOCK else { return nil }
    let (pid, command) = holder(in: descriptor)
    guard command == nil || command == serverCommand else { return nil }
    return pid ?? 0
  }

  /// Removes the lock file and releases the lock (in this order, so that a server waiting
  /// on the old file sees it is gone).
  deinit {
    unlink(path)
    close(descriptor)
    if let storeDescriptor { flock(storeDescriptor, LOCK_UN) }
  }

  /// Why `taker` cannot have the store while another process holds it.
  private static func refusal(
    of taker: Taker, store: String, holder: Int?, command: String?, linked: Bool = false
  ) -> UsageError {
    let pid =
      holder.map { " (pid \($0))" }
      ?? (linked ? " under another name of the same file (a hard link)" : "")
    // Files of older servers name no command.
    let served = command == nil || command == serverCommand
    switch taker {
    case .server where served:
      return UsageError(
        "\(store) is in use by another traffic serve\(pid); run one traffic serve per store "
          + "file (several nodes share a PostgreSQL store)")
    case .server:
      return UsageError(
        "\(store) is being written by \(command ?? "")\(pid); start the server once it has "
          + "finished")
    case .importer(let own, let instead) where served:
      return UsageError(
        "\(store) is served by traffic serve\(pid), which keeps its flow in memory and writes "
          + "it back when it stops, over what \(own) would save; \(instead)")
    case .importer:
      return UsageError(
        "\(store) is being written by \(command ?? "")\(pid); run one import at a time")
    }
  }

  /// The command a server's lock file names.
  static let serverCommand = "traffic serve"

  /// The process id and command written in the lock file (`PID\nCOMMAND\n`), each if it
  /// can be read (files of older servers hold the process id alone).
  private static func holder(in descriptor: Int32) -> (Int?, String?) {
    var bytes = [UInt8](repeating: 0, count: 128)
    let count = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, 128, 0) }
    guard count > 0 else { return (nil, nil) }
    let lines = String(decoding: bytes[..<count], as: UTF8.self).split(separator: "\n")
    let pid = lines.first.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    return (pid, lines.count > 1 ? String(lines[1]) : nil)
  }
}
