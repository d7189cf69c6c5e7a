import Foundation
import Geo
import Roads

/// A customizable contraction hierarchy (CCH; Dibbelt, Strasser & Wagner 2014) of the node
/// graph of the roads open to cars, customised with each segment's seconds at its bound
/// speed, used as an exact A* potential (CH potentials; Strasser & Zeitz 2021).
///
/// The nodes are ordered by nested dissection: each part of the network is cut where the
/// fewest roads cross a straight line (the best of four directions, within the middle half
/// of the part), the nodes at one side of the crossing roads are the separator and rank
/// above both halves, which are ordered the same way. Contracting the nodes in that order
/// adds a shortcut between every two higher neighbours of a node; customisation then gives
/// each edge, in rank order, the least seconds over its lower triangles. The least seconds
/// between two nodes are then the least of up-down paths: up from the source, down to the
/// target.
///
/// For a search toward a set of targets, ``Query`` takes the targets' upward search space
/// once (their ancestors in the elimination tree, a few hundred nodes) and gives any node's
/// least seconds to the nearest target lazily, from its own upward edges, memoised: the
/// exact least time over the node graph at bound speeds, which no route (with turn rules,
/// closures and slower live speeds) can beat, so the A* heuristic never overestimates, and
/// on free flow it leaves the search little beyond the route itself. Where no target can be
/// reached, it is ∞.
final class BoundHierarchy: Sendable {
  /// Each node's rank (its place in the contraction order).
  let rank: [Int32]
  /// Per rank, the range of its upward edges in ``heads`` (ascending heads).
  let firstEdge: [Int32]
  /// The rank of each upward edge's upper end.
  let heads: [Int32]
  /// Per upward edge, the least seconds up (from the lower end to the upper end) and down.
  let upSeconds: [Double]
  let downSeconds: [Double]

  var nodeCount: Int { rank.count }
  var edgeCount: Int { heads.count }

  /// The hierarchy of the arcs `tails[k] → heads[k]` taking `seconds[k]`, over nodes at
  /// `coordinates` (which the cuts of the order are drawn through).
  init(coordinates: [GeoCoordinates], tails: [Int32], heads arcHeads: [Int32], seconds: [Double]) {
    let n = coordinates.count
    let undirected = Self.undirectedAdjacency(nodeCount: n, tails: tails, heads: arcHeads)
    let order = Self.nestedDissection(coordinates: coordinates, adjacency: undirected)
    var rank = [Int32](repeating: 0, count: n)
    for (position, node) in order.enumerated() { rank[Int(node)] = Int32(position) }
    self.rank = rank

    // Contraction: each rank's upward neighbours, the lowest of them (its parent in the
    // elimination tree) taking the others in.
    var upward = [[Int32]](repeating: [], count: n)
    for v in 0..<n {
      let rv = rank[v]
      for slot in Int(undirected.offsets[v])..<Int(undirected.offsets[v + 1]) {
        let rw = rank[Int(undirected.targets[slot])]
        if rw > rv { upward[Int(rv)].append(rw) }
      }
    }
    var firstEdge = [Int32](repeating: 0, count: n + 1)
    for r in 0..<n {
      var neighbours = upward[r]
      neighbours.sort()
      var unique: [Int32] = []
      unique.reserveCapacity(neighbours.count)
      for w in neighbours where unique.last != w { unique.append(w) }
      upward[r] = unique
      firstEdge[r + 1] = firstEdge[r] + Int32(unique.count)
      if let parent = unique.first, unique.count > 1 {
        upward[Int(parent)].append(contentsOf: unique.dropFirst())
      }
    }
    var heads = [Int32]()
    heads.reserveCapacity(Int(firstEdge[n]))
    for r in 0..<n { heads.append(contentsOf: upward[r]) }
    upward = []
    self.firstEdge = firstEdge
    self.heads = heads

    // Customisation: the arcs' own seconds, then lower triangles in rank order.
    var up = [Double](repeating: .infinity, count: heads.count)
    var down = [Double](repeating: .infinity, count: heads.count)
    func edge(_ low: Int32, _ high: Int32) -> Int {
      Self.edge(low, high, firstEdge: firstEdge, heads: heads)
    }
    for k in tails.indices {
      let a = rank[Int(tails[k])]
      let b = rank[Int(arcHeads[k])]
      guard a != b else { continue }
      if a < b {
        let e = edge(a, b)
        up[e] = min(up[e], seconds[k])
      } else {
        let e = edge(b, a)
        down[e] = min(down[e], seconds[k])
      }
    }
    heads.withUnsafeBufferPointer { heads in
      up.withUnsafeMutableBufferPointer { up in
        down.withUnsafeMutableBufferPointer { down in
          for v in 0..<n {
            let first = Int(firstEdge[v])
            let end = Int(firstEdge[v + 1])
            for i in first..<end {
              let a = Int(heads[i])
              // Through v: a → v → b and b → v → a, for every higher b; (a, b) is an edge
              // of a's (the contraction made v's upward neighbours a clique), found by
              // walking a's ascending heads along v's.
              var slot = Int(firstEdge[a])
              for j in (i + 1)..<end {
                let b = heads[j]
                while heads[slot] < b { slot += 1 }
                let upThrough = down[i] + up[j]
                if upThrough < up[slot] { up[slot] = upThrough }
                let downThrough = down[j] + up[i]
                if downThrough < down[slot] { down[slot] = downThrough }
              }
            }
          }
        }
      }
    }
    upSeconds = up
    downSeconds = down
  }

