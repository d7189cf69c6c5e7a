/// Some incidents of a snapshot, in an order, without copies of them: what a publication
/// reads one incident at a time, so that a document of a million incidents is written in
/// bounded memory (an index per incident rather than the incidents).
///
/// An element is read from the snapshot it was selected from (which the selection keeps),
/// or from the few incidents held by value (the ended ones a delta adds, or those given as
/// an array), and is put in the selection's language when it has one.
public struct IncidentSelection: RandomAccessCollection, Sendable {
  /// The snapshot's incidents the positions refer to.
  private let stored: PersistentArray<TrafficIncident>
  /// Incidents held by value.
  private let held: [TrafficIncident]
  /// The elements in order: a position in `stored` (≥ 0), or `-1 - i` for `held[i]`.
  private var order: [Int]
  /// The language every element is put in (`TrafficIncident.localized(to:)`), if any.
  public private(set) var language: LanguageCode?

  /// A selection of the given incidents, in their order.
  public init(_ incidents: [TrafficIncident]) {
    stored = []
    held = incidents
    order = incidents.indices.map { -1 - $0 }
  }

  /// A selection of a snapshot's incidents at `positions`, followed by `extra`.
  package init(
    _ stored: PersistentArray<TrafficIncident>, positions: [Int], extra: [TrafficIncident] = []
  ) {
    self.stored = stored
    held = extra
    order = positions + extra.indices.map { -1 - $0 }
  }

  /// The first position, 0.
  public var startIndex: Int { 0 }
  /// The position after the last incident: their number.
  public var endIndex: Int { order.count }

  /// The incident at `position`, in the selection's language.
  public subscript(position: Int) -> TrafficIncident {
    let incident = unlocalized(order[position])
    return language.map { incident.localized(to: $0) } ?? incident
  }

  private func unlocalized(_ entry: Int) -> TrafficIncident {
    entry >= 0 ? stored[entry] : held[-1 - entry]
  }

  /// The same incidents with their texts in `language` (when not `nil`).
  public func localized(to language: LanguageCode?) -> IncidentSelection {
    var copy = self
    copy.language = language
    return copy
  }

  /// The same incidents ordered by original id (ties keep their order).
  ///
  /// - Complexity: O(n log n) comparisons of ids; no incident is copied.
  public func sortedByOriginalId() -> IncidentSelection {
    var copy = self
    let ids = order.map { unlocalized($0).originalId }
    let permutation = ids.indices.sorted { (ids[$0], $0) < (ids[$1], $1) }
    copy.order = permutation.map { order[$0] }
    return copy
  }

  /// The selection's incidents that satisfy `isIncluded`, in order.
  public func filtered(_ isIncluded: (TrafficIncident) -> Bool) -> IncidentSelection {
    var copy = self
    copy.order = order.filter { isIncluded(unlocalized($0)) }
    return copy
  }
}
