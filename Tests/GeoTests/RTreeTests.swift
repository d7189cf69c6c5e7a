import Testing
import TrafficTestSupport

@testable import Geo

/// Random boxes in a 100 x 100 square with sides up to `maxSide`, like flatbush's tests.
func randomBoxes(
  _ count: Int, maxSide: Double = 1, using generator: inout SeededGenerator
) -> [RTreeBox] {
  (0..<count).map { _ in
    let x = Double.random(in: 0..<(100 - maxSide), using: &generator)
    let y = Double.random(in: 0..<(100 - maxSide), using: &generator)
    return RTreeBox(
      uncheckedMinX: x, minY: y, maxX: x + Double.random(in: 0...maxSide, using: &generator),
      maxY: y + Double.random(in: 0...maxSide, using: &generator))
  }
}

/// A tree whose payloads are the insertion indices.
func indexedTree(_ boxes: [RTreeBox], nodeSize: Int = 16) -> RTree<Int> {
  RTree(boxes.enumerated().map { (box: $0.element, payload: $0.offset) }, nodeSize: nodeSize)
}

@Suite struct RTreeTests {
  @Test(arguments: [
    (0, 16), (1, 16), (15, 16), (16, 16), (17, 16), (300, 4), (5000, 16), (5000, 2),
  ])
  func boxSearchMatchesBruteForce(count: Int, nodeSize: Int) {
    var generator = SeededGenerator(seed: UInt64(count * 100 + nodeSize))
    let boxes = randomBoxes(count, maxSide: 5, using: &generator)
    let tree = indexedTree(boxes, nodeSize: nodeSize)
    #expect(tree.count == count)
    for side in [0.0, 1, 10, 40, 120] {
      for _ in 0..<20 {
        let x = Double.random(in: -10...100, using: &generator)
        let y = Double.random(in: -10...100, using: &generator)
        let query = RTreeBox(uncheckedMinX: x, minY: y, maxX: x + side, maxY: y + side)
        let expected = boxes.indices.filter { boxes[$0].intersects(query) }
        #expect(tree.search(intersecting: query).sorted() == expected)
      }
    }
  }

  @Test func searchTouchingEdgesAndDegenerateBoxes() throws {
    let point = try RTreeBox(x: 5, y: 5)
    let segment = try RTreeBox(minX: 0, minY: 2, maxX: 10, maxY: 2)
    let tree = RTree([(box: point, payload: "point"), (box: segment, payload: "segment")])
    #expect(
      tree.search(intersecting: try RTreeBox(minX: 5, minY: 5, maxX: 6, maxY: 6)) == ["point"])
    #expect(tree.search(intersecting: try RTreeBox(x: 10, y: 2)) == ["segment"])
    #expect(
      tree.search(intersecting: try RTreeBox(minX: 5.001, minY: 0, maxX: 9, maxY: 1.999)).isEmpty)
    #expect(tree.bounds == RTreeBox(uncheckedMinX: 0, minY: 2, maxX: 10, maxY: 5))
  }

  @Test func duplicatesAreAllFound() {
    let box = RTreeBox(uncheckedMinX: 1, minY: 1, maxX: 2, maxY: 2)
    let tree = RTree((0..<100).map { (box: box, payload: $0) })
    #expect(tree.search(intersecting: box).sorted() == Array(0..<100))
    #expect(
      tree.search(intersecting: RTreeBox(uncheckedMinX: 3, minY: 3, maxX: 4, maxY: 4)).isEmpty)
  }

  @Test func emptyTree() {
    let tree = RTree<Int>([])
    #expect(tree.isEmpty)
    #expect(tree.bounds == nil)
    #expect(
      tree.search(intersecting: RTreeBox(uncheckedMinX: -1e9, minY: -1e9, maxX: 1e9, maxY: 1e9))
        .isEmpty)
    #expect(tree.nearest(x: 0, y: 0, k: 3).isEmpty)
  }

  @Test func visitStopsWhenAsked() {
    var generator = SeededGenerator(seed: 7)
    let tree = indexedTree(randomBoxes(1000, using: &generator))
    var visited: [Int] = []
    tree.visit(intersecting: RTreeBox(uncheckedMinX: 0, minY: 0, maxX: 100, maxY: 100)) {
      payload, _ in
      visited.append(payload)
      return visited.count < 10
    }
    #expect(visited.count == 10)
    #expect(Set(visited).count == 10)
  }

  @Test func predicateSearchMatchesBruteForce() {
    // Items within distance 3 of the segment (10, 10)-(80, 60), by box distance.
    var generator = SeededGenerator(seed: 11)
    let boxes = randomBoxes(3000, maxSide: 2, using: &generator)
    let tree = indexedTree(boxes)
    func boxDistanceToSegment(_ box: RTreeBox) -> Double {
      // Sample the segment densely: a conservative upper estimate is fine for the oracle,
      // because both tree and oracle use this same function.
      (0...200).map { step -> Double in
        let t = Double(step) / 200
        return box.distance(toX: 10 + 70 * t, y: 10 + 50 * t)
      }.min() ?? .infinity
    }
    let corridor = RTreeBox(uncheckedMinX: 7, minY: 7, maxX: 83, maxY: 63)
    let found = tree.search(
      descendingInto: { $0.intersects(corridor) },
      where: { box, payload in payload % 2 == 0 && boxDistanceToSegment(box) <= 3 })
    let expected = boxes.indices.filter { $0 % 2 == 0 && boxDistanceToSegment(boxes[$0]) <= 3 }
    #expect(found.sorted() == expected)
    #expect(!expected.isEmpty)
  }

  @Test func rejectsMalformedBoxes() {
    #expect(throws: GeoError.self) { try RTreeBox(minX: 2, minY: 0, maxX: 1, maxY: 1) }
    #expect(throws: GeoError.self) { try RTreeBox(minX: 0, minY: .nan, maxX: 1, maxY: 1) }
    #expect(throws: GeoError.self) { try RTreeBox(x: .infinity, y: 0) }
  }

  @Test func coveringSplitsAtTheAntimeridian() throws {
    let crossing = try GeoBox(west: 170, south: -10, east: -170, north: 10)
    #expect(
      RTreeBox.covering(crossing) == [
        RTreeBox(uncheckedMinX: 170, minY: -10, maxX: 180, maxY: 10),
        RTreeBox(uncheckedMinX: -180, minY: -10, maxX: -170, maxY: 10),
      ])
    let plain = try GeoBox(west: 1, south: 2, east: 3, north: 4)
    #expect(RTreeBox.covering(plain) == [RTreeBox(uncheckedMinX: 1, minY: 2, maxX: 3, maxY: 4)])
  }

  @Test func hilbertCurveVisitsEveryCellOnceWithUnitSteps() throws {
    // On a 2^16 grid, consecutive curve positions are adjacent cells. Check a band of the
    // grid: the inverse image of codes must be a bijection and adjacent codes neighbours.
    var cellOfCode: [UInt32: (UInt32, UInt32)] = [:]
    for x in UInt32(0)..<64 {
      for y in UInt32(0)..<64 { cellOfCode[HilbertCurve.index(x: x, y: y)] = (x, y) }
    }
    #expect(cellOfCode.count == 64 * 64)
    // The 64 x 64 corner cell block is visited first when the curve starts at (0, 0).
    for code in UInt32(1)..<4096 {
      let a = try #require(cellOfCode[code - 1])
      let b = try #require(cellOfCode[code])
      let step = abs(Int(a.0) - Int(b.0)) + abs(Int(a.1) - Int(b.1))
      #expect(step == 1)
    }
  }
}
