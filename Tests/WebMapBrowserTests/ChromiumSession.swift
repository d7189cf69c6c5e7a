import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A headless Chromium driven over the Chrome DevTools Protocol
/// (https://chromedevtools.github.io/devtools-protocol/) on `--remote-debugging-pipe`: the
/// browser reads commands from file descriptor 3 and writes answers and events to 4, each
/// message a JSON object ended by a NUL byte.
///
/// The pipe is used rather than the WebSocket of `--remote-debugging-port` because the
/// toolchain's `URLSessionWebSocketTask` needs a libcurl built with WebSocket support, which
/// Debian 12's is not ("WebSockets not supported by libcurl").
final class ChromiumSession: Sendable {
  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  private struct State {
    var nextId = 0
    var answers: [Int: Data] = [:]
    var buffer: [UInt8] = []
    var closed = false
  }

  private let pid: pid_t
  private let commandFD: Int32
  private let eventFD: Int32
  private let state = Mutex(State())

  /// The page target's session, set by `openPage()`.
  private let pageSession = Mutex<String?>(nil)

  /// Starts Chromium.
  ///
  /// - Parameters:
  ///   - executable: The browser (`/usr/bin/chromium`).
  ///   - profile: An empty folder for the profile.
  ///   - log: Where the browser's standard output and error go.
  ///   - width: The window's width, pixels.
  ///   - height: The window's height, pixels.
  /// - Throws: `Failure` when the process cannot start.
  init(executable: String, profile: URL, log: URL, width: Int, height: Int) throws {
    var toBrowser: [Int32] = [-1, -1]
    var fromBrowser: [Int32] = [-1, -1]
    guard pipe(&toBrowser) == 0, pipe(&fromBrowser) == 0 else {
      throw Failure(description: "pipe failed: errno \(errno)")
    }
    // Every end close-on-exec (the child gets only its copies on 3 and 4), and the child's
    // ends above 4 so that the dup2 calls below cannot clobber them.
    let childRead = fcntl(toBrowser[0], F_DUPFD_CLOEXEC, 10)
    let childWrite = fcntl(fromBrowser[1], F_DUPFD_CLOEXEC, 10)
    close(toBrowser[0])
    close(fromBrowser[1])
    _ = fcntl(toBrowser[1], F_SETFD, FD_CLOEXEC)
    _ = fcntl(fromBrowser[0], F_SETFD, FD_CLOEXEC)
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, log.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    posix_spawn_file_actions_adddup2(&actions, childRead, 3)
    posix_spawn_file_actions_adddup2(&actions, childWrite, 4)
    let arguments = [
      executable, "--headless=new", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
      "--user-data-dir=\(profile.path)", "--window-size=\(width),\(height)",
      "--force-device-scale-factor=1", "--hide-scrollbars", "--mute-audio", "--no-first-run",
      "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
      "--disable-sync", "--disable-dev-shm-usage", "about:blank",
    ]
    var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var child: pid_t = 0
    let status = posix_spawn(&child, executable, &actions, nil, &argv, environ)
    close(childRead)
    close(childWrite)
    guard status == 0 else {
      close(toBrowser[1])
      close(fromBrowser[0])
      throw Failure(description: "cannot start \(executable): posix_spawn error \(status)")
    }
    pid = child
    commandFD = toBrowser[1]
    eventFD = fromBrowser[0]
    let reader = Thread { [self] in readLoop() }
    reader.start()
  }

  deinit {
    close(commandFD)
  }

  /// Stops the browser and waits for it.
  func terminate() {
    kill(pid, SIGKILL)
    var status: Int32 = 0
    waitpid(pid, &status, 0)
  }

  private func readLoop() {
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while true {
      let count = chunk.withUnsafeMutableBytes { read(eventFD, $0.baseAddress, $0.count) }
      if count <= 0 { break }
      state.withLock { state in
        state.buffer.append(contentsOf: chunk[0..<count])
        while let end = state.buffer.firstIndex(of: 0) {
          let message = Data(state.buffer[..<end])
          state.buffer.removeSubrange(...end)
          if let object = try? JSONSerialization.jsonObject(with: message) as? [String: Any],
            let id = object["id"] as? Int
          {
            state.answers[id] = message
          }
        }
      }
    }
    close(eventFD)
    state.withLock { $0.closed = true }
  }

