import Foundation

/// Why a probe row was not accepted.
public enum ProbeRejectionReason: String, CaseIterable, Hashable, Sendable, Codable {
  /// The row could not be read: a missing field, a number or time that does not parse.
  case unparseable
  /// A value is outside its range: latitude beyond ±90, longitude beyond ±180, a negative
  /// or impossible speed, a heading outside 0...360, a negative accuracy.
  case outOfRange
  /// The time lies further in the future than the allowed clock skew.
  case timeInFuture
  /// The same vehicle already reported a position at the same time (in this document, or in
  /// any batch ingested into the store before).
  case duplicate
  /// The time lies inside a span of time its vehicle already reported, at a time it did not
  /// report (a finer recording of a trip already counted); given by the engine, not the
  /// decoders (see `ProbeLedger`).
  case outOfOrder

  /// The name `POST /v1/probes` and `traffic probes import` give the reason (API.md): the
  /// case name, except `future` for ``timeInFuture``.
  public var wireName: String {
    switch self {
    case .timeInFuture: return "future"
    default: return rawValue
    }
  }
}

/// One rejected row, for messages.
public struct ProbeRejection: Hashable, Sendable {
  /// The 1-based line of the row in the document.
  public let line: Int
  /// Why it was rejected.
  public let reason: ProbeRejectionReason
  /// What was wrong, for people.
  public let detail: String

  /// Creates a rejection.
  public init(line: Int, reason: ProbeRejectionReason, detail: String) {
    self.line = line
    self.reason = reason
    self.detail = detail
  }
}

/// The probes read from one document, with what was rejected and why.
public struct ProbeBatch: Sendable {
  /// The accepted probes, in document order.
  public var probes: [Probe]
  /// The number of rejected rows per reason (reasons with none are absent).
  public var rejectedCounts: [ProbeRejectionReason: Int]
  /// The first rejected rows (at most the decoder's `maxRejectionDetails`), for messages.
  public var rejections: [ProbeRejection]

  /// Creates a batch.
  public init(
    probes: [Probe] = [], rejectedCounts: [ProbeRejectionReason: Int] = [:],
    rejections: [ProbeRejection] = []
  ) {
    self.probes = probes
    self.rejectedCounts = rejectedCounts
    self.rejections = rejections
  }

  /// The number of accepted probes.
  public var acceptedCount: Int { probes.count }

  /// The number of rejected rows.
  public var rejectedCount: Int { rejectedCounts.values.reduce(0, +) }
}
