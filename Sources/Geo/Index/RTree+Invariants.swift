extension RTree {
  /// Descriptions of every broken structural invariant; empty for a sound tree.
  ///
  /// Checked: the level layout matches the item count and node size; every node points at
  /// a run of at most `nodeSize` children on the level below, the runs of a level tile it
  /// in order; every node box contains its children's boxes; the items' insertion indices
  /// are a permutation of `0..<count`.
  ///
  /// - Complexity: O(n).
  package func invariantViolations() -> [String] {
    var violations: [String] = []
    let count = payloads.count
    guard levelBounds.first == count else { return ["first level bound is not the item count"] }
    let entryCount = levelBounds.last ?? 0
    guard boxes.count == 4 * entryCount, indices.count == entryCount else {
      return ["storage holds \(boxes.count / 4) boxes, \(indices.count) indices for \(entryCount)"]
    }
    if count == 0 { return levelBounds.count == 1 ? [] : ["empty tree has node levels"] }
    if entryCount - levelBounds[levelBounds.count - 2] != 1 {
      violations.append("top level does not hold exactly one root")
    }
    var seen = [Bool](repeating: false, count: count)
    for position in 0..<count {
      let original = Int(indices[position])
      if original < 0 || original >= count || seen[original] {
        violations.append("item \(position) has a bad or repeated insertion index \(original)")
      } else {
        seen[original] = true
      }
    }
    for level in 1..<levelBounds.count {
      var expectedFirst = level == 1 ? 0 : levelBounds[level - 2]
      for node in levelBounds[level - 1]..<levelBounds[level] {
        let first = Int(indices[node])
        let end = min(first + nodeSize, levelBounds[level - 1])
        if first != expectedFirst || first >= end {
          violations.append(
            "node \(node) points at children from \(first), expected \(expectedFirst)")
          break
        }
        let nodeBox = box(at: node)
        for child in first..<end where !nodeBox.contains(box(at: child)) {
          violations.append(
            "node \(node) box \(nodeBox) does not contain child \(child) \(box(at: child))")
        }
        expectedFirst = end
      }
      if expectedFirst != levelBounds[level - 1] {
        violations.append("level \(level) nodes do not cover the level below")
      }
    }
    return violations
  }

  /// Stops the program when `invariantViolations()` finds anything; run after every bulk
  /// load in builds with `GEO_INVARIANTS` (debug builds).
  ///
  /// - Complexity: O(n).
  package func checkInvariants() {
    let violations = invariantViolations()
    precondition(
      violations.isEmpty, "RTree invariants broken: \(violations.joined(separator: "; "))")
  }
}
