import Dispatch
import Foundation
import Geo

/// What map matching needs of a network besides its segments, built once per network and
/// shared by every matcher on it (whatever their options): the turn successors of each
/// segment and the distance from each segment's start to each of its vertices.
///
/// Both are flat arrays indexed through offsets (two allocations, not one per segment), and
/// the vertex distances — a geodesic each, the bulk of the work — are computed on every core.
package final class MatchingGraph: Sendable {
  /// Turn successors of each segment: `successors[successorOffsets[s]..<successorOffsets[s
  /// + 1]]` (the network's own turns when it has them; else U-turns only at dead ends).
  package let successorOffsets: [Int32]
  package let successors: [Int32]
  /// Per segment, the geodesic distance from its start to each vertex, meters:
  /// `along[alongStarts[s] + i]` for vertex `i` of segment `s`; the last equals the
  /// segment's length.
  let alongStarts: [Int]
  let along: [Double]

  /// The tables of `network`.
  ///
  /// - Complexity: O(m + v) for m segments of v vertices in total, spread over the cores.
  package init(network: RoadNetwork) {
    let (offsets, outgoing) = network.outgoingAdjacency()
    var successorOffsets: [Int32] = [0]
    successorOffsets.reserveCapacity(network.segments.count + 1)
    var successors: [Int32] = []
    successors.reserveCapacity(outgoing.count)
    for segment in network.segments {
      if let turns = network.turns {
        successors.append(contentsOf: turns[segment.id])
        successorOffsets.append(Int32(successors.count))
        continue
      }
      let leaving = outgoing[offsets[segment.toNode]..<offsets[segment.toNode + 1]]
      let turns = leaving.filter { $0 != segment.oppositeID }
      for next in turns.isEmpty ? Array(leaving) : turns { successors.append(Int32(next)) }
      successorOffsets.append(Int32(successors.count))
    }
    self.successorOffsets = successorOffsets
    self.successors = successors

    let segments = network.segments
    var alongStarts = [Int](repeating: 0, count: segments.count + 1)
    for (index, segment) in segments.enumerated() {
      alongStarts[index + 1] = alongStarts[index] + segment.geometry.vertices.count
    }
    let total = alongStarts[segments.count]
    let starts = alongStarts
    let along = [Double](unsafeUninitializedCapacity: total) { buffer, count in
      let base = UnsafeSendableAddress(buffer.baseAddress)
      let chunk = 4_096
      DispatchQueue.concurrentPerform(iterations: (segments.count + chunk - 1) / chunk) { part in
        // No buffer only when there are no vertices, hence nothing to write.
        guard let pointer = base.pointer else { return }
        for index in part * chunk..<min(segments.count, (part + 1) * chunk) {
          let vertices = segments[index].geometry.vertices
          let out = pointer + starts[index]
          out[0] = 0
          var sum = 0.0
          // The last offset is the segment's length whatever rounding gives: no geodesic
          // for the last vertex (nor any for a straight segment).
          for i in 1..<max(1, vertices.count - 1) {
            sum += vertices[i - 1].distance(to: vertices[i])
            out[i] = sum
          }
          if vertices.count > 1 { out[vertices.count - 1] = segments[index].lengthInMeters }
        }
      }
      count = total
    }
    self.alongStarts = alongStarts
    self.along = along
  }

  /// A buffer's address handed to the workers of `concurrentPerform`, each writing its own
  /// part.
  private struct UnsafeSendableAddress: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<Double>?
    init(_ pointer: UnsafeMutablePointer<Double>?) { self.pointer = pointer }
  }
}
