import Foundation
import Roads

extension FlowState.Persisted {
  /// The times one vehicle reported, as the probe ledger keeps them (see `ProbeLedger`).
  package struct Ledger: Hashable, Sendable, Codable {
    /// The vehicle.
    package var vehicleID: String
    /// Its spans of reported times, ascending and disjoint.
    package var spans: [LedgerSpan]

    /// Creates a vehicle's ledger.
    package init(vehicleID: String, spans: [LedgerSpan]) {
      self.vehicleID = vehicleID
      self.spans = spans
    }
  }

  /// Checks that vehicles are in ascending order and each one's spans ascending and disjoint.
  ///
  /// - Throws: `TrafficEngineError.invalidConfiguration` naming the first bad vehicle.
  func validateLedger() throws(TrafficEngineError) {
    var previous: String?
    for entry in ledger {
      guard previous.map({ $0 < entry.vehicleID }) ?? true, !entry.spans.isEmpty,
        zip(entry.spans.dropFirst(), entry.spans).allSatisfy({ $0.first > $1.last })
      else {
        throw .invalidConfiguration(
          "the stored flow state is damaged: the probe ledger of vehicle "
            + "\(entry.vehicleID.debugDescription) is out of order")
      }
      previous = entry.vehicleID
    }
  }
}
