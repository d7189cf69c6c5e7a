import Foundation

/// The bytes of a cached answer in one fixed allocation, so that the socket layer can hand
/// them to libmicrohttpd without a copy per response: each response retains the buffer
/// until libmicrohttpd has sent it and calls back.
final class SharedBody: @unchecked Sendable {
  // Unchecked: both properties are set once in `init` and never written again; the memory
  // `bytes` points to is owned by `data` (freed when the last copy of it goes), so it stays
  // valid and unchanged while this object lives.

  /// The bytes, at an address that stays put while this object lives.
  let bytes: UnsafeRawBufferPointer
  /// The same bytes as `Data` (no copy), which owns the allocation: made once, so that each
  /// response holding it costs a retain, not an allocation.
  let data: Data

  /// A copy of `source`.
  init(copying source: Data) {
    let count = source.count
    guard count > 0 else {
      bytes = UnsafeRawBufferPointer(start: nil, count: 0)
      data = Data()
      return
    }
    let base = UnsafeMutableRawPointer.allocate(byteCount: count, alignment: 16)
    source.copyBytes(to: UnsafeMutableRawBufferPointer(start: base, count: count))
    bytes = UnsafeRawBufferPointer(start: base, count: count)
    data = Data(
      bytesNoCopy: base, count: count, deallocator: .custom { pointer, _ in pointer.deallocate() })
  }
}