  /// The hierarchy of the segments with a positive `bound` (m/s), each taking its length at
  /// that speed.
  convenience init(network: RoadNetwork, bound: [Double]) {
    var tails: [Int32] = []
    var heads: [Int32] = []
    var seconds: [Double] = []
    for (id, segment) in network.segments.enumerated() where bound[id] > 0 {
      tails.append(Int32(segment.fromNode))
      heads.append(Int32(segment.toNode))
      seconds.append(segment.lengthInMeters / bound[id])
    }
    self.init(
      coordinates: network.nodes.map(\.coordinates), tails: tails, heads: heads, seconds: seconds)
  }

  // MARK: Order

  /// An undirected graph as offsets into one array of neighbours (no loops, neighbours
  /// possibly repeated).
  struct Adjacency {
    var offsets: [Int32]
    var targets: [Int32]
  }

  static func undirectedAdjacency(nodeCount n: Int, tails: [Int32], heads: [Int32]) -> Adjacency {
    var offsets = [Int32](repeating: 0, count: n + 1)
    for k in tails.indices where tails[k] != heads[k] {
      offsets[Int(tails[k]) + 1] += 1
      offsets[Int(heads[k]) + 1] += 1
    }
    for v in 0..<n { offsets[v + 1] += offsets[v] }
    var fill = offsets
    var targets = [Int32](repeating: 0, count: Int(offsets[n]))
    for k in tails.indices where tails[k] != heads[k] {
      targets[Int(fill[Int(tails[k])])] = heads[k]
      fill[Int(tails[k])] += 1
      targets[Int(fill[Int(heads[k])])] = tails[k]
      fill[Int(heads[k])] += 1
    }
    return Adjacency(offsets: offsets, targets: targets)
  }

  /// Parts of at most this many nodes are not cut further.
  static let leafSize = 8

