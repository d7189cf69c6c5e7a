import Dispatch
import Roads

extension BoundHierarchy {
  /// Other arc weights on the hierarchy's topology (its ranks, upward edges and triangles,
  /// which do not depend on the weights): per upward edge the least seconds up (lower end to
  /// upper end) and down, and the meters of the way that takes them (of equal seconds, the
  /// shorter).
  ///
  /// Travel-time tables customise one per flow snapshot and departure minute, with each
  /// segment's seconds at the departure (``TravelTimes`` at that instant), for the bucket
  /// search (``BucketTable``).
  struct Metric: Sendable {
    var upSeconds: [Double]
    var downSeconds: [Double]
    var upMeters: [Double]
    var downMeters: [Double]
  }

  /// The upward edge from rank `low` to rank `high` (which must be one).
  func edge(_ low: Int32, _ high: Int32) -> Int {
    Self.edge(low, high, firstEdge: firstEdge, heads: heads)
  }

  /// The upward edge from rank `low` to rank `high` in these arrays (a binary search of
  /// `low`'s ascending heads; the hierarchy's own lookup, also while it is being built).
  @inline(__always)
  static func edge(_ low: Int32, _ high: Int32, firstEdge: [Int32], heads: [Int32]) -> Int {
    var lower = Int(firstEdge[Int(low)])
    var upper = Int(firstEdge[Int(low) + 1])
    while lower < upper {
      let middle = (lower + upper) / 2
      if heads[middle] < high { lower = middle + 1 } else { upper = middle }
    }
    return lower
  }

  /// The hierarchy customised with each segment of `network` taking `seconds[id]` (∞: not
  /// driven) over its length: the segments' own weights on their edges, then every lower
  /// triangle in rank order.
  ///
  /// - Complexity: O(m) for the m segments, and the hierarchy's triangles.
  func customised(network: RoadNetwork, seconds: [Double]) -> Metric {
    let count = heads.count
    var up = [Double](repeating: .infinity, count: count)
    var down = [Double](repeating: .infinity, count: count)
    var upMeters = [Double](repeating: .infinity, count: count)
    var downMeters = [Double](repeating: .infinity, count: count)
    func better(_ s: Double, _ m: Double, than t: Double, _ n: Double) -> Bool {
      s < t || (s == t && m < n)
    }
    for (id, segment) in network.segments.enumerated() where seconds[id].isFinite {
      let a = rank[segment.fromNode]
      let b = rank[segment.toNode]
      guard a != b else { continue }
      let meters = segment.lengthInMeters
      if a < b {
        let e = edge(a, b)
        if better(seconds[id], meters, than: up[e], upMeters[e]) {
          up[e] = seconds[id]
          upMeters[e] = meters
        }
      } else {
        let e = edge(b, a)
        if better(seconds[id], meters, than: down[e], downMeters[e]) {
          down[e] = seconds[id]
          downMeters[e] = meters
        }
      }
    }
    let n = nodeCount
    firstEdge.withUnsafeBufferPointer { firstEdge in
      heads.withUnsafeBufferPointer { heads in
        up.withUnsafeMutableBufferPointer { up in
          down.withUnsafeMutableBufferPointer { down in
            upMeters.withUnsafeMutableBufferPointer { upMeters in
              downMeters.withUnsafeMutableBufferPointer { downMeters in
                for v in 0..<n {
                  let first = Int(firstEdge[v])
                  let end = Int(firstEdge[v + 1])
                  for i in first..<end {
                    // Nothing goes through v from or to a along a missing edge.
                    let downI = down[i]
                    let upI = up[i]
                    if downI == .infinity && upI == .infinity { continue }
                    let a = Int(heads[i])
                    // (a, b) is an edge of a's for every higher b (as in the bounds'
                    // customisation), found by walking a's ascending heads along v's.
                    var slot = Int(firstEdge[a])
                    for j in (i + 1)..<end {
                      let b = heads[j]
                      while heads[slot] < b { slot += 1 }
                      let upThrough = downI + up[j]
                      if upThrough <= up[slot] {
                        let meters = downMeters[i] + upMeters[j]
                        if upThrough < up[slot] || meters < upMeters[slot] {
                          up[slot] = upThrough
                          upMeters[slot] = meters
                        }
                      }
                      let downThrough = down[j] + upI
                      if downThrough <= down[slot] {
                        let meters = downMeters[j] + upMeters[i]
                        if downThrough < down[slot] || meters < downMeters[slot] {
                          down[slot] = downThrough
                          downMeters[slot] = meters
                        }
                      }
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
    return Metric(upSeconds: up, downSeconds: down, upMeters: upMeters, downMeters: downMeters)
  }
}
