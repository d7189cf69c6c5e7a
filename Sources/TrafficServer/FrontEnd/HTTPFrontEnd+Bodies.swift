import CMicroHTTPD
import Foundation
import Traffic

// libmicrohttpd's callbacks for bodies that are not one buffer: event streams, documents
// written as they are sent, and cached bodies sent from the cache's own buffer.

func streamReader(
  cls: UnsafeMutableRawPointer?, position: UInt64, buffer: UnsafeMutablePointer<CChar>?,
  max: Int
) -> Int {
  guard let cls, let buffer else { return traffic_mhd_end_of_stream() }
  let binding = Unmanaged<StreamBinding>.fromOpaque(cls).takeUnretainedValue()
  let result = binding.stream.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: max)) {
    if let connection = OpaquePointer(bitPattern: binding.connectionBits) {
      MHD_suspend_connection(connection)
    }
  }
  switch result {
  case .bytes(let count): return count
  case .wait: return 0
  case .end: return traffic_mhd_end_of_stream()
  }
}

func bodyReader(
  cls: UnsafeMutableRawPointer?, position: UInt64, buffer: UnsafeMutablePointer<CChar>?,
  max: Int
) -> Int {
  guard let cls, let buffer else { return traffic_mhd_end_of_stream() }
  let body = Unmanaged<ResponseBodyStream>.fromOpaque(cls).takeUnretainedValue()
  let count = body.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: max))
  return count ?? traffic_mhd_end_of_stream()
}

func bodyFreed(cls: UnsafeMutableRawPointer?) {
  guard let cls else { return }
  let body = Unmanaged<ResponseBodyStream>.fromOpaque(cls).takeRetainedValue()
  body.close()
}

func sharedBodyFreed(cls: UnsafeMutableRawPointer?) {
  guard let cls else { return }
  Unmanaged<SharedBytes>.fromOpaque(cls).release()
}

func streamFreed(cls: UnsafeMutableRawPointer?) {
  guard let cls else { return }
  let binding = Unmanaged<StreamBinding>.takeRetainedValue(
    Unmanaged<StreamBinding>.fromOpaque(cls))()
  binding.frontEnd.streamClosed(binding.stream)
}

extension HTTPFrontEnd {
  /// How many bytes of a chunked body over `limit` are read and dropped to answer its 413:
  /// four times the limit, at least 64 MiB; past that the connection is closed.
  static func discardedBodyBound(limit: Int) -> Int { max(4 * limit, 64 << 20) }
}
