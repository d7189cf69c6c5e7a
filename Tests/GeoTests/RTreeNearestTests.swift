import Testing
import TrafficTestSupport

@testable import Geo

@Suite struct RTreeNearestTests {
  /// Brute force: every item's distance, sorted by distance then insertion index.
  func bruteForce(
    _ count: Int, k: Int, maxDistance: Double = .infinity, distance: (Int) -> Double
  ) -> [(Int, Double)] {
    let all = (0..<count).map { ($0, distance($0)) }.filter { $0.1 <= maxDistance }
    return Array(all.sorted { $0.1 < $1.1 || ($0.1 == $1.1 && $0.0 < $1.0) }.prefix(max(0, k)))
  }

  @Test(arguments: [1, 2, 16, 17, 2000])
  func boxDistancesMatchBruteForce(count: Int) {
    var generator = SeededGenerator(seed: UInt64(count))
    let boxes = randomBoxes(count, maxSide: 3, using: &generator)
    let tree = indexedTree(boxes)
    for k in [1, 3, 10, 50, count + 5] {
      for _ in 0..<20 {
        let x = Double.random(in: -20...120, using: &generator)
        let y = Double.random(in: -20...120, using: &generator)
        let found = tree.nearest(x: x, y: y, k: k)
        let expected = bruteForce(count, k: k) { boxes[$0].distance(toX: x, y: y) }
        #expect(found.map(\.distance) == expected.map(\.1))
        #expect(found.map(\.payload) == expected.map(\.0))
      }
    }
  }

  @Test func exactItemDistanceRanksByGeometryNotBox() {
    // Each item is a segment from its box's lower-left to upper-right corner; the nearest
    // by segment distance differs from the nearest by box distance.
    var generator = SeededGenerator(seed: 3)
    let boxes = randomBoxes(3000, maxSide: 4, using: &generator)
    let tree = indexedTree(boxes)
    func segmentDistance(_ box: RTreeBox, _ x: Double, _ y: Double) -> Double {
      let dx = box.maxX - box.minX, dy = box.maxY - box.minY
      let lengthSquared = dx * dx + dy * dy
      let t =
        lengthSquared > 0
        ? min(1, max(0, ((x - box.minX) * dx + (y - box.minY) * dy) / lengthSquared)) : 0
      let px = box.minX + t * dx - x, py = box.minY + t * dy - y
      return (px * px + py * py).squareRoot()
    }
    var calls = 0
    for _ in 0..<50 {
      let x = Double.random(in: 0...100, using: &generator)
      let y = Double.random(in: 0...100, using: &generator)
      for k in [1, 7, 40] {
        let found = tree.nearest(x: x, y: y, k: k) { payload, box in
          calls += 1
          #expect(box == boxes[payload])
          return segmentDistance(boxes[payload], x, y)
        }
        let expected = bruteForce(boxes.count, k: k) { segmentDistance(boxes[$0], x, y) }
        #expect(found.map(\.distance) == expected.map(\.1))
        #expect(found.map(\.payload) == expected.map(\.0))
      }
    }
    // Lazy refinement: far fewer exact distances than items.
    #expect(calls < 50 * 3 * 500)
  }

  @Test func maxDistanceAndK() {
    var generator = SeededGenerator(seed: 5)
    let boxes = randomBoxes(1000, using: &generator)
    let tree = indexedTree(boxes)
    for maxDistance in [0.0, 0.5, 2, 10] {
      let found = tree.nearest(x: 50, y: 50, k: 1000, maxDistance: maxDistance)
      let expected = bruteForce(1000, k: 1000, maxDistance: maxDistance) {
        boxes[$0].distance(toX: 50, y: 50)
      }
      #expect(found.map(\.payload) == expected.map(\.0))
      #expect(found.allSatisfy { $0.distance <= maxDistance })
    }
    #expect(tree.nearest(x: 50, y: 50, k: 0).isEmpty)
    #expect(tree.nearest(x: 50, y: 50, k: -1).isEmpty)
    #expect(tree.nearest(x: 50, y: 50, k: 5, maxDistance: -1).isEmpty)
    #expect(tree.nearest(x: 50, y: 50, k: 5000).count == 1000)
  }

  @Test func tiesComeInInsertionOrder() throws {
    // Eight identical points and eight at the same distance in other directions.
    var items: [(box: RTreeBox, payload: Int)] = []
    for i in 0..<8 { items.append((box: try RTreeBox(x: 1, y: 0), payload: i)) }
    for i in 8..<16 {
      items.append((box: try RTreeBox(x: i % 2 == 0 ? -1 : 0, y: i % 2 == 0 ? 0 : 1), payload: i))
    }
    var generator = SeededGenerator(seed: 9)
    items.shuffle(using: &generator)
    let order = items.map(\.payload)
    let tree = RTree(items, nodeSize: 2)
    let found = tree.nearest(x: 0, y: 0, k: 16)
    #expect(found.allSatisfy { $0.distance == 1 })
    // Insertion order of the shuffled items, not payload order.
    #expect(found.map(\.payload) == order)
    // With a refining item distance as well.
    let refined = tree.nearest(x: 0, y: 0, k: 16) { _, box in box.distance(toX: 0, y: 0) }
    #expect(refined.map(\.payload) == order)
  }

  @Test func oneItemAndZeroSizeBoxes() throws {
    let tree = RTree([(box: try RTreeBox(x: 3, y: 4), payload: "a")])
    let found = tree.nearest(x: 0, y: 0, k: 3)
    #expect(found.count == 1)
    #expect(found.first?.payload == "a")
    #expect(found.first?.distance == 5)
    #expect(tree.nearest(x: 0, y: 0, maxDistance: 4.999).isEmpty)
  }
}
