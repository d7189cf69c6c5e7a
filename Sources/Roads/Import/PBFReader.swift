import Codec
import Foundation
import Zlib

/// Reads OpenStreetMap PBF files block by block (OpenStreetMap wiki, "PBF Format";
/// `fileformat.proto` and `osmformat.proto` of the OSM-binary project).
///
/// A file is a sequence of blocks: a 4-byte big-endian length, a `BlobHeader` (type
/// `OSMHeader` or `OSMData`, and the blob size), then a `Blob` holding raw or zlib-compressed
/// bytes. The header block lists required features; data blocks hold a `PrimitiveBlock`
/// (a string table, coordinate granularity and offsets, and groups of nodes, dense nodes,
/// ways and relations).
///
/// The import makes two passes so that memory follows the road network, not the file:
/// 1. every block: decode the ways, keep those that are roads (ids, node references, tags
///    digested into attributes), and note which blocks hold nodes;
/// 2. only the node blocks again: record the coordinates of the nodes the kept ways need.
/// At most one decompressed block (32 MiB by the specification) is held at a time.
///
/// History files (required feature `HistoricalInformation`) are read too: each object's
/// versions are matched as ``OSMVersions`` says (the highest is the object, absent when it
/// is deleted: `Info.visible` / `DenseInfo.visible` false), which costs nothing beyond the
/// versions of the road ways and road nodes.
struct PBFReader {
  /// Largest `BlobHeader`, per the specification.
  static let maximumHeaderSize = 64 * 1024
  /// Largest `Blob` (compressed or raw), per the specification.
  static let maximumBlobSize = 32 * 1024 * 1024
  /// Features this reader understands in `HeaderBlock.required_features`.
  static let supportedFeatures: Set<String> = [
    "OsmSchema-V0.6", "DenseNodes", "HistoricalInformation",
  ]

  let url: URL
  let options: OSMImportOptions
  /// Told the bytes read in each of the two passes.
  var progress: ProgressReporter?
  var fileName: String { url.lastPathComponent }

  /// One block's decompressed content and where it starts in the file.
  struct Block {
    let type: String
    let data: [UInt8]
    let offset: Int
    let index: Int
    let nextOffset: Int
  }

  /// Imports the file into a network.
  ///
  /// - Throws: ``RoadsError`` naming the file and the block and byte offset of any defect.
  func read() throws(RoadsError) -> (network: RoadNetwork, report: OSMImportReport) {
    var builder = OSMNetworkBuilder()
    var nodeBlockOffsets: [(offset: Int, index: Int)] = []
    var sawHeader = false
    let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? nil
    progress?.begin(
      "network import", detail: "ways (pass 1 of 2)", total: size.map(Int64.init), unit: .bytes)
    try forEachBlock(at: nil) { block throws(RoadsError) in
      progress?.update(done: Int64(block.nextOffset))
      switch block.type {
      case "OSMHeader":
        try checkHeader(block)
        sawHeader = true
      case "OSMData":
        guard sawHeader else {
          throw malformed(block, 0, "data block before the OSMHeader block")
        }
        if try readWays(block, into: &builder) {
          nodeBlockOffsets.append((block.offset, block.index))
        }
      default:
        break  // Unknown block types are to be skipped, per the specification.
      }
    }
    builder.finishWays()
    var cursor = 0
    progress?.begin(
      "network import", detail: "nodes (pass 2 of 2)", total: Int64(nodeBlockOffsets.count),
      unit: .items("blocks"))
    try forEachBlock(at: nodeBlockOffsets) { block throws(RoadsError) in
      try readNodes(block, into: &builder, cursor: &cursor)
      progress?.advance(by: 1)
    }
    progress?.begin("network import", detail: "building segments", unit: .items(""))
    return builder.build()
  }

  // MARK: Blocks

  /// Calls `body` with each block of the file, or with the blocks starting at the given
  /// offsets.
  private func forEachBlock(
    at offsets: [(offset: Int, index: Int)]?, _ body: (Block) throws(RoadsError) -> Void
  ) throws(RoadsError) {
    let handle: FileHandle
    do {
      handle = try FileHandle(forReadingFrom: url)
    } catch {
      throw .unreadable(file: url.path, reason: SystemErrorText.reason(error))
    }
    defer { try? handle.close() }
    if let offsets {
      for (offset, index) in offsets {
        do { try handle.seek(toOffset: UInt64(offset)) } catch {
          throw .unreadable(file: url.path, reason: "cannot seek to byte \(offset)")
        }
        guard let block = try readBlock(handle, offset: offset, index: index) else {
          throw .malformed(
            file: fileName, position: "block \(index) at byte \(offset)",
            reason: "file ended early")
        }
        try body(block)
      }
      return
    }
    var offset = 0
    var index = 0
    while let block = try readBlock(handle, offset: offset, index: index) {
      try body(block)
      offset = block.nextOffset
      index += 1
    }
  }

  private func read(
    _ handle: FileHandle, count: Int, offset: Int, index: Int, what: String
  )
    throws(RoadsError) -> Data
  {
    let data: Data
    do {
      data = try handle.read(upToCount: count) ?? Data()
    } catch {
      throw .unreadable(file: url.path, reason: SystemErrorText.reason(error))
    }
    guard data.count == count else {
      throw .malformed(
        file: fileName, position: "block \(index) at byte \(offset)",
        reason: "truncated \(what): expected \(count) bytes, found \(data.count)")
    }
    return data
  }

