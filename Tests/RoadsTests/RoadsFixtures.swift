import Codec
import Foundation
import Geo
import Roads
import TrafficTestSupport

/// Files under Tests/RoadsTests/Fixtures.
enum RoadsFixtures {
  static func url(_ name: String) -> URL {
    Fixtures.repositoryRoot.appendingPathComponent("Tests/RoadsTests/Fixtures/\(name)")
  }

  /// The Liechtenstein extract (`.osm.pbf` / `.osm.bz2`) without its extension.
  static let liechtenstein = Fixtures.sample("osm/liechtenstein-2013-08-03")
}

/// A small protocol-buffer writer for building PBF test files by hand.
struct ProtobufWriter {
  var bytes: [UInt8] = []

  mutating func varint(_ value: UInt64) {
    var v = value
    while v >= 0x80 {
      bytes.append(UInt8(v & 0x7F) | 0x80)
      v >>= 7
    }
    bytes.append(UInt8(v))
  }

  mutating func key(_ field: Int, _ wireType: Int) { varint(UInt64(field << 3 | wireType)) }

  mutating func varintField(_ field: Int, _ value: UInt64) {
    key(field, 0)
    varint(value)
  }

  mutating func bytesField(_ field: Int, _ value: [UInt8]) {
    key(field, 2)
    varint(UInt64(value.count))
    bytes += value
  }

  mutating func packedSigned(_ field: Int, deltaCoded values: [Int64]) {
    var inner = ProtobufWriter()
    var previous: Int64 = 0
    for value in values {
      let delta = value - previous
      previous = value
      inner.varint(UInt64(bitPattern: (delta << 1) ^ (delta >> 63)))
    }
    bytesField(field, inner.bytes)
  }

  mutating func packedUnsigned(_ field: Int, _ values: [UInt64]) {
    var inner = ProtobufWriter()
    for value in values { inner.varint(value) }
    bytesField(field, inner.bytes)
  }

  /// One PBF file block: length, BlobHeader, raw Blob.
  static func block(type: String, content: [UInt8]) -> [UInt8] {
    var blob = ProtobufWriter()
    blob.bytesField(1, content)
    var header = ProtobufWriter()
    header.bytesField(1, Array(type.utf8))
    header.varintField(3, UInt64(blob.bytes.count))
    let n = header.bytes.count
    return [UInt8(n >> 24 & 0xFF), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)]
      + header.bytes + blob.bytes
  }
}
