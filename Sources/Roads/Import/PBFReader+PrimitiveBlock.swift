import Codec

/// Decoding of `PrimitiveBlock` messages (osmformat.proto): ways in the first pass, node
/// coordinates in the second.
extension PBFReader {
  /// The parts of a `PrimitiveBlock` needed to decode its groups.
  private struct BlockLayout {
    var strings: [Range<Int>] = []
    var groups: [Range<Int>] = []
    /// Coordinate unit in nanodegrees (default 100).
    var granularity: Int64 = 100
    var latitudeOffset: Int64 = 0
    var longitudeOffset: Int64 = 0
  }

  private func layout(_ reader: inout ProtobufReader) throws(ProtobufError) -> BlockLayout {
    var layout = BlockLayout()
    while let (number, wireType) = try reader.field() {
      switch (number, wireType) {
      case (1, 2):
        var table = ProtobufReader(reader.bytes, range: try reader.lengthDelimited())
        while let (field, type) = try table.field() {
          if field == 1, type == 2 {
            layout.strings.append(try table.lengthDelimited())
          } else {
            try table.skip(wireType: type)
          }
        }
      case (2, 2): layout.groups.append(try reader.lengthDelimited())
      case (17, 0):
        layout.granularity = Int64(Int32(truncatingIfNeeded: try reader.varint()))
      case (19, 0): layout.latitudeOffset = Int64(bitPattern: try reader.varint())
      case (20, 0): layout.longitudeOffset = Int64(bitPattern: try reader.varint())
      default: try reader.skip(wireType: wireType)
      }
    }
    guard layout.granularity > 0 else {
      throw ProtobufError(offset: reader.position, reason: "granularity must be positive")
    }
    return layout
  }

  /// Adds the block's road ways to `builder`.
  ///
  /// - Returns: whether the block holds nodes (so that the second pass reads it again).
  func readWays(
    _ block: Block, into builder: inout OSMNetworkBuilder
  ) throws(RoadsError)
    -> Bool
  {
    do {
      return try ProtobufReader.withBytes(block.data) {
        (bytes: UnsafeRawBufferPointer) throws(ProtobufError) -> Bool in
        var reader = ProtobufReader(bytes, range: 0..<bytes.count)
        let layout = try layout(&reader)
        var hasNodes = false
        var strings: [String]?
        var keys: [UInt64] = []
        var values: [UInt64] = []
        var refs: [Int64] = []
        for group in layout.groups {
          var groupReader = ProtobufReader(bytes, range: group)
          while let (number, wireType) = try groupReader.field() {
            guard number == 3, wireType == 2 else {
              if number == 1 || number == 2 { hasNodes = true }
              try groupReader.skip(wireType: wireType)
              continue
            }
            let table =
              strings ?? layout.strings.map { String(decoding: bytes[$0], as: UTF8.self) }
            strings = table
            var way = ProtobufReader(bytes, range: try groupReader.lengthDelimited())
            let wayStart = way.position
            var id: Int64?
            var info = Info()
            keys.removeAll(keepingCapacity: true)
            values.removeAll(keepingCapacity: true)
            refs.removeAll(keepingCapacity: true)
            while let (field, type) = try way.field() {
              switch (field, type) {
              case (1, 0): id = Int64(bitPattern: try way.varint())
              case (2, _): try way.repeatedVarints(wireType: type, into: &keys)
              case (3, _): try way.repeatedVarints(wireType: type, into: &values)
              case (4, 2): info = try Self.info(&way)
              case (8, _): try way.deltaCodedSignedVarints(wireType: type, into: &refs)
              default: try way.skip(wireType: type)
              }
            }
            guard let id else { throw ProtobufError(offset: wayStart, reason: "way without id") }
            guard keys.count == values.count else {
              throw ProtobufError(offset: wayStart, reason: "way \(id) has unpaired tags")
            }
            var tags: [String: String] = [:]
            for (key, value) in zip(keys, values) {
              guard key < UInt64(table.count), value < UInt64(table.count) else {
                throw ProtobufError(
                  offset: wayStart, reason: "way \(id) names a string beyond the string table")
              }
              tags[table[Int(key)]] = table[Int(value)]
            }
            builder.addWay(
              id: id, version: info.version, deleted: !info.visible, nodeIDs: refs, tags: tags,
              options: options)
          }
        }
        return hasNodes
      }
    } catch {
      throw malformedContent(block, error)
    }
  }