  /// Sends a command and waits for its answer.
  ///
  /// - Parameters:
  ///   - method: The protocol method, e.g. `Page.navigate`.
  ///   - parameters: Its parameters (JSON values).
  ///   - onPage: Whether the command goes to the page's session (else to the browser).
  ///   - timeoutSeconds: The longest wait.
  /// - Returns: The answer's `result`.
  /// - Throws: `Failure` for an error answer, a timeout or a closed browser.
  @discardableResult
  func send(
    _ method: String, _ parameters: [String: Any] = [:], onPage: Bool = true,
    timeoutSeconds: Double = 10
  ) async throws -> [String: Any] {
    let id = state.withLock { state in
      state.nextId += 1
      return state.nextId
    }
    var message: [String: Any] = ["id": id, "method": method, "params": parameters]
    if onPage {
      guard let session = pageSession.withLock({ $0 }) else {
        throw Failure(description: "\(method): no page is open")
      }
      message["sessionId"] = session
    }
    var bytes = [UInt8](try JSONSerialization.data(withJSONObject: message))
    bytes.append(0)
    var offset = 0
    while offset < bytes.count {
      let written = bytes[offset...].withUnsafeBytes {
        write(commandFD, $0.baseAddress, $0.count)
      }
      guard written > 0 else { throw Failure(description: "\(method): the browser is gone") }
      offset += written
    }
    let deadline = ContinuousClock.now + .milliseconds(Int(timeoutSeconds * 1000))
    while true {
      let (answer, closed) = state.withLock { state in
        (state.answers.removeValue(forKey: id), state.closed)
      }
      if let answer {
        let object = try JSONSerialization.jsonObject(with: answer) as? [String: Any] ?? [:]
        if let error = object["error"] as? [String: Any] {
          throw Failure(description: "\(method) failed: \(error)")
        }
        return object["result"] as? [String: Any] ?? [:]
      }
      if closed { throw Failure(description: "\(method): the browser closed the pipe") }
      guard ContinuousClock.now < deadline else {
        throw Failure(description: "\(method): no answer within \(timeoutSeconds) s")
      }
      try await Task.sleep(for: .milliseconds(5))
    }
  }

  /// Opens a page target of `width` × `height` CSS pixels and attaches to it.
  func openPage(width: Int, height: Int) async throws {
    let created = try await send(
      "Target.createTarget", ["url": "about:blank"], onPage: false, timeoutSeconds: 20)
    guard let target = created["targetId"] as? String else {
      throw Failure(description: "Target.createTarget gave no targetId: \(created)")
    }
    let attached = try await send(
      "Target.attachToTarget", ["targetId": target, "flatten": true], onPage: false)
    guard let session = attached["sessionId"] as? String else {
      throw Failure(description: "Target.attachToTarget gave no sessionId: \(attached)")
    }
    pageSession.withLock { $0 = session }
    try await send("Page.enable")
    try await send("Runtime.enable")
    try await send(
      "Emulation.setDeviceMetricsOverride",
      ["width": width, "height": height, "deviceScaleFactor": 1, "mobile": false])
  }

  /// Evaluates a JavaScript expression in the page, awaiting a promise, and returns its
  /// value as JSON.
  ///
  /// - Throws: `Failure` when the expression throws.
  func evaluate(_ expression: String) async throws -> Any? {
    let result = try await send(
      "Runtime.evaluate",
      ["expression": expression, "returnByValue": true, "awaitPromise": true])
    if let exception = result["exceptionDetails"] {
      throw Failure(description: "\(expression) threw \(exception)")
    }
    return (result["result"] as? [String: Any])?["value"]
  }

  /// Waits until an expression is truthy.
  ///
  /// - Throws: `Failure` naming `what` when it stays falsy for `timeoutSeconds`.
  func waitFor(
    _ expression: String, what: String, timeoutSeconds: Double = 15
  ) async throws {
    let deadline = ContinuousClock.now + .milliseconds(Int(timeoutSeconds * 1000))
    while ContinuousClock.now < deadline {
      if let value = try await evaluate("!!(\(expression))") as? Bool, value { return }
      try await Task.sleep(for: .milliseconds(100))
    }
    throw Failure(description: "timed out after \(timeoutSeconds) s waiting for \(what)")
  }

  /// Clicks with the left button at a point of the page, in CSS pixels.
  func click(x: Double, y: Double) async throws {
    try await send("Input.dispatchMouseEvent", ["type": "mouseMoved", "x": x, "y": y])
    for type in ["mousePressed", "mouseReleased"] {
      try await send(
        "Input.dispatchMouseEvent",
        ["type": type, "x": x, "y": y, "button": "left", "clickCount": 1])
    }
  }

  /// A PNG of the page's viewport.
  func screenshot() async throws -> Data {
    let result = try await send("Page.captureScreenshot", ["format": "png"], timeoutSeconds: 20)
    guard let text = result["data"] as? String, let data = Data(base64Encoded: text) else {
      throw Failure(description: "Page.captureScreenshot gave no image")
    }
    return data
  }
}
