import Foundation

/// The bytes of a cached answer in one fixed allocation, so that the socket layer can hand
/// them to libmicrohttpd without a copy per response: each response retains the buffer
/// until libmicrohttpd has sent it and calls back.
final class SharedBody: @unchecked Sendable {
  // Unchecked: `bytes` is written once in `init` and only read afterwards; the memory is
  // freed in `deinit`, after the last holder (the cache or a response being sent) let go.
  let bytes: UnsafeRawBufferPointer

  /// A copy of `data`.
  init(copying data: Data) {
    let buffer = UnsafeMutableRawBufferPointer.allocate(
      byteCount: max(data.count, 1), alignment: 16)
    data.copyBytes(to: buffer)
    bytes = UnsafeRawBufferPointer(rebasing: buffer[..<data.count])
  }

  deinit {
    bytes.baseAddress.map { UnsafeMutableRawPointer(mutating: $0).deallocate() }
  }

  /// The bytes as `Data` that refers to this buffer (no copy) and keeps it alive.
  var data: Data {
    guard let base = bytes.baseAddress, !bytes.isEmpty else { return Data() }
    return Data(
      bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: bytes.count,
      deallocator: .custom { [self] _, _ in withExtendedLifetime(self) {} })
  }
}
