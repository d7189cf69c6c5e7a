import Testing
import TrafficTestSupport

@testable import Traffic

/// `PersistentArray` must behave as `Array` does, value semantics included: copies share
/// chunks, and a change to one copy is never seen by another.
@Suite struct PersistentArrayTests {
  /// An element whose copies are counted by their deinitialisation: nothing leaks, nothing
  /// is freed twice.
  final class Tracked: Equatable {
    nonisolated(unsafe) static var alive = 0
    let value: Int
    init(_ value: Int) {
      self.value = value
      Self.alive += 1
    }
    deinit { Self.alive -= 1 }
    static func == (a: Tracked, b: Tracked) -> Bool { a.value == b.value }
  }

  @Test func randomChangesOnCopiesMatchArrays() {
    var generator = SeededGenerator(seed: 5)
    var arrays: [[Int]] = [[]]
    var persistent: [PersistentArray<Int>] = [[]]
    for step in 0..<3_000 {
      let which = Int.random(in: 0..<arrays.count, using: &generator)
      switch Int.random(in: 0..<10, using: &generator) {
      case 0..<4:
        let count = Int.random(in: 1...100, using: &generator)
        for _ in 0..<count {
          let value = Int.random(in: 0..<1_000_000, using: &generator)
          arrays[which].append(value)
          persistent[which].append(value)
        }
      case 4..<8 where !arrays[which].isEmpty:
        let position = Int.random(in: 0..<arrays[which].count, using: &generator)
        arrays[which][position] = step
        persistent[which][position] = step
      default:
        // A copy, changed later independently of its original.
        if arrays.count < 12 {
          arrays.append(arrays[which])
          persistent.append(persistent[which])
        }
      }
    }
    for (array, copy) in zip(arrays, persistent) {
      #expect(copy.count == array.count)
      #expect(Array(copy) == array)
      #expect(copy.indices == array.indices)
    }
  }

  @Test func elementsAreReleasedOnceWhateverTheSharing() {
    let before = Tracked.alive
    do {
      var first = PersistentArray((0..<1_000).map(Tracked.init))
      var second = first
      second[10] = Tracked(-1)
      second.append(Tracked(1_000))
      first[999] = Tracked(-2)
      first.append(Tracked(1_001))
      #expect(first[10].value == 10 && second[10].value == -1)
      #expect(first[999].value == -2 && second[999].value == 999)
      #expect(first[1_000].value == 1_001 && second[1_000].value == 1_000)
      #expect(Tracked.alive - before == 1_000 + 4)
    }
    #expect(Tracked.alive == before)
  }
}
