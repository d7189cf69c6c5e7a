import Codec
import Foundation
import Roads

extension FlowStateCoder {
  /// The row of one vehicle's probe ledger (`probe_ledger.spans`; see `ProbeLedger`), times
  /// in milliseconds since 1970:
  ///
  /// ```
  /// ledger:  version 1 | span count | (zigzag first, last - first, step,
  ///          offset count, offset differences…)…
  /// ```
  ///
  /// A regular span has no offsets; an irregular one lists the differences between its
  /// consecutive offsets (the first offset, 0, is not written).
  ///
  /// - Complexity: O(s + n) for s spans and n times of irregular spans.
  package static func ledger(_ spans: [LedgerSpan]) -> Data {
    var writer = BinaryWriter(capacity: 2 + 12 * spans.count)
    writer.byte(version)
    writer.count(spans.count)
    for span in spans {
      writer.signedVarint(span.first)
      writer.varint(UInt64(span.last - span.first))
      writer.varint(UInt64(span.step))
      writer.count(max(0, span.offsets.count - 1))
      var previous: UInt32 = 0
      for offset in span.offsets.dropFirst() {
        writer.varint(UInt64(offset - previous))
        previous = offset
      }
    }
    return writer.data
  }

  /// Reads a vehicle's probe ledger, checking that its spans are consistent, ascending and
  /// disjoint.
  ///
  /// - Throws: `BinaryDataError` naming `name` for damaged bytes or spans.
  package static func ledger(
    _ bytes: ArraySlice<UInt8>, name: String
  ) throws(BinaryDataError) -> [LedgerSpan] {
    var reader = BinaryReader(bytes: Array(bytes), name: name)
    let found = try reader.byte()
    guard found == version else { throw reader.failure("unknown ledger version \(found)") }
    let count = try reader.count(bytesPerItem: 4, "ledger spans")
    var spans: [LedgerSpan] = []
    spans.reserveCapacity(count)
    for _ in 0..<count {
      let first = try reader.signedVarint()
      let length = try reader.varint()
      let step = try reader.varint()
      let offsetCount = try reader.count(bytesPerItem: 1, "ledger times")
      guard length < 1 << 40, step < 1 << 40 else {
        throw reader.failure("a ledger span of \(length) ms, step \(step) ms")
      }
      var offsets: [UInt32] = []
      if offsetCount > 0 {
        offsets.reserveCapacity(offsetCount + 1)
        offsets.append(0)
        var offset: UInt64 = 0
        for _ in 0..<offsetCount {
          offset += try reader.varint()
          guard offset <= UInt64(UInt32.max) else { throw reader.failure("a ledger time") }
          offsets.append(UInt32(offset))
        }
      }
      let span: LedgerSpan
      do {
        span = try LedgerSpan(
          first: first, last: first + Int64(length), step: Int64(step), offsets: offsets)
      } catch {
        throw reader.failure(error.description)
      }
      guard spans.last.map({ $0.last < span.first }) ?? true else {
        throw reader.failure("ledger spans out of order")
      }
      spans.append(span)
    }
    guard reader.isAtEnd else { throw reader.failure("data after the ledger") }
    return spans
  }

  /// Writes the ledger part of a whole state (`state(_:)`, version 3).
  static func writeLedger(_ ledger: [FlowState.Persisted.Ledger], to writer: inout BinaryWriter) {
    writer.count(ledger.count)
    for entry in ledger {
      let bytes = self.ledger(entry.spans)
      writer.string(entry.vehicleID)
      writer.count(bytes.count)
      writer.raw(bytes)
    }
  }

  /// Reads the ledger part of a whole state.
  static func readLedger(
    _ reader: inout BinaryReader, name: String
  ) throws(BinaryDataError) -> [FlowState.Persisted.Ledger] {
    let count = try reader.count(bytesPerItem: 3, "ledger vehicles")
    var ledger: [FlowState.Persisted.Ledger] = []
    ledger.reserveCapacity(count)
    for _ in 0..<count {
      let vehicleID = try reader.string()
      guard ledger.last.map({ $0.vehicleID < vehicleID }) ?? true else {
        throw reader.failure("ledger of vehicle \(vehicleID.debugDescription) out of order")
      }
      let length = try reader.count(bytesPerItem: 1, "ledger bytes")
      let spans = try self.ledger(
        try reader.raw(length), name: "the probe ledger of \(vehicleID.debugDescription) of \(name)"
      )
      ledger.append(FlowState.Persisted.Ledger(vehicleID: vehicleID, spans: spans))
    }
    return ledger
  }
}