  /// The nodes in contraction order (lowest first), by nested dissection along straight
  /// cuts.
  static func nestedDissection(coordinates: [GeoCoordinates], adjacency: Adjacency) -> [Int32] {
    let n = coordinates.count
    guard n > 0 else { return [] }
    let latitude = coordinates.reduce(0) { $0 + $1.latitude } / Double(n)
    let scale = cos(latitude * .pi / 180)
    let x = coordinates.map { Float($0.longitude * scale) }
    let y = coordinates.map { Float($0.latitude) }
    var order = [Int32](repeating: -1, count: n)
    // Scratch per node: the part it belongs to now (a job's number) and its place in the
    // part's current sorting.
    var part = [Int32](repeating: -1, count: n)
    var place = [Int32](repeating: 0, count: n)
    var isSeparator = [Bool](repeating: false, count: n)
    struct Job {
      var nodes: [Int32]
      var low: Int
    }
    var jobs = [Job(nodes: (0..<Int32(n)).map { $0 }, low: 0)]
    var jobNumber: Int32 = 0
    while let job = jobs.popLast() {
      let nodes = job.nodes
      let count = nodes.count
      jobNumber += 1
      for v in nodes { part[Int(v)] = jobNumber }
      if count <= leafSize {
        for (k, v) in nodes.enumerated() { order[job.low + k] = v }
        continue
      }
      // The best cut: of four directions, the split in the middle half crossed by the
      // fewest edges (the more balanced of equals).
      var best: (crossing: Int32, imbalance: Int, split: Int, sorted: [Int32])?
      var keys = [UInt64](repeating: 0, count: count)
      var difference = [Int32](repeating: 0, count: count + 1)
      for direction in 0..<4 {
        for (k, v) in nodes.enumerated() {
          let px = x[Int(v)]
          let py = y[Int(v)]
          let projection: Float =
            switch direction {
            case 0: px
            case 1: py
            case 2: px + py
            default: px - py
            }
          // Order-preserving bits of the Float, then the node.
          let bits = projection.bitPattern
          let ordered = bits & 0x8000_0000 != 0 ? ~bits : bits | 0x8000_0000
          keys[k] = UInt64(ordered) << 32 | UInt64(UInt32(bitPattern: v))
        }
        keys.sort()
        for k in 0..<count { place[Int(UInt32(truncatingIfNeeded: keys[k]))] = Int32(k) }
        for k in 0...count { difference[k] = 0 }
        for v in nodes {
          let pv = place[Int(v)]
          for slot in Int(adjacency.offsets[Int(v)])..<Int(adjacency.offsets[Int(v) + 1]) {
            let w = Int(adjacency.targets[slot])
            guard part[w] == jobNumber else { continue }
            let pw = place[w]
            if pv < pw {
              difference[Int(pv) + 1] += 1
              difference[Int(pw) + 1] -= 1
            }
          }
        }
        var crossing: Int32 = 0
        var improved = false
        let lower = max(1, count / 4)
        let upper = min(count - 1, count - count / 4)
        for k in 0...upper {
          crossing += difference[k]
          guard k >= lower else { continue }
          let imbalance = abs(2 * k - count)
          let better =
            best.map {
              crossing < $0.crossing || (crossing == $0.crossing && imbalance < $0.imbalance)
            } ?? true
          if better {
            best = (crossing, imbalance, k, [])
            improved = true
          }
        }
        if improved, var cut = best {
          cut.sorted = keys.map { Int32(bitPattern: UInt32(truncatingIfNeeded: $0)) }
          best = cut
        }
      }
      guard let cut = best else { continue }
      let sorted = cut.sorted
      for (k, v) in sorted.enumerated() { place[Int(v)] = Int32(k) }
      // The separator: the nodes at one side of the crossing edges, the side with fewer.
      var sideA: [Int32] = []
      var sideB: [Int32] = []
      for v in sorted {
        let pv = Int(place[Int(v)])
        for slot in Int(adjacency.offsets[Int(v)])..<Int(adjacency.offsets[Int(v) + 1]) {
          let w = Int(adjacency.targets[slot])
          guard part[w] == jobNumber, pv < cut.split, Int(place[w]) >= cut.split else { continue }
          if !isSeparator[Int(v)] {
            isSeparator[Int(v)] = true
            sideA.append(v)
          }
          sideB.append(Int32(w))
        }
      }
      for v in sideA { isSeparator[Int(v)] = false }
      var uniqueB: [Int32] = []
      for w in sideB where !isSeparator[Int(w)] {
        isSeparator[Int(w)] = true
        uniqueB.append(w)
      }
      for w in uniqueB { isSeparator[Int(w)] = false }
      let separator = sideA.count <= uniqueB.count ? sideA : uniqueB
      for v in separator { isSeparator[Int(v)] = true }
      let first = sorted[..<cut.split].filter { !isSeparator[Int($0)] }
      let second = sorted[cut.split...].filter { !isSeparator[Int($0)] }
      for v in separator { isSeparator[Int(v)] = false }
      let top = job.low + count - separator.count
      for (k, v) in separator.enumerated() { order[top + k] = v }
      jobs.append(Job(nodes: first, low: job.low))
      jobs.append(Job(nodes: second, low: job.low + first.count))
    }
    return order
  }

  // MARK: Queries

