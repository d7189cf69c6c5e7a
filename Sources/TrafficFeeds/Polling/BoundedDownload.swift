import Codec
import Foundation
import Synchronization

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// One HTTP download to a file, bounded in time and size as a polled feed's fetch must be:
/// the whole fetch (not only each wait for a byte, which is all a session's timeouts bound
/// here) ends after `timeoutInSeconds`, and a body announced (`Content-Length`) or received
/// beyond `maximumBytes` ends it at once. A server that sends its body one byte at a time,
/// or announces 200 MB, no longer holds a feed's loop.
final class BoundedDownload: NSObject, URLSessionDownloadDelegate, @unchecked Sendable {
  /// Why a download ended without a document.
  enum Failure: Error, CustomStringConvertible {
    case timedOut(Double)
    case tooLarge(bytes: Int64, limit: Int)
    case transport(any Error)

    var description: String {
      switch self {
      case .timedOut(let seconds):
        return "fetch failed: not done within \(Int(seconds)) s"
      case .tooLarge(let bytes, let limit):
        return "the document has \(bytes) bytes, more than the limit \(limit)"
      case .transport(let error):
        return "fetch failed: \(SystemErrorText.reason(error))"
      }
    }
  }

  private struct State {
    var continuation: CheckedContinuation<(file: URL, response: URLResponse), any Error>?
    var file: URL?
    var failure: Failure?
    var task: URLSessionDownloadTask?
  }

  private let maximumBytes: Int
  private let state = Mutex(State())

  private init(maximumBytes: Int) {
    self.maximumBytes = maximumBytes
  }

  /// Downloads `request` to a temporary file (the caller removes it).
  ///
  /// - Returns: The file and the response (for a `304`, an empty file).
  /// - Throws: ``Failure``; a cancelled task's download is cancelled too.
  static func fetch(
    _ request: URLRequest, configuration: URLSessionConfiguration, timeoutInSeconds: Double,
    maximumBytes: Int
  ) async throws(Failure) -> (file: URL, response: URLResponse) {
    let download = BoundedDownload(maximumBytes: maximumBytes)
    let session = URLSession(configuration: configuration, delegate: download, delegateQueue: nil)
    defer { session.finishTasksAndInvalidate() }
    do {
      return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
          let task = session.downloadTask(with: request)
          download.state.withLock {
            $0.continuation = continuation
            $0.task = task
          }
          task.resume()
          DispatchQueue.global().asyncAfter(deadline: .now() + timeoutInSeconds) {
            download.cancel(because: .timedOut(timeoutInSeconds))
          }
        }
      } onCancel: {
        download.cancel(because: .transport(CancellationError()))
      }
    } catch let failure as Failure {
      throw failure
    } catch {
      throw .transport(error)
    }
  }

  /// Ends the download with `failure`, unless it ended already.
  private func cancel(because failure: Failure) {
    let task = state.withLock { state -> URLSessionDownloadTask? in
      guard state.continuation != nil, state.failure == nil else { return nil }
      state.failure = failure
      return state.task
    }
    task?.cancel()
  }

  func urlSession(
    _ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64,
    totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64
  ) {
    if totalBytesExpectedToWrite > Int64(maximumBytes) {
      cancel(because: .tooLarge(bytes: totalBytesExpectedToWrite, limit: maximumBytes))
    } else if totalBytesWritten > Int64(maximumBytes) {
      cancel(because: .tooLarge(bytes: totalBytesWritten, limit: maximumBytes))
    }
  }

  func urlSession(
    _ session: URLSession, downloadTask: URLSessionDownloadTask,
    didFinishDownloadingTo location: URL
  ) {
    // The file is removed when this returns: it is moved aside first.
    let kept = FileManager.default.temporaryDirectory.appendingPathComponent(
      "traffic-feed-\(UUID().uuidString)")
    do {
      try FileManager.default.moveItem(at: location, to: kept)
      state.withLock { $0.file = kept }
    } catch {
      cancel(because: .transport(error))
    }
  }

  func urlSession(
    _ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?
  ) {
    let (continuation, file, failure) = state.withLock { state in
      defer { state.continuation = nil }
      return (state.continuation, state.file, state.failure)
    }
    guard let continuation else { return }
    if let failure {
      if let file { try? FileManager.default.removeItem(at: file) }
      continuation.resume(throwing: failure)
    } else if let error {
      if let file { try? FileManager.default.removeItem(at: file) }
      continuation.resume(throwing: Failure.transport(error))
    } else if let response = task.response {
      // No body written (a 304, an empty document): an empty file.
      let made =
        file
        ?? FileManager.default.temporaryDirectory.appendingPathComponent(
          "traffic-feed-\(UUID().uuidString)")
      if file == nil { FileManager.default.createFile(atPath: made.path, contents: Data()) }
      continuation.resume(returning: (made, response))
    } else {
      continuation.resume(
        throwing: Failure.transport(URLError(.badServerResponse)))
    }
  }
}
