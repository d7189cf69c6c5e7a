import Foundation

/// A program run to its end by a test: its exit status and what it printed.
public enum ChildProcess {
  /// What a run gave: the status, standard output and standard error (both in `output`
  /// when they were merged).
  public struct Result: Sendable {
    /// The exit status (the signal's number when a signal ended it).
    public var status: Int32
    /// Standard output (and standard error, when they were merged).
    public var output: String
    /// Standard error, when kept apart.
    public var errors: String
  }

  /// Runs `executable` with `arguments` and waits for it.
  ///
  /// - Parameters:
  ///   - directory: Its working directory (the test process's by default).
  ///   - environment: Its environment (the test process's by default).
  ///   - input: What it reads as standard input: a file, or the bytes given (nothing by
  ///     default).
  ///   - mergingErrors: Whether standard error goes to `output` too, in the order printed.
  public static func run(
    _ executable: URL, _ arguments: [String], in directory: URL? = nil,
    environment: [String: String]? = nil, input: Input = .none, mergingErrors: Bool = true
  ) throws -> Result {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = directory }
    if let environment { process.environment = environment }
    // Standard error goes to a file, so that neither pipe can fill while the other is read.
    let errorFile = FileManager.default.temporaryDirectory
      .appendingPathComponent("child-errors-\(UUID().uuidString)")
    _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
    defer { try? FileManager.default.removeItem(at: errorFile) }
    let errorHandle = try FileHandle(forWritingTo: errorFile)
    defer { try? errorHandle.close() }
    let output = Pipe()
    process.standardOutput = output
    process.standardError = mergingErrors ? output : errorHandle
    var writer: Pipe?
    switch input {
    case .none: process.standardInput = FileHandle.nullDevice
    case .file(let url): process.standardInput = try FileHandle(forReadingFrom: url)
    case .bytes:
      writer = Pipe()
      process.standardInput = writer
    }
    try process.run()
    if let writer, case .bytes(let data) = input {
      // Written from another thread: a child that prints much before it reads would
      // otherwise wait on a full output pipe while we wait on its full input pipe.
      let handle = writer.fileHandleForWriting
      Thread.detachNewThread {
        handle.write(data)
        try? handle.close()
      }
    }
    let printed = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Result(
      status: process.terminationStatus, output: String(decoding: printed, as: UTF8.self),
      errors: mergingErrors
        ? "" : ((try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""))
  }

  /// What a child reads as standard input.
  public enum Input: Sendable {
    case none
    case file(URL)
    case bytes(Data)
  }

  /// A loopback TCP port that was free a moment ago (the kernel's choice for port 0).
  public static func freeLoopbackPort() throws -> Int {
    #if canImport(Glibc)
      let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
      let descriptor = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard descriptor >= 0 else { throw PortError(reason: "socket: errno \(errno)") }
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
        bind(descriptor, socketAddress, length) == 0
          && getsockname(descriptor, socketAddress, &length) == 0
      }
    }
    guard bound else { throw PortError(reason: "bind: errno \(errno)") }
    return Int(UInt16(bigEndian: address.sin_port))
  }

  /// No free port could be had.
  public struct PortError: Error, CustomStringConvertible {
    /// Why: the call that failed and its error.
    public var reason: String
    /// The error as printed.
    public var description: String { "no free loopback port: \(reason)" }
  }
}