  /// Reusable per-node arrays of queries (a stamp marks the entries of the current one).
  final class Scratch: @unchecked Sendable {
    var stamp: UInt32 = 0
    /// Seconds from the rank to the nearest target, down the targets' upward search space.
    var toTarget: [Double]
    var targetStamp: [UInt32]
    /// Memoised potentials.
    var potential: [Double]
    var potentialStamp: [UInt32]
    var stack: [(rank: Int32, slot: Int32, best: Double)] = []
    var ancestors: [Int32] = []

    init(nodeCount: Int) {
      toTarget = [Double](repeating: .infinity, count: nodeCount)
      targetStamp = [UInt32](repeating: 0, count: nodeCount)
      potential = [Double](repeating: .infinity, count: nodeCount)
      potentialStamp = [UInt32](repeating: 0, count: nodeCount)
    }
  }

  /// The potential of one search: least seconds from any node to the nearest of its
  /// targets at bound speeds.
  struct Query {
    let hierarchy: BoundHierarchy
    let scratch: Scratch

    init(hierarchy: BoundHierarchy, targets: [Int], scratch: Scratch) {
      self.hierarchy = hierarchy
      self.scratch = scratch
      scratch.stamp &+= 1
      if scratch.stamp == 0 {
        // Wrapped: old stamps could match again.
        for k in scratch.targetStamp.indices {
          scratch.targetStamp[k] = 0
          scratch.potentialStamp[k] = 0
        }
        scratch.stamp = 1
      }
      let stamp = scratch.stamp
      var ancestors: [Int32] = []
      swap(&ancestors, &scratch.ancestors)
      ancestors.removeAll(keepingCapacity: true)
      for target in targets where target >= 0 && target < hierarchy.nodeCount {
        var r = hierarchy.rank[target]
        // Zero also where an earlier target's walk marked it an ancestor (∞).
        scratch.toTarget[Int(r)] = 0
        if scratch.targetStamp[Int(r)] == stamp { continue }
        while scratch.targetStamp[Int(r)] != stamp {
          scratch.targetStamp[Int(r)] = stamp
          if r != hierarchy.rank[target] { scratch.toTarget[Int(r)] = .infinity }
          ancestors.append(r)
          let first = Int(hierarchy.firstEdge[Int(r)])
          guard first < Int(hierarchy.firstEdge[Int(r) + 1]) else { break }
          r = hierarchy.heads[first]
        }
      }
      ancestors.sort()
      for r in ancestors {
        let seconds = scratch.toTarget[Int(r)]
        guard seconds.isFinite else { continue }
        for e in Int(hierarchy.firstEdge[Int(r)])..<Int(hierarchy.firstEdge[Int(r) + 1]) {
          let w = Int(hierarchy.heads[e])
          let through = hierarchy.downSeconds[e] + seconds
          if through < scratch.toTarget[w] { scratch.toTarget[w] = through }
        }
      }
      swap(&ancestors, &scratch.ancestors)
    }

    /// Least seconds from `node` to the nearest target (∞: none can be reached).
    func seconds(from node: Int) -> Double {
      let h = hierarchy
      let s = scratch
      let stamp = s.stamp
      let start = h.rank[node]
      if s.potentialStamp[Int(start)] == stamp { return s.potential[Int(start)] }
      func own(_ r: Int32) -> Double {
        s.targetStamp[Int(r)] == stamp ? s.toTarget[Int(r)] : .infinity
      }
      s.stack.removeAll(keepingCapacity: true)
      s.stack.append((start, h.firstEdge[Int(start)], own(start)))
      while var frame = s.stack.popLast() {
        let end = h.firstEdge[Int(frame.rank) + 1]
        var descended = false
        while frame.slot < end {
          let e = Int(frame.slot)
          let w = h.heads[e]
          if s.potentialStamp[Int(w)] == stamp {
            let through = h.upSeconds[e] + s.potential[Int(w)]
            if through < frame.best { frame.best = through }
            frame.slot += 1
          } else {
            s.stack.append(frame)
            s.stack.append((w, h.firstEdge[Int(w)], own(w)))
            descended = true
            break
          }
        }
        if !descended {
          s.potential[Int(frame.rank)] = frame.best
          s.potentialStamp[Int(frame.rank)] = stamp
        }
      }
      return s.potential[Int(start)]
    }
  }
}