  /// Records the coordinates of the nodes in the block that `builder` needs.
  ///
  /// - Parameter cursor: position in `builder.nodeIDs` reached so far; files sorted by id
  ///   (the norm) are then matched in one forward sweep, others by binary search.
  func readNodes(
    _ block: Block, into builder: inout OSMNetworkBuilder, cursor: inout Int
  )
    throws(RoadsError)
  {
    let ids = builder.nodeIDs
    func locate(_ id: Int64) -> Int? {
      while cursor < ids.count, ids[cursor] < id { cursor += 1 }
      if cursor < ids.count, ids[cursor] == id { return cursor }
      if cursor > 0, ids[cursor - 1] >= id { return builder.nodeIndex(of: id) }
      return nil
    }
    do {
      try ProtobufReader.withBytes(block.data) {
        (bytes: UnsafeRawBufferPointer) throws(ProtobufError) in
        var reader = ProtobufReader(bytes, range: 0..<bytes.count)
        let layout = try layout(&reader)
        func record(
          _ id: Int64, _ rawLatitude: Int64, _ rawLongitude: Int64, _ info: Info
        ) {
          guard let index = locate(id) else { return }
          // A deleted version leaves the node out (its coordinates are not its place).
          guard info.visible else {
            return builder.offerNode(index: index, coordinates: nil, version: info.version)
          }
          // lat = 1e-9 * (lat_offset + granularity * lat), in floating point so that no
          // product of hostile values can overflow.
          let latitude =
            (Double(layout.latitudeOffset) + Double(layout.granularity) * Double(rawLatitude))
            * 1e-9
          let longitude =
            (Double(layout.longitudeOffset) + Double(layout.granularity) * Double(rawLongitude))
            * 1e-9
          // A node off the globe is left out (and counted); ways through it are cut there.
          guard (-90...90).contains(latitude), (-180...180).contains(longitude) else {
            builder.invalidNodes += 1
            return builder.offerNode(index: index, coordinates: nil, version: info.version)
          }
          builder.offerNode(
            index: index, coordinates: (latitude, longitude), version: info.version)
        }
        var nodeIDs: [Int64] = []
        var latitudes: [Int64] = []
        var longitudes: [Int64] = []
        var versions: [UInt64] = []
        var visibles: [UInt64] = []
        for group in layout.groups {
          var groupReader = ProtobufReader(bytes, range: group)
          while let (number, wireType) = try groupReader.field() {
            switch (number, wireType) {
            case (1, 2):
              var node = ProtobufReader(bytes, range: try groupReader.lengthDelimited())
              let start = node.position
              var id: Int64?
              var lat: Int64?
              var lon: Int64?
              var info = Info()
              while let (field, type) = try node.field() {
                switch (field, type) {
                case (1, 0): id = Varint.unzigzag(try node.varint())
                case (4, 2): info = try Self.info(&node)
                case (8, 0): lat = Varint.unzigzag(try node.varint())
                case (9, 0): lon = Varint.unzigzag(try node.varint())
                default: try node.skip(wireType: type)
                }
              }
              guard let id, let lat, let lon else {
                throw ProtobufError(offset: start, reason: "node lacks id, lat or lon")
              }
              record(id, lat, lon, info)
            case (2, 2):
              var dense = ProtobufReader(bytes, range: try groupReader.lengthDelimited())
              let start = dense.position
              nodeIDs.removeAll(keepingCapacity: true)
              latitudes.removeAll(keepingCapacity: true)
              longitudes.removeAll(keepingCapacity: true)
              versions.removeAll(keepingCapacity: true)
              visibles.removeAll(keepingCapacity: true)
              while let (field, type) = try dense.field() {
                switch field {
                case 1: try dense.deltaCodedSignedVarints(wireType: type, into: &nodeIDs)
                case 5 where type == 2:
                  try Self.denseInfo(&dense, versions: &versions, visibles: &visibles)
                case 8: try dense.deltaCodedSignedVarints(wireType: type, into: &latitudes)
                case 9: try dense.deltaCodedSignedVarints(wireType: type, into: &longitudes)
                default: try dense.skip(wireType: type)
                }
              }
              guard nodeIDs.count == latitudes.count, nodeIDs.count == longitudes.count else {
                throw ProtobufError(
                  offset: start,
                  reason:
                    "dense nodes have \(nodeIDs.count) ids, \(latitudes.count) latitudes, "
                    + "\(longitudes.count) longitudes")
              }
              // DenseInfo's lists are empty (no metadata; `visible` without history) or one
              // value per node.
              guard versions.isEmpty || versions.count == nodeIDs.count,
                visibles.isEmpty || visibles.count == nodeIDs.count
              else {
                throw ProtobufError(
                  offset: start,
                  reason:
                    "dense nodes have \(nodeIDs.count) ids, \(versions.count) versions, "
                    + "\(visibles.count) visible flags")
              }
              for i in nodeIDs.indices {
                let info = Info(
                  version: versions.isEmpty ? nil : Int64(Int32(truncatingIfNeeded: versions[i])),
                  visible: visibles.isEmpty || visibles[i] != 0)
                record(nodeIDs[i], latitudes[i], longitudes[i], info)
              }
            default:
              try groupReader.skip(wireType: wireType)
            }
          }
        }
      }
    } catch {
      throw malformedContent(block, error)
    }
  }

  /// What the reader takes of an object's metadata (`Info`): its version and whether it is
  /// visible (false: a deleted version, in a file with `HistoricalInformation`).
  struct Info {
    var version: Int64?
    var visible = true
  }

  /// Reads an `Info` message, the field's value at the reader.
  private static func info(_ reader: inout ProtobufReader) throws(ProtobufError) -> Info {
    var message = ProtobufReader(reader.bytes, range: try reader.lengthDelimited())
    var info = Info()
    while let (field, type) = try message.field() {
      switch (field, type) {
      case (1, 0): info.version = Int64(Int32(truncatingIfNeeded: try message.varint()))
      case (6, 0): info.visible = try message.varint() != 0
      default: try message.skip(wireType: type)
      }
    }
    return info
  }

  /// Reads a `DenseInfo` message's versions (packed, not delta-coded) and visible flags, the
  /// field's value at the reader.
  private static func denseInfo(
    _ reader: inout ProtobufReader, versions: inout [UInt64], visibles: inout [UInt64]
  ) throws(ProtobufError) {
    var message = ProtobufReader(reader.bytes, range: try reader.lengthDelimited())
    while let (field, type) = try message.field() {
      switch field {
      case 1: try message.repeatedVarints(wireType: type, into: &versions)
      case 6: try message.repeatedVarints(wireType: type, into: &visibles)
      default: try message.skip(wireType: type)
      }
    }
  }

  private func malformedContent(_ block: Block, _ error: ProtobufError) -> RoadsError {
    .malformed(
      file: fileName,
      position: "block \(block.index) at byte \(block.offset), content byte \(error.offset)",
      reason: error.reason)
  }
}