  /// Reads the block at the handle's position, or `nil` at a clean end of file.
  private func readBlock(
    _ handle: FileHandle, offset: Int, index: Int
  ) throws(RoadsError)
    -> Block?
  {
    let lengthData: Data
    do {
      lengthData = try handle.read(upToCount: 4) ?? Data()
    } catch {
      throw .unreadable(file: url.path, reason: SystemErrorText.reason(error))
    }
    if lengthData.isEmpty { return nil }
    let position = "block \(index) at byte \(offset)"
    guard lengthData.count == 4 else {
      throw .malformed(file: fileName, position: position, reason: "truncated block length")
    }
    let headerLength = lengthData.reduce(0) { $0 << 8 | Int($1) }
    guard headerLength > 0, headerLength <= Self.maximumHeaderSize else {
      throw .malformed(
        file: fileName, position: position,
        reason: "BlobHeader size \(headerLength) outside 1...\(Self.maximumHeaderSize)")
    }
    let header = try read(
      handle, count: headerLength, offset: offset, index: index, what: "BlobHeader")
    var type: String?
    var dataSize: Int?
    do {
      try ProtobufReader.withBytes(header) { (raw: UnsafeRawBufferPointer) throws(ProtobufError) in
        var reader = ProtobufReader(raw, range: 0..<raw.count)
        while let (number, wireType) = try reader.field() {
          switch (number, wireType) {
          case (1, 2):
            type = String(decoding: raw[try reader.lengthDelimited()], as: UTF8.self)
          case (3, 0):
            dataSize = Int(truncatingIfNeeded: Int32(truncatingIfNeeded: try reader.varint()))
          default:
            try reader.skip(wireType: wireType)
          }
        }
      }
    } catch {
      throw .malformed(
        file: fileName, position: "\(position), BlobHeader byte \(error.offset)",
        reason: error.reason)
    }
    guard let type, let dataSize else {
      throw .malformed(
        file: fileName, position: position, reason: "BlobHeader lacks its type or datasize")
    }
    guard dataSize >= 0, dataSize <= Self.maximumBlobSize else {
      throw .malformed(
        file: fileName, position: position,
        reason: "Blob size \(dataSize) outside 0...\(Self.maximumBlobSize)")
    }
    let blob = try read(handle, count: dataSize, offset: offset, index: index, what: "Blob")
    let data = try decompress(blob, position: position)
    return Block(
      type: type, data: data, offset: offset, index: index,
      nextOffset: offset + 4 + headerLength + dataSize)
  }

  /// The blob's content: raw bytes, or zlib data inflated to its declared `raw_size`.
  private func decompress(_ blob: Data, position: String) throws(RoadsError) -> [UInt8] {
    var raw: Range<Int>?
    var compressed: (range: Range<Int>, kind: Compression)?
    var rawSize: Int?
    var otherCompression: String?
    do {
      try ProtobufReader.withBytes(blob) { (bytes: UnsafeRawBufferPointer) throws(ProtobufError) in
        var reader = ProtobufReader(bytes, range: 0..<bytes.count)
        while let (number, wireType) = try reader.field() {
          switch (number, wireType) {
          case (1, 2): raw = try reader.lengthDelimited()
          case (2, 0):
            rawSize = Int(truncatingIfNeeded: Int32(truncatingIfNeeded: try reader.varint()))
          case (3, 2): compressed = (try reader.lengthDelimited(), .zlib)
          case (6, 2): compressed = (try reader.lengthDelimited(), .lz4)
          case (7, 2): compressed = (try reader.lengthDelimited(), .zstd)
          case (4, 2), (5, 2):
            _ = try reader.lengthDelimited()
            otherCompression = [4: "lzma", 5: "bzip2"][number]
          default: try reader.skip(wireType: wireType)
          }
        }
      }
    } catch {
      throw .malformed(
        file: fileName, position: "\(position), Blob byte \(error.offset)", reason: error.reason)
    }
    if let raw { return [UInt8](blob[raw]) }
    guard let compressed else {
      if let otherCompression {
        throw .unsupported(
          file: fileName,
          reason:
            "\(position) uses \(otherCompression) compression (zlib, lz4 and zstd are read; "
            + "osmium cat --output-format pbf,pbf_compression=zlib rewrites it)")
      }
      throw .malformed(file: fileName, position: position, reason: "Blob holds no data")
    }
    guard let rawSize, rawSize >= 0, rawSize <= Self.maximumBlobSize else {
      throw .malformed(
        file: fileName, position: position,
        reason:
          "\(compressed.kind.rawValue) Blob without a raw_size within 0...\(Self.maximumBlobSize)"
      )
    }
    return try Inflater.decompress(
      blob[compressed.range], kind: compressed.kind, expectedSize: rawSize
    ) { reason in
      RoadsError.malformed(file: fileName, position: position, reason: reason)
    }
  }

  private func malformed(_ block: Block, _ offset: Int, _ reason: String) -> RoadsError {
    .malformed(
      file: fileName,
      position: "block \(block.index) at byte \(block.offset), content byte \(offset)",
      reason: reason)
  }

  // MARK: Header

  private func checkHeader(_ block: Block) throws(RoadsError) {
    var required: [String] = []
    do {
      try ProtobufReader.withBytes(block.data) {
        (bytes: UnsafeRawBufferPointer) throws(ProtobufError) in
        var reader = ProtobufReader(bytes, range: 0..<bytes.count)
        while let (number, wireType) = try reader.field() {
          if number == 4, wireType == 2 {
            required.append(String(decoding: bytes[try reader.lengthDelimited()], as: UTF8.self))
          } else {
            try reader.skip(wireType: wireType)
          }
        }
      }
    } catch {
      throw malformed(block, error.offset, error.reason)
    }
    for feature in required where !Self.supportedFeatures.contains(feature) {
      throw .unsupported(file: fileName, reason: "required feature \(feature)")
    }
  }
}
