#!/usr/bin/env python3
"""Rewrites an OSM PBF file with its blobs compressed another way, as osmium's
pbf_compression option does: python3 recompress_pbf.py IN OUT lz4|zstd|raw.

The test's independent reference for reading LZ4 and Zstandard blobs: the blobs are
decompressed with Python's zlib and compressed again with Debian's python3-lz4 (block
format, no size prefix, as libosmium writes lz4_data) or python3-zstandard (one frame).
"""
import struct
import sys
import zlib


def varint(value):
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def read_varint(data, pos):
    result = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos
        shift += 7


def fields(data):
    """(number, wire type, value) of each field of a protobuf message."""
    pos = 0
    while pos < len(data):
        key, pos = read_varint(data, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = read_varint(data, pos)
        elif wire == 2:
            length, pos = read_varint(data, pos)
            value, pos = data[pos:pos + length], pos + length
        else:
            raise ValueError(f"wire type {wire} in a PBF header or blob")
        yield number, wire, value


def field(number, wire, value):
    key = varint(number << 3 | wire)
    if wire == 0:
        return key + varint(value)
    return key + varint(len(value)) + value


def recompress(raw, kind):
    if kind == "raw":
        return field(1, 2, raw)
    if kind == "lz4":
        import lz4.block
        data = lz4.block.compress(raw, store_size=False)
        return field(2, 0, len(raw)) + field(6, 2, data)
    if kind == "zstd":
        import zstandard
        data = zstandard.ZstdCompressor(level=3).compress(raw)
        return field(2, 0, len(raw)) + field(7, 2, data)
    raise ValueError(f"unknown compression {kind}")


def main():
    source, target, kind = sys.argv[1:4]
    data = open(source, "rb").read()
    out = bytearray()
    pos = 0
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        header = data[pos + 4:pos + 4 + length]
        pos += 4 + length
        header_fields = list(fields(header))
        size = next(value for number, _, value in header_fields if number == 3)
        blob = data[pos:pos + size]
        pos += size
        blob_fields = {number: value for number, _, value in fields(blob)}
        raw = blob_fields.get(1)
        if raw is None:
            raw = zlib.decompress(blob_fields[3])
        new_blob = recompress(raw, kind)
        new_header = b"".join(
            field(number, wire, len(new_blob) if number == 3 else value)
            for number, wire, value in header_fields)
        out += struct.pack(">I", len(new_header)) + new_header + new_blob
    open(target, "wb").write(out)


main()
