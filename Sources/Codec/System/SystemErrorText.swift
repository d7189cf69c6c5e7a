import Foundation

/// The words users see when a file or process operation fails: the system's reason
/// (`strerror`) where Foundation kept it, else a few words of ours, never Foundation's own
/// texts ("NSCocoaErrorDomain error 512", whole `Error Domain=… UserInfo={…}` dumps).
package enum SystemErrorText {
  /// The error as users read it: its own description when it is one of this project's
  /// errors, else (a Foundation error that escaped) `reason(_:)`.
  package static func describe(_ error: any Error) -> String {
    let text = String(describing: error)
    let isFoundations =
      text.contains("Error Domain=") || text.hasPrefix("CocoaError")
      || text.hasPrefix("URLError") || text.hasPrefix("POSIXError")
    return isFoundations ? reason(error) : text
  }

  /// Why an operation on the file `path` failed, in a few plain words: "is a directory"
  /// for a directory (Foundation's reads give no reason for one), else `reason(_:)`.
  package static func reason(_ error: any Error, path: String) -> String {
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory),
      isDirectory.boolValue
    {
      return "is a directory, not a file"
    }
    return reason(error)
  }

  /// Why a file operation failed, in a few plain words: the system's reason (`strerror`)
  /// where Foundation kept it, else one of ours, never Foundation's own text.
  package static func reason(_ error: any Error) -> String {
    let error = error as NSError
    if error.domain == NSPOSIXErrorDomain { return describe(errno: Int32(error.code)) }
    if let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError,
      underlying.domain == NSPOSIXErrorDomain
    {
      return describe(errno: Int32(underlying.code))
    }
    if error.domain == NSURLErrorDomain { return network(error.code) }
    guard error.domain == NSCocoaErrorDomain else { return "failed (error \(error.code))" }
    switch CocoaError.Code(rawValue: error.code) {
    case .fileNoSuchFile, .fileReadNoSuchFile: return "no such file"
    case .fileReadNoPermission, .fileWriteNoPermission: return "permission denied"
    case .fileWriteOutOfSpace: return "no space left on the device"
    case .fileWriteVolumeReadOnly: return "the file system is read-only"
    case .fileWriteFileExists: return "a file of that name exists"
    case .fileReadInapplicableStringEncoding, .fileReadUnknownStringEncoding:
      return "not UTF-8 text"
    case .fileReadTooLarge: return "too large to read"
    // Foundation's String(contentsOf:encoding:) on bytes that are not of the encoding.
    case .fileReadCorruptFile: return "not UTF-8 text"
    case .fileReadUnknown: return "cannot be read"
    case .fileWriteUnknown: return "cannot be written"
    default: return "failed (error \(error.code))"
    }
  }

  /// Why a request over the network failed (URLSession's error codes).
  static func network(_ code: Int) -> String {
    switch URLError.Code(rawValue: code) {
    case .cannotConnectToHost: return "connection refused"
    case .timedOut: return "timed out"
    case .cannotFindHost, .dnsLookupFailed: return "host not found"
    case .networkConnectionLost: return "the connection was lost"
    case .notConnectedToInternet: return "no network"
    case .badURL, .unsupportedURL: return "not a URL it can fetch (http or https)"
    case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
      .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot:
      return "the TLS connection failed"
    case .badServerResponse: return "the server's answer was not HTTP"
    case .cancelled: return "cancelled"
    default: return "failed (network error \(code))"
    }
  }

  /// The system's words for an `errno` value, lower-cased as in our other messages.
  package static func describe(errno code: Int32) -> String {
    guard let text = strerror(code) else { return "system error \(code)" }
    let words = String(cString: text)
    return words.prefix(1).lowercased() + words.dropFirst()
  }
}
