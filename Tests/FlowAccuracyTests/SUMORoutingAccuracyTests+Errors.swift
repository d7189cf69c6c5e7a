import Foundation

extension SUMORoutingAccuracyTests {
  /// Median relative errors of ETAs against the times they are compared with, live and
  /// free flow, over all trips and over the congested ones (free flow off by > 40 %).
  struct Errors: CustomStringConvertible {
    var trips = 0
    var live = Double.nan
    var free = Double.nan
    var congestedTrips = 0
    var congestedLive = Double.nan
    var congestedFree = Double.nan
    /// The median of (ETA − time) / time over the congested trips.
    var congestedSigned = Double.nan

    /// - Parameter pairs: each trip's live ETA and the time it is compared with, and the
    ///   same for its free-flow ETA.
    init(_ pairs: [(live: Double, liveTime: Double, free: Double, freeTime: Double)]) {
      func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
      }
      let live = pairs.map { abs($0.live - $0.liveTime) / $0.liveTime }
      let free = pairs.map { abs($0.free - $0.freeTime) / $0.freeTime }
      let congested = pairs.indices.filter { free[$0] > 0.4 }
      trips = pairs.count
      self.live = median(live)
      self.free = median(free)
      congestedTrips = congested.count
      congestedLive = median(congested.map { live[$0] })
      congestedFree = median(congested.map { free[$0] })
      congestedSigned = median(
        congested.map { (pairs[$0].live - pairs[$0].liveTime) / pairs[$0].liveTime })
    }

    var description: String {
      "\(trips) trips, median ETA error "
        + String(format: "%.1f %% (free flow %.1f %%)", live * 100, free * 100)
        + "; \(congestedTrips) congested trips: "
        + String(format: "%.1f %% (free flow %.1f %%)", congestedLive * 100, congestedFree * 100)
        + String(format: ", signed %.1f %%", congestedSigned * 100)
    }
  }
}
