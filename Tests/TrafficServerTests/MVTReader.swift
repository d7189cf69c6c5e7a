import Foundation

/// A tiny Mapbox Vector Tile 2.1 reader for the tile route tests, independent of the
/// project's encoder: layer names, extents, and each feature's type and attributes.
struct MVTReader {
  struct Failure: Error { var reason: String }

  enum Value: Equatable {
    case string(String)
    case number(Double)
    case bool(Bool)
  }

  struct Feature {
    var type: UInt64 = 0
    var attributes: [String: Value] = [:]
    var geometryCount = 0
  }

  struct Layer {
    var name = ""
    var extent: UInt64 = 4096
    var version: UInt64 = 1
    var features: [Feature] = []
  }

  private var bytes: [UInt8]
  private var offset = 0

  private init(_ bytes: [UInt8]) { self.bytes = bytes }

  /// The layers of a tile, in order.
  static func layers(_ data: Data) throws -> [Layer] {
    var reader = MVTReader([UInt8](data))
    var layers: [Layer] = []
    while !reader.atEnd {
      let (field, wire) = try reader.key()
      if field == 3, wire == 2 {
        layers.append(try layer(try reader.chunk()))
      } else {
        try reader.skip(wire)
      }
    }
    return layers
  }

  private static func layer(_ bytes: [UInt8]) throws -> Layer {
    var reader = MVTReader(bytes)
    var layer = Layer()
    var keys: [String] = []
    var values: [Value] = []
    var rawFeatures: [(type: UInt64, tags: [Int], geometry: Int)] = []
    while !reader.atEnd {
      let (field, wire) = try reader.key()
      switch (field, wire) {
      case (1, 2): layer.name = String(decoding: try reader.chunk(), as: UTF8.self)
      case (2, 2):
        var feature = MVTReader(try reader.chunk())
        var type: UInt64 = 0
        var tags: [Int] = []
        var geometry = 0
        while !feature.atEnd {
          let (f, w) = try feature.key()
          switch (f, w) {
          case (3, 0): type = try feature.varint()
          case (2, 2):
            var packed = MVTReader(try feature.chunk())
            while !packed.atEnd { tags.append(Int(try packed.varint())) }
          case (4, 2): geometry = try feature.chunk().count
          default: try feature.skip(w)
          }
        }
        rawFeatures.append((type, tags, geometry))
      case (3, 2): keys.append(String(decoding: try reader.chunk(), as: UTF8.self))
      case (4, 2):
        var value = MVTReader(try reader.chunk())
        var decoded = Value.number(.nan)
        while !value.atEnd {
          let (f, w) = try value.key()
          switch (f, w) {
          case (1, 2): decoded = .string(String(decoding: try value.chunk(), as: UTF8.self))
          case (2, 5): decoded = .number(Double(Float(bitPattern: try value.fixed32())))
          case (3, 1): decoded = .number(Double(bitPattern: try value.fixed64()))
          case (4, 0), (5, 0): decoded = .number(Double(try value.varint()))
          case (6, 0):
            let raw = try value.varint()
            decoded = .number(Double(Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))))
          case (7, 0): decoded = .bool(try value.varint() != 0)
          default: try value.skip(w)
          }
        }
        values.append(decoded)
      case (5, 0): layer.extent = try reader.varint()
      case (15, 0): layer.version = try reader.varint()
      default: try reader.skip(wire)
      }
    }
    for raw in rawFeatures {
      guard raw.tags.count % 2 == 0 else { throw Failure(reason: "odd tag count") }
      var feature = Feature(type: raw.type, geometryCount: raw.geometry)
      for pair in stride(from: 0, to: raw.tags.count, by: 2) {
        guard keys.indices.contains(raw.tags[pair]), values.indices.contains(raw.tags[pair + 1])
        else { throw Failure(reason: "tag out of range") }
        feature.attributes[keys[raw.tags[pair]]] = values[raw.tags[pair + 1]]
      }
      layer.features.append(feature)
    }
    return layer
  }

  private var atEnd: Bool { offset >= bytes.count }

  private mutating func varint() throws -> UInt64 {
    var result: UInt64 = 0
    var shift: UInt64 = 0
    while true {
      guard offset < bytes.count, shift < 64 else { throw Failure(reason: "bad varint") }
      let byte = bytes[offset]
      offset += 1
      result |= UInt64(byte & 0x7F) << shift
      if byte < 0x80 { return result }
      shift += 7
    }
  }

  private mutating func key() throws -> (UInt64, UInt64) {
    let key = try varint()
    return (key >> 3, key & 7)
  }

  private mutating func chunk() throws -> [UInt8] {
    let length = Int(try varint())
    guard length <= bytes.count - offset else { throw Failure(reason: "truncated") }
    defer { offset += length }
    return Array(bytes[offset..<offset + length])
  }

  private mutating func fixed32() throws -> UInt32 {
    guard bytes.count - offset >= 4 else { throw Failure(reason: "truncated") }
    defer { offset += 4 }
    return (0..<4).reduce(0) { $0 | UInt32(bytes[offset + $1]) << (8 * UInt32($1)) }
  }

  private mutating func fixed64() throws -> UInt64 {
    guard bytes.count - offset >= 8 else { throw Failure(reason: "truncated") }
    defer { offset += 8 }
    return (0..<8).reduce(0) { $0 | UInt64(bytes[offset + $1]) << (8 * UInt64($1)) }
  }

  private mutating func skip(_ wire: UInt64) throws {
    switch wire {
    case 0: _ = try varint()
    case 1: _ = try fixed64()
    case 2: _ = try chunk()
    case 5: _ = try fixed32()
    default: throw Failure(reason: "wire type \(wire)")
    }
  }
}
