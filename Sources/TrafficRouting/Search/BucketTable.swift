import Dispatch
import Foundation
import Roads
import Synchronization

/// Many-to-many least times on a customised hierarchy: the bucket method (Knopp, Sanders,
/// Schultes, Schulz & Wagner 2007) on a customizable contraction hierarchy (Dibbelt,
/// Strasser & Wagner 2014).
///
/// Each target's upward search space (its ancestors in the elimination tree) is walked
/// downward once, leaving at every node the target's least seconds from there (a
/// *bucket*); each source's is walked upward, and at every node it meets the buckets there
/// (an up-down path). The least of those is the least time over the node graph: exact for
/// the metric's static seconds, with the meters of the way that takes them.
///
/// The node graph knows no turn rules: a way may turn where the network forbids it, and turn
/// back at a junction (a U-turn) where a route would go round. Such a way is never slower
/// than the route's, so a cell is at most the time-dependent search's on the same speeds.
enum BucketTable {
  /// Where a search starts: a node, with the seconds and meters to (or from) it.
  struct Seed {
    var node: Int
    var seconds: Double
    var meters: Double
  }

  /// One target's least seconds and meters from a node.
  struct Entry {
    var target: Int32
    var seconds: Double
    var meters: Double
  }

  /// Per-node arrays of upward walks, stamped.
  final class Walk {
    var seconds: [Double]
    var meters: [Double]
    var stamp: [UInt32]
    var current: UInt32 = 0
    var ancestors: [Int32] = []

    init(nodeCount: Int) {
      seconds = [Double](repeating: .infinity, count: nodeCount)
      meters = [Double](repeating: .infinity, count: nodeCount)
      stamp = [UInt32](repeating: 0, count: nodeCount)
    }

    /// Walks up from `seeds`: afterwards ``ancestors`` holds the ranks of their search space
    /// in ascending order, each with its least seconds and meters from the seeds (`up`) or
    /// to them (down).
    func run(
      _ seeds: [Seed], hierarchy h: BoundHierarchy, metric: BoundHierarchy.Metric, up: Bool
    ) {
      current &+= 1
      if current == 0 {
        for k in stamp.indices { stamp[k] = 0 }
        current = 1
      }
      ancestors.removeAll(keepingCapacity: true)
      for seed in seeds {
        var r = h.rank[seed.node]
        while stamp[Int(r)] != current {
          stamp[Int(r)] = current
          seconds[Int(r)] = .infinity
          meters[Int(r)] = .infinity
          ancestors.append(r)
          let first = Int(h.firstEdge[Int(r)])
          guard first < Int(h.firstEdge[Int(r) + 1]) else { break }
          r = h.heads[first]
        }
      }
      for seed in seeds {
        let r = Int(h.rank[seed.node])
        if seed.seconds < seconds[r] || (seed.seconds == seconds[r] && seed.meters < meters[r]) {
          seconds[r] = seed.seconds
          meters[r] = seed.meters
        }
      }
      ancestors.sort()
      let weights = up ? metric.upSeconds : metric.downSeconds
      let lengths = up ? metric.upMeters : metric.downMeters
      for r in ancestors {
        let here = seconds[Int(r)]
        guard here.isFinite else { continue }
        let driven = meters[Int(r)]
        for e in Int(h.firstEdge[Int(r)])..<Int(h.firstEdge[Int(r) + 1]) {
          let w = Int(h.heads[e])
          let through = here + weights[e]
          if through < seconds[w] || (through == seconds[w] && driven + lengths[e] < meters[w]) {
            seconds[w] = through
            meters[w] = driven + lengths[e]
          }
        }
      }
    }
  }

  /// The least seconds and meters from each source to each target (`nil`: none), each
  /// given as the seeds of its snaps; `direct[s][t]` is a way from source `s` to target `t`
  /// along one segment (a target further along a source's segment), when there is one.
  static func table(
    sources: [[Seed]], targets: [[Seed]], direct: [[RouteSearch.Reached?]],
    hierarchy: BoundHierarchy, metric: BoundHierarchy.Metric
  ) -> [[RouteSearch.Reached?]] {
    let n = hierarchy.nodeCount
    // The buckets: the targets' entries grouped by node.
    let walk = Walk(nodeCount: n)
    var entries: [(rank: Int32, entry: Entry)] = []
    for (target, seeds) in targets.enumerated() where !seeds.isEmpty {
      walk.run(seeds, hierarchy: hierarchy, metric: metric, up: false)
      for r in walk.ancestors where walk.seconds[Int(r)].isFinite {
        entries.append(
          (
            r,
            Entry(
              target: Int32(target), seconds: walk.seconds[Int(r)], meters: walk.meters[Int(r)])
          ))
      }
    }
    entries.sort { $0.rank < $1.rank }
    var bucketOf = [Int32](repeating: -1, count: n)
    var bucketStarts: [Int32] = []
    var bucketEntries: [Entry] = []
    bucketEntries.reserveCapacity(entries.count)
    for (rank, entry) in entries {
      if bucketOf[Int(rank)] < 0 {
        bucketOf[Int(rank)] = Int32(bucketStarts.count)
        bucketStarts.append(Int32(bucketEntries.count))
      }
      bucketEntries.append(entry)
    }
    bucketStarts.append(Int32(bucketEntries.count))
    entries = []
    let buckets = bucketOf
    let starts = bucketStarts
    let all = bucketEntries

    let rows = Mutex([[RouteSearch.Reached?]](repeating: [], count: sources.count))
    let workers = max(1, min(sources.count, ProcessInfo.processInfo.activeProcessorCount))
    DispatchQueue.concurrentPerform(iterations: workers) { worker in
      let walk = Walk(nodeCount: n)
      for source in stride(from: worker, to: sources.count, by: workers) {
        var row = direct[source]
        if !sources[source].isEmpty {
          walk.run(sources[source], hierarchy: hierarchy, metric: metric, up: true)
          for r in walk.ancestors {
            let bucket = Int(buckets[Int(r)])
            guard bucket >= 0 else { continue }
            let here = walk.seconds[Int(r)]
            guard here.isFinite else { continue }
            let driven = walk.meters[Int(r)]
            for k in Int(starts[bucket])..<Int(starts[bucket + 1]) {
              let entry = all[k]
              let seconds = here + entry.seconds
              let meters = driven + entry.meters
              let target = Int(entry.target)
              if let known = row[target],
                known.seconds < seconds || (known.seconds == seconds && known.meters <= meters)
              {
                continue
              }
              row[target] = RouteSearch.Reached(seconds: seconds, meters: meters)
            }
          }
        }
        rows.withLock { $0[source] = row }
      }
    }
    return rows.withLock { $0 }
  }
}
