import Foundation

/// Bytes in one fixed allocation, written once, that a socket layer can hand to a C library
/// without a copy per send (an answer kept by the response cache, or one just assembled):
/// each send retains the object until the library is done with the bytes and calls back.
package final class SharedBytes: @unchecked Sendable {
  // Unchecked: the properties are set once in `init` and never written again; the memory
  // `bytes` points to is freed when both this object and the last copy of `data` are gone,
  // so it stays valid and unchanged while this object lives.

  /// The bytes, at an address that stays put while this object lives.
  package let bytes: UnsafeRawBufferPointer
  /// The same bytes as `Data` (no copy, unless they fit in `Data`'s inline form): made
  /// once, so that each holder costs a retain, not an allocation.
  package let data: Data
  /// Owns the allocation; held by this object and by `data`'s deallocator, since `Data`
  /// copies a few bytes inline and lets the buffer go at once.
  private let allocation: Allocation

  private final class Allocation: @unchecked Sendable {
    let base: UnsafeMutableRawPointer?
    init(_ base: UnsafeMutableRawPointer?) { self.base = base }
    deinit { base?.deallocate() }
  }

  /// A copy of `source`.
  package convenience init(copying source: Data) {
    self.init(capacity: source.count) { buffer in
      source.copyBytes(to: buffer)
    }
  }

  /// Bytes written in place by `write`, which fills the start of a buffer of `capacity`
  /// bytes and returns how many it wrote (at most `capacity`).
  package init(capacity: Int, write: (UnsafeMutableRawBufferPointer) -> Int) {
    guard capacity > 0 else {
      bytes = UnsafeRawBufferPointer(start: nil, count: 0)
      data = Data()
      allocation = Allocation(nil)
      return
    }
    let base = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 8)
    let allocation = Allocation(base)
    let count = write(UnsafeMutableRawBufferPointer(start: base, count: capacity))
    precondition(count >= 0 && count <= capacity, "SharedBytes: wrote past the capacity")
    self.allocation = allocation
    bytes = UnsafeRawBufferPointer(start: base, count: count)
    data = Data(
      bytesNoCopy: base, count: count,
      deallocator: .custom { _, _ in withExtendedLifetime(allocation) {} })
  }
}
