import Foundation
import Testing

@testable import Traffic

/// `SharedBytes` hands its address to C code that reads it later, so the bytes must stay
/// put and alive as long as the object, whatever size they have.
@Suite struct SharedBytesTests {
  @Test(arguments: [0, 1, 2, 14, 15, 16, 64, 4_096, 100_000])
  func bytesAndDataAgree(count: Int) {
    let source = Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
    let shared = SharedBytes(copying: source)
    #expect(shared.data == source)
    #expect(Data(shared.bytes) == source)
  }

  /// `Data` keeps a few bytes inline and lets a no-copy buffer go at once; the object must
  /// keep the buffer itself, or the allocations below reuse it.
  @Test func smallBytesStayAliveWhileHeld() {
    let held = (0..<1_000).map { number in
      SharedBytes(copying: Data([UInt8(number % 200), 0x7b, 0x7d]))
    }
    let others = (0..<1_000).map { _ in [UInt8](repeating: 0xff, count: 3) }
    for (number, shared) in held.enumerated() {
      #expect(Array(shared.bytes) == [UInt8(number % 200), 0x7b, 0x7d], "\(number)")
    }
    withExtendedLifetime(others) {}
  }

  @Test func writtenInPlace() {
    let shared = SharedBytes(capacity: 10) { buffer in
      for index in 0..<4 { buffer[index] = UInt8(ascii: "a") + UInt8(index) }
      return 4
    }
    #expect(shared.data == Data("abcd".utf8))
    #expect(shared.bytes.count == 4)
  }
}
