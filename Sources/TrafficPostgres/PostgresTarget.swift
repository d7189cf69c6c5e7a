import CLibPQ
import Foundation
import Traffic

/// A connection string with what may be said about it: the server and database it names for
/// messages, and the password, which no message may contain.
struct PostgresTarget: Sendable {
  /// The connection string as given (a `postgresql://` URL or `key=value` pairs).
  let connectionString: String
  /// "host:port/database as user", without the password, for messages.
  let displayName: String
  /// Passwords found in the string (as written and percent-decoded), removed from messages.
  private let secrets: [String]
  /// Told of every connection attempt's outcome (the store's), when set.
  var health: PostgresConnectionHealth?

  /// Reads the connection string with libpq's own parser.
  ///
  /// - Throws: `TrafficStoreError.cannotOpen` with libpq's reason (password removed) when
  ///   the string is malformed.
  init(_ connectionString: String) throws(TrafficStoreError) {
    // libpq reads an empty string as every default (the local socket, the user's name),
    // which nobody means by giving one.
    guard !connectionString.trimmed.isEmpty else {
      throw .cannotOpen(
        "the PostgreSQL connection string is empty; give postgresql://USER@HOST:PORT/DATABASE")
    }
    self.connectionString = connectionString
    var secrets = PostgresTarget.passwordsWritten(in: connectionString)
    var message: UnsafeMutablePointer<CChar>?
    guard let options = PQconninfoParse(connectionString, &message) else {
      let reason = message.map { String(cString: $0) } ?? "out of memory"
      PQfreemem(message)
      self.secrets = secrets
      self.displayName = "?"
      throw .cannotOpen(
        "invalid PostgreSQL connection string: \(redact(reason.trimmed, secrets))")
    }
    defer { PQconninfoFree(options) }
    var values: [String: String] = [:]
    var option = options
    while let keyword = option.pointee.keyword {
      if let value = option.pointee.val {
        values[String(cString: keyword)] = String(cString: value)
      }
      option += 1
    }
    if let password = values["password"], !password.isEmpty { secrets.append(password) }
    self.secrets = secrets
    let host = values["host"] ?? values["hostaddr"] ?? "the local socket"
    let port = values["port"].map { ":\($0)" } ?? ""
    let database = values["dbname"].map { "/\($0)" } ?? ""
    let user = values["user"].map { " as \($0)" } ?? ""
    displayName = redact("PostgreSQL at \(host)\(port)\(database)\(user)", secrets)
  }

  /// `message` with every password of the connection string replaced by `***`.
  func redacted(_ message: String) -> String { redact(message, secrets) }

  /// Passwords as a URL (`user:password@`, `?password=`) or a key/value string
  /// (`password=...`) writes them, found without libpq so that even a string libpq rejects
  /// has its password removed from the rejection.
  private static func passwordsWritten(in string: String) -> [String] {
    var found: [String] = []
    if let scheme = string.range(of: "://") {
      let rest = string[scheme.upperBound...]
      let authority = rest.prefix { $0 != "/" && $0 != "?" }
      if let at = authority.lastIndex(of: "@") {
        let userInfo = authority[..<at]
        if let colon = userInfo.firstIndex(of: ":") {
          found.append(String(userInfo[userInfo.index(after: colon)...]))
        }
      }
    }
    var searchStart = string.startIndex
    while let key = string.range(of: "password", range: searchStart..<string.endIndex) {
      searchStart = key.upperBound
      var index = key.upperBound
      while index < string.endIndex, string[index] == " " { index = string.index(after: index) }
      guard index < string.endIndex, string[index] == "=" else { continue }
      index = string.index(after: index)
      while index < string.endIndex, string[index] == " " { index = string.index(after: index) }
      let quoted = index < string.endIndex && string[index] == "'"
      if quoted { index = string.index(after: index) }
      let value = string[index...].prefix { character in
        quoted ? character != "'" : !(character == " " || character == "&")
      }
      found.append(String(value))
    }
    let decoded = found.compactMap { $0.removingPercentEncoding }
    return (found + decoded).filter { !$0.isEmpty }
  }
}

private func redact(_ message: String, _ secrets: [String]) -> String {
  // Longest first, so that a password containing another one is removed whole.
  secrets.sorted { $0.count > $1.count }.reduce(message) {
    $0.replacingOccurrences(of: $1, with: "***")
  }
}

extension String {
  /// On one line, without the trailing newline libpq ends its messages with: its lines
  /// (`...Connection refused` / `\tIs the server running...`, `ERROR: ...` / `HINT: ...`)
  /// joined by spaces, as every message of the command line is one line.
  var trimmed: String {
    split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
      .filter { !$0.isEmpty }.joined(separator: " ")
  }
}
