import Codec
import Foundation

/// The HERE Traffic API v7 incidents response, written and read.
///
/// The shape (HERE Traffic API v7 developer guide, "Request incident data" and "Request
/// incident by ID"; see `API.md` of this project):
///
/// ```
/// {"sourceUpdated": "2021-07-06T10:22:01Z", "results": [
///   {"location": {"length": 376, "description"?: "A1",
///                 "shape": {"links": [{"points": [{"lat": 53.9, "lng": 13.04}, ...],
///                                      "length": 13}]}},
///    "incidentDetails": {"id", "originalId", "parentId"?, "startTime"?, "endTime"?,
///      "entryTime"?, "roadClosed", "criticality"?, "type"?, "codes"?,
///      "description": {"value", "language"}, "summary": {"value", "language"},
///      "junctionTraversability", "vehicleRestrictions"?}}]}
/// ```
///
/// Location references (v7 `locationReferencing`, ``LocationReferencing``): `shape` writes
/// `location.shape`; `olr` writes `location.olr`, the incident's binary OpenLR reference in
/// base64, when it has one; `tmc` writes `location.tmc` in HERE's shape when it has a TMC
/// reference:
///
/// ```
/// "tmc": {"extendedCountryCode"?: "E0", "ebuCountryCode": "D", "tableId": "1",
///         "tableVersion"?: "11.0", "locationId": "10429", "secondaryLocationId"?: "10430",
///         "queuingDirection"?: "+" | "-" | "both", "extent"?: 1, "primaryOffset"?: 0.0,
///         "secondaryOffset"?: 0.0, "affectedLength"?: 634.0}
/// ```
///
/// `tableVersion`, `secondaryLocationId`, `secondaryOffset`, the value `both` and
/// `additionalTmc` (an array of further such objects when an incident has more than one TMC
/// reference) are this project's additions; HERE's documented members keep HERE's meaning.
/// Reading, a result without `shape` is placed by its `olr` when that decodes (the reference
/// points joined, see `OpenLR.Location.approximatePolyline`).
///
/// A lookup by id (`GET /v7/incidents/{originalId}`) answers one result object alone
/// (`{"location", "incidentDetails"}`), as HERE's does.
///
/// Choices where v7 has no word for a value of the model, made so that every field
/// round-trips:
/// - `type` `unknown` and `criticality` `unknown` (no v7 names) are left out; a result
///   without them reads back as `unknown`. Unknown type names read as `unknown`.
/// - Open start or end times, and an unknown entry time, are left out.
/// - Each polyline of the location (main, then additional) is one link; reading, a link
///   that begins where the previous one ended continues it (HERE splits one path into many
///   links), otherwise it starts an additional polyline. A point incident is a link of two
///   identical points. Link lengths are written to 0.1 m for clients (ellipsoidal local-plane
///   approximation, `fastDistance`); `location.length` is the model's length, written exactly.
/// - `vehicleRestrictions` is an array, one object per restricted vehicle category:
///   `{"vehicleType": "truck", "restrictedIfGrossWeightMoreThanInKilograms": 7500, ...}`
///   with the HERE SDK's field names (`VehicleRestriction`), in category order, writing only
///   the rules that are set. HERE's public v7 documentation does not show this member's
///   layout; this is this project's.
/// - Times are RFC 3339 in UTC, with milliseconds when not a whole second.
///
/// Output is deterministic: members are always written in the order above.
public enum V7IncidentWire {
  /// The namespace prefix v7 allows before an incident id (`here:traffic:incident:123`).
  public static let idNamespace = "here:traffic:incident:"

  /// Which location references a response carries (v7 `locationReferencing`).
  public struct LocationReferencing: OptionSet, Hashable, Sendable {
    public let rawValue: Int

    /// Creates a set from its raw bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// `location.shape`: the polylines (`locationReferencing=shape`).
    public static let shape = LocationReferencing(rawValue: 1)
    /// `location.olr`: binary OpenLR in base64, for incidents that have it
    /// (`locationReferencing=olr`).
    public static let openLR = LocationReferencing(rawValue: 2)
    /// `location.tmc`: the TMC reference, for incidents that have one
    /// (`locationReferencing=tmc`).
    public static let tmc = LocationReferencing(rawValue: 4)
    /// Every reference.
    public static let all: LocationReferencing = [.shape, .openLR, .tmc]
  }
}
