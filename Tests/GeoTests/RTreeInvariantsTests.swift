import Testing
import TrafficTestSupport

@testable import Geo

@Suite struct RTreeInvariantsTests {
  @Test(arguments: [0, 1, 2, 16, 17, 256, 257, 4000])
  func bulkLoadedTreesAreSound(count: Int) {
    var generator = SeededGenerator(seed: UInt64(count) + 1)
    for nodeSize in [2, 3, 16, 100] {
      let tree = indexedTree(randomBoxes(count, using: &generator), nodeSize: nodeSize)
      #expect(tree.invariantViolations() == [])
      tree.checkInvariants()
    }
  }

  @Test func detectsAShrunkNodeBox() throws {
    var generator = SeededGenerator(seed: 2)
    var tree = indexedTree(randomBoxes(500, using: &generator))
    // Shrink the root box so that it no longer contains its children.
    let root = tree.boxes.count - 4
    tree.boxes[root + 2] = tree.boxes[root]
    let violations = tree.invariantViolations()
    #expect(violations.count >= 1)
    #expect(violations.first?.contains("does not contain") == true)
  }

  @Test func detectsABadChildPointerAndRepeatedItem() {
    var generator = SeededGenerator(seed: 4)
    var tree = indexedTree(randomBoxes(100, using: &generator))
    tree.indices[tree.indices.count - 1] = 3
    tree.indices[0] = tree.indices[1]
    let violations = tree.invariantViolations()
    #expect(violations.contains { $0.contains("repeated insertion index") })
    #expect(violations.contains { $0.contains("points at children") })
  }
}
