import Foundation
import Roads
import Traffic
import TrafficTestSupport
import Zlib

/// A network of the accuracy harness and the demand it carries on a usual day.
struct AccuracyNetwork: Sendable {
  /// Where the day's trips come from.
  enum Demand: Sendable {
    /// Trips between random car edges (weighted by length, at least 500 m apart in a straight
    /// line); SUMO routes them and drops those it cannot.
    case randomTrips
    /// The origin-destination pairs of a scenario's own route files (the first and the last
    /// edge of each route), drawn uniformly.
    case routeFiles([DebianFile])
  }

  /// Where the SUMO network comes from.
  enum Source: Sendable {
    /// A network Debian's SUMO packages ship.
    case sumo(DebianFile)
    /// A SUMO network file of the user's (`.net.xml`, optionally gzipped).
    case sumoFile(URL)
    /// An OpenStreetMap extract (XML, optionally bzip2) that SUMO's netconvert turns into a
    /// network.
    case openStreetMap(URL)
  }

  var name: String
  /// What kind of roads it is (printed in the table).
  var kind: String
  var source: Source
  var demand: Demand
  /// Vehicles inserted per second at the peak of a usual day.
  var peakRate: Double
}

/// A lane closed for part of a day (a `closingLaneReroute` of SUMO: the lane's vehicles
/// change lanes, those about to enter it are rerouted).
struct LaneClosure: Sendable {
  var edge: String
  /// SUMO's index of the lane (0: the rightmost).
  var lane: Int
  var from: Double
  var until: Double
  /// The lane's place among the edge's lanes open to cars counted from the left, from 1,
  /// and how many there are: what a road authority's feed says of it (WZDx lane `order`).
  var announced: (place: Int, lanes: Int)
}

/// One simulated day: its demand and what happened on the roads.
struct AccuracyDay: Sendable {
  var label: String
  var seed: UInt64
  /// The day's demand as a factor of the usual day's.
  var level: Double
  var closure: LaneClosure?
  /// When the simulation's second 0 is (06:30 local time of the day).
  var start: Date
}

/// The daily profile and length of the harness's days.
enum AccuracyProfile {
  /// Seconds of demand simulated per day: the morning from 06:30 to 08:30.
  static let demandSeconds = 7_200.0
  /// Seconds simulated after the last departure, for the last trips to arrive.
  static let drainSeconds = 1_200.0
  /// SUMO's edge data and the harness's flow comparisons are per interval of this length.
  static let intervalSeconds = 300.0
  /// The share of the peak rate at a second of the day: 40 % at 06:30, rising to the peak at
  /// 07:15, held until 07:45, falling to 50 % at 08:30 (piecewise linear).
  static func share(at second: Double) -> Double {
    let points: [(Double, Double)] = [(0, 0.4), (2_700, 1), (4_500, 1), (7_200, 0.5)]
    for k in 1..<points.count where second <= points[k].0 {
      let (t0, v0) = points[k - 1], (t1, v1) = points[k]
      return v0 + (v1 - v0) * (second - t0) / (t1 - t0)
    }
    return 0.5
  }
}

/// What SUMO reported for a day.
struct SimulatedDay: Sendable {
  /// A floating-car record of a vehicle of a probe fleet (40 % of the vehicles).
  struct Record: Sendable {
    var vehicle: Int32
    /// The SUMO edge the vehicle is on (index into `edgeNames`), -1 inside a junction.
    var edge: Int32
    var second: Float
    var latitude: Double
    var longitude: Double
    var speed: Float
    var angle: Float
  }

  /// SUMO's mean values of one edge over one interval (all vehicles).
  struct EdgeInterval: Sendable {
    var speed: Double
    var traveltime: Double?
    var entered: Int
  }

  /// A trip SUMO completed.
  struct Trip: Sendable {
    var vehicle: String
    var depart: Double
    var arrival: Double
    var edges: [String]
    /// When the vehicle left each edge.
    var exitTimes: [Double]
    var teleported: Bool
    var duration: Double { arrival - depart }
  }

  var day: AccuracyDay
  var vehicleNames: [String]
  var edgeNames: [String]
  var records: [Record]
  /// Per interval index: SUMO edge id -> its values.
  var edgeData: [[String: EdgeInterval]]
  /// The same from each probe fleet's vehicles alone, by fleet (percent).
  var fleetEdgeData: [Int: [[String: EdgeInterval]]]
  var trips: [Trip]
  var teleports: Int
  /// The induction loops' readings: edge, when the minute ended (seconds into the day),
  /// the mean spot speed of the vehicles that passed and how many did.
  var loopReadings: [(edge: String, end: Double, speed: Double, vehicles: Int)]
  /// Seconds SUMO ran.
  var sumoSeconds: Double
}
