import Foundation

/// A small Mapbox Vector Tile reader written for the tests, independent of the encoder: it
/// reads protobuf fields by hand and turns geometry commands back into points.
struct VectorTileDecoder {
  enum Value: Equatable {
    case string(String)
    case double(Double)
    case uint(UInt64)
    case other
  }

  struct Feature {
    var id: UInt64
    var type: UInt64
    var attributes: [String: Value]
    /// Parts (lines or points) in tile units.
    var parts: [[(x: Int, y: Int)]]
  }

  struct Layer {
    var name = ""
    var version: UInt64 = 0
    var extent: UInt64 = 0
    var features: [Feature] = []
  }

  struct Failure: Error { var reason: String }

  private struct Reader {
    let bytes: [UInt8]
    var offset = 0

    var atEnd: Bool { offset >= bytes.count }

    mutating func varint() throws -> UInt64 {
      var result: UInt64 = 0
      var shift: UInt64 = 0
      while true {
        guard offset < bytes.count, shift < 64 else { throw Failure(reason: "truncated varint") }
        let byte = bytes[offset]
        offset += 1
        result |= UInt64(byte & 0x7F) << shift
        if byte < 0x80 { return result }
        shift += 7
      }
    }

    mutating func field() throws -> (number: UInt64, wire: UInt64) {
      let key = try varint()
      return (key >> 3, key & 7)
    }

    mutating func chunk() throws -> [UInt8] {
      let length = Int(try varint())
      guard length <= bytes.count - offset else { throw Failure(reason: "truncated bytes") }
      defer { offset += length }
      return Array(bytes[offset..<(offset + length)])
    }

    mutating func fixed64() throws -> UInt64 {
      guard bytes.count - offset >= 8 else { throw Failure(reason: "truncated fixed64") }
      var value: UInt64 = 0
      for i in 0..<8 { value |= UInt64(bytes[offset + i]) << (8 * UInt64(i)) }
      offset += 8
      return value
    }

    mutating func skip(_ wire: UInt64) throws {
      switch wire {
      case 0: _ = try varint()
      case 1: offset += 8
      case 2: _ = try chunk()
      case 5: offset += 4
      default: throw Failure(reason: "wire type \(wire)")
      }
    }

    mutating func packed() throws -> [UInt64] {
      var inner = Reader(bytes: try chunk())
      var values: [UInt64] = []
      while !inner.atEnd { values.append(try inner.varint()) }
      return values
    }
  }

  static func decode(_ data: Data) throws -> [Layer] {
    var reader = Reader(bytes: Array(data))
    var layers: [Layer] = []
    while !reader.atEnd {
      let (number, wire) = try reader.field()
      if number == 3, wire == 2 {
        layers.append(try layer(try reader.chunk()))
      } else {
        try reader.skip(wire)
      }
    }
    return layers
  }

  private static func layer(_ bytes: [UInt8]) throws -> Layer {
    var reader = Reader(bytes: bytes)
    var layer = Layer()
    var keys: [String] = []
    var values: [Value] = []
    var raw: [(id: UInt64, type: UInt64, tags: [UInt64], geometry: [UInt64])] = []
    while !reader.atEnd {
      let (number, wire) = try reader.field()
      switch (number, wire) {
      case (15, 0): layer.version = try reader.varint()
      case (1, 2): layer.name = String(decoding: try reader.chunk(), as: UTF8.self)
      case (3, 2): keys.append(String(decoding: try reader.chunk(), as: UTF8.self))
      case (5, 0): layer.extent = try reader.varint()
      case (4, 2):
        var inner = Reader(bytes: try reader.chunk())
        var value = Value.other
        while !inner.atEnd {
          let (n, w) = try inner.field()
          switch (n, w) {
          case (1, 2): value = .string(String(decoding: try inner.chunk(), as: UTF8.self))
          case (3, 1): value = .double(Double(bitPattern: try inner.fixed64()))
          case (5, 0): value = .uint(try inner.varint())
          default: try inner.skip(w)
          }
        }
        values.append(value)
      case (2, 2):
        var inner = Reader(bytes: try reader.chunk())
        var feature: (id: UInt64, type: UInt64, tags: [UInt64], geometry: [UInt64]) = (0, 0, [], [])
        while !inner.atEnd {
          let (n, w) = try inner.field()
          switch (n, w) {
          case (1, 0): feature.id = try inner.varint()
          case (2, 2): feature.tags = try inner.packed()
          case (3, 0): feature.type = try inner.varint()
          case (4, 2): feature.geometry = try inner.packed()
          default: try inner.skip(w)
          }
        }
        raw.append(feature)
      default: try reader.skip(wire)
      }
    }
    for feature in raw {
      var attributes: [String: Value] = [:]
      guard feature.tags.count % 2 == 0 else { throw Failure(reason: "odd tags") }
      for i in stride(from: 0, to: feature.tags.count, by: 2) {
        let k = Int(feature.tags[i]), v = Int(feature.tags[i + 1])
        guard keys.indices.contains(k), values.indices.contains(v) else {
          throw Failure(reason: "tag index out of range")
        }
        attributes[keys[k]] = values[v]
      }
      layer.features.append(
        Feature(
          id: feature.id, type: feature.type, attributes: attributes,
          parts: try geometry(feature.geometry)))
    }
    return layer
  }

  private static func geometry(_ commands: [UInt64]) throws -> [[(x: Int, y: Int)]] {
    var parts: [[(x: Int, y: Int)]] = []
    var x = 0, y = 0, i = 0
    func unzig(_ value: UInt64) -> Int {
      Int(value >> 1) ^ -Int(value & 1)
    }
    while i < commands.count {
      let id = commands[i] & 7, count = Int(commands[i] >> 3)
      i += 1
      guard id == 1 || id == 2 else { throw Failure(reason: "command \(id)") }
      if id == 1 { parts.append([]) }
      guard !parts.isEmpty, commands.count - i >= 2 * count else {
        throw Failure(reason: "bad command sequence")
      }
      for _ in 0..<count {
        x += unzig(commands[i])
        y += unzig(commands[i + 1])
        i += 2
        parts[parts.count - 1].append((x, y))
      }
    }
    return parts
  }
}
