import Foundation
import Synchronization

/// The port a `traffic serve` child process listens on, read from its standard output
/// ("listening on http://127.0.0.1:PORT") as it prints it.
public final class ListeningLine: Sendable {
  /// What the handler and the readers share.
  private final class State: Sendable {
    let seen = Mutex("")
    let ports = AsyncStream<Int>.makeStream()
  }
  private let state = State()

  /// Watches `pipe`, which the process writes its standard output (and maybe error) to.
  public init(_ pipe: Pipe) {
    let state = state
    pipe.fileHandleForReading.readabilityHandler = { handle in
      let chunk = handle.availableData
      if chunk.isEmpty {
        state.ports.continuation.finish()
        return
      }
      let text = state.seen.withLock { text -> String in
        text += String(decoding: chunk, as: UTF8.self)
        return text
      }
      if let range = text.range(of: "listening on http://127.0.0.1:") {
        if let port = Int(text[range.upperBound...].prefix { $0.isNumber }) {
          state.ports.continuation.yield(port)
        }
        state.ports.continuation.finish()
      }
    }
  }

  /// Everything the process printed so far.
  public var printed: String { state.seen.withLock { $0 } }

  /// The port, once the line is printed; `nil` when the output ended without it.
  public func port() async -> Int? {
    for await port in state.ports.stream { return port }
    return nil
  }
}
