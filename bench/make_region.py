#!/usr/bin/env python3
"""Writes a region-size road network (OSM PBF) and vehicle probes (CSV) for the flow side of
the region-size benchmark of issue 15.

A real OpenStreetMap extract (Liechtenstein: 5,391 directed road segments) is far from a
region's size, and a synthetic grid has none of a real network's shape. So the highway ways
of the extract and the nodes they use are tiled COPIES times in a near-square grid, each copy
shifted by the extract's extent plus a 0.01 degree gap and its node and way ids offset by
k * (largest id + 1). Neighbouring copies are joined by two-way connector roads
(`highway=primary`, CONNECTORS_PER_SIDE per side): from the motor-road nodes of the extract's
largest connected road network nearest to its east (north) edge in one copy to those nearest
to its west (south) edge in the next copy, so that the region is one network a route can
cross from end to end. 400 copies give ~2.2 million directed segments.
The PBF follows the OSM PBF format (https://wiki.openstreetmap.org/wiki/PBF_Format): an
OSMHeader blob, then OSMData blobs of dense nodes, then of ways, all zlib-compressed; the
protobuf is encoded by hand. Each copy's blocks differ from the first copy's only in their
first id and coordinates and in way ids, so they are encoded from precomputed templates.

Probes are vehicles driving along randomly chosen motor roads of random copies, one
position every ~10 s, up to 20 per vehicle, all within the 10 minutes before --now. A
vehicle drives at 50-100 % of its road's speed limit (the way's numeric `maxspeed`, else the
road class's general limit, as the importer's defaults), drawn per vehicle: traffic from
congested to free-flowing, as real roads have it. `--probe-speeds uniform` draws 5-30 m/s
whatever the road instead (the benchmark's probes until 2026-12-04). A later batch of fresh probes can be written with --probes-only,
another --seed and --now (vehicle ids include the seed, so batches never share vehicles).

Usage:
  make_region.py OSM.osm.bz2 [--copies N] --pbf OUT.osm.pbf
                 [--probes OUT.csv [--probe-count M] [--seed S] [--now UNIX_SECONDS]
                 [--probe-speeds road|uniform]]
  make_region.py OSM.osm.bz2 [--copies N] --probes-only --probes OUT.csv
                 [--probe-count M] [--seed S] [--now UNIX_SECONDS] [--probe-speeds road|uniform]

Prints one summary line on stderr. Exit status 64 for bad arguments or an unreadable input.
"""
import argparse
import bz2
import math
import random
import struct
import sys
import time
import xml.etree.ElementTree as ET
import zlib

EX_USAGE = 64
EX_CANTCREAT = 73

COORDINATE_SCALE = 10_000_000  # coordinates are kept as integers of 1e-7 degree
GRANULARITY = 100  # nanodegrees per coordinate unit in the PBF (the format's default)
GAP = COORDINATE_SCALE // 100  # 0.01 degree between copies
ENTITIES_PER_BLOCK = 8000
CONNECTORS_PER_SIDE = 2  # roads joining two neighbouring copies
CONNECTOR_TAGS = [("highway", "primary"), ("name", "Verbindungsstrasse")]
WRITING_PROGRAM = "swift-traffic bench/make_region.py"

EARTH_RADIUS_M = 6371008.8
PROBE_INTERVAL_S = (8, 12)  # seconds of travel between a vehicle's probes
PROBES_PER_VEHICLE = 20
PROBE_WINDOW_S = 600  # every probe lies in the 10 minutes before --now
SPEED_RANGE_MS = (5.0, 30.0)  # --probe-speeds uniform
SHARE_OF_LIMIT = (0.5, 1.0)  # --probe-speeds road: a vehicle's speed over its road's limit
# The general limits (km/h) of the importer's road classes, for ways without `maxspeed`.
CLASS_LIMIT_KMH = {
    "motorway": 120, "trunk": 100, "primary": 80, "secondary": 80, "tertiary": 80,
    "motorway_link": 80, "trunk_link": 80, "primary_link": 80, "secondary_link": 80,
    "tertiary_link": 80, "unclassified": 50, "residential": 50, "road": 50,
    "living_street": 20,
}
# Ways a car drives on (the importer's road classes, less service roads, tracks and the like).
MOTOR_ROADS = {
    "motorway", "motorway_link", "trunk", "trunk_link", "primary", "primary_link",
    "secondary", "secondary_link", "tertiary", "tertiary_link", "unclassified",
    "residential", "living_street", "road",
}
DENIED_ACCESS = {"no", "private", "agricultural", "forestry", "emergency", "psv", "bus"}


class UsageError(Exception):
    """Bad arguments or an unusable input: reported, exit status 64."""


# MARK: Reading the extract


class Extract:
    """The highway ways of an extract and the coordinates of the nodes they use."""

    def __init__(self, nodes, ways):
        # nodes: sorted list of (id, lat, lon), coordinates in 1e-7 degree
        # ways: sorted list of (id, refs, tags), refs a tuple of node ids, tags (key, value)s
        self.nodes = nodes
        self.ways = ways
        self.coordinates = {node_id: (lat, lon) for node_id, lat, lon in nodes}
        refs = [ref for _, way_refs, _ in ways for ref in way_refs]
        self.missing_refs = sum(1 for ref in refs if ref not in self.coordinates)
        self.max_id = max([node_id for node_id, _, _ in nodes] + refs + [w[0] for w in ways])
        lats = [lat for _, lat, _ in nodes]
        lons = [lon for _, _, lon in nodes]
        self.bounds = (min(lats), max(lats), min(lons), max(lons))


def to_units(text):
    """A coordinate in degrees (text) as an integer of 1e-7 degree."""
    return round(float(text) * COORDINATE_SCALE)


def read_extract(path):
    """Reads an OSM XML file (.osm or .osm.bz2): highway ways with their tags and nodes."""
    opener = bz2.open if path.endswith(".bz2") else open
    coordinates = {}
    ways = []
    try:
        with opener(path, "rb") as source:
            events = ET.iterparse(source, events=("start", "end"))
            _, root = next(events)
            for event, element in events:
                if event != "end":
                    continue
                if element.tag == "node":
                    coordinates[int(element.get("id"))] = (
                        to_units(element.get("lat")), to_units(element.get("lon")))
                    root.clear()
                elif element.tag == "way":
                    tags = [(tag.get("k"), tag.get("v")) for tag in element.iter("tag")]
                    if any(key == "highway" for key, _ in tags):
                        refs = tuple(int(nd.get("ref")) for nd in element.iter("nd"))
                        ways.append((int(element.get("id")), refs, tags))
                    root.clear()
    except (OSError, EOFError, ET.ParseError, StopIteration, TypeError, ValueError) as error:
        raise UsageError(f"{path}: cannot read an OSM XML extract: {error}") from error
    if not ways:
        raise UsageError(f"{path}: holds no ways with a highway tag")
    used = {ref for _, refs, _ in ways for ref in refs}
    nodes = sorted((i, *coordinates[i]) for i in used if i in coordinates)
    if not nodes:
        raise UsageError(f"{path}: holds none of the nodes its highway ways use")
    ways.sort()
    return Extract(nodes, ways)


def ports(extract):
    """The connector ends of a copy: per side (east, west, north, south) the
    CONNECTORS_PER_SIDE nodes nearest to that edge of the extract's largest connected motor
    road network (ways taken both ways), as node ids, the nearest first."""
    parent = {}

    def find(node):
        while parent.setdefault(node, node) != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    for _, refs, tags in extract.ways:
        if is_motor_road(tags) and tags_allow_both_ways(tags):
            known = [ref for ref in refs if ref in extract.coordinates]
            for a, b in zip(known, known[1:]):
                parent[find(a)] = find(b)
    if not parent:
        raise UsageError("the extract holds no two-way motor road to join its copies by")
    sizes = {}
    for node in parent:
        root = find(node)
        sizes[root] = sizes.get(root, 0) + 1
    largest = max(sizes, key=lambda root: (sizes[root], -root))
    members = sorted(node for node in parent if find(node) == largest)
    lat = lambda node: extract.coordinates[node][0]
    lon = lambda node: extract.coordinates[node][1]
    return {
        "east": sorted(members, key=lambda n: (-lon(n), n))[:CONNECTORS_PER_SIDE],
        "west": sorted(members, key=lambda n: (lon(n), n))[:CONNECTORS_PER_SIDE],
        "north": sorted(members, key=lambda n: (-lat(n), n))[:CONNECTORS_PER_SIDE],
        "south": sorted(members, key=lambda n: (lat(n), n))[:CONNECTORS_PER_SIDE],
    }


def tags_allow_both_ways(tags):
    tags = dict(tags)
    return (tags.get("oneway") in (None, "no", "false", "0")
            and tags.get("highway") != "motorway"
            and tags.get("junction") not in ("roundabout", "circular"))


# MARK: The grid of copies


class Grid:
    """Where copy k goes: its row and column, coordinate shift and id offset."""

    def __init__(self, extract, copies):
        south, north, west, east = extract.bounds
        self.copies = copies
        self.cols = math.isqrt(copies - 1) + 1  # ceil(sqrt(copies))
        self.rows = -(-copies // self.cols)
        self.dlat = north - south + GAP
        self.dlon = east - west + GAP
        self.id_stride = extract.max_id + 1
        top = north + (self.rows - 1) * self.dlat
        right = east + (self.cols - 1) * self.dlon
        if top > 90 * COORDINATE_SCALE or right > 180 * COORDINATE_SCALE:
            raise UsageError(f"{copies} copies of the extract do not fit on the globe")
        last_col = min(copies, self.cols) - 1
        # HeaderBBox in nanodegrees: left, right, top, bottom
        self.bbox = (west * GRANULARITY, (east + last_col * self.dlon) * GRANULARITY,
                     top * GRANULARITY, south * GRANULARITY)

    def shift(self, k):
        """(latitude shift, longitude shift, id offset) of copy k."""
        row, col = divmod(k, self.cols)
        return row * self.dlat, col * self.dlon, k * self.id_stride

    def connectors(self, ends):
        """The ways joining neighbouring copies: (way id, (node id, node id), tags), ids
        after every copy's."""
        ways = []
        next_id = self.copies * self.id_stride
        for k in range(self.copies):
            row, col = divmod(k, self.cols)
            neighbours = []
            if col + 1 < self.cols and k + 1 < self.copies:
                neighbours.append((k + 1, "east", "west"))
            if k + self.cols < self.copies:
                neighbours.append((k + self.cols, "north", "south"))
            for other, leaving, arriving in neighbours:
                for a, b in zip(ends[leaving], ends[arriving]):
                    refs = (a + k * self.id_stride, b + other * self.id_stride)
                    ways.append((next_id, refs, CONNECTOR_TAGS))
                    next_id += 1
        return ways


# MARK: Protobuf encoding


def varint(n):
    """A non-negative integer as a protobuf varint."""
    if n < 0x80:
        return bytes((n,))
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def zigzag(n):
    """The zigzag code of a signed integer (sint32/sint64)."""
    return n << 1 if n >= 0 else ((-n) << 1) - 1


def key(field, wire_type):
    return varint(field << 3 | wire_type)


def varint_field(field, value):
    return key(field, 0) + varint(value)


def bytes_field(field, payload):
    return key(field, 2) + varint(len(payload)) + payload


def packed_varints(values):
    out = bytearray()
    for value in values:
        out += varint(value)
    return bytes(out)


def delta_tail(values):
    """Delta-coded zigzag varints of values[1:] (each minus its predecessor)."""
    out = bytearray()
    previous = values[0]
    for value in values[1:]:
        out += varint(zigzag(value - previous))
        previous = value
    return bytes(out)


def chunks(items, size):
    """items in consecutive parts of at most size, as equal as possible."""
    parts = -(-len(items) // size)
    length = -(-len(items) // parts)
    return [items[i:i + length] for i in range(0, len(items), length)]


# MARK: Block templates


KEY_DENSE_ID, KEY_DENSE_LAT, KEY_DENSE_LON = key(1, 2), key(8, 2), key(9, 2)
KEY_GROUP_DENSE, KEY_GROUP_WAY = key(2, 2), key(3, 2)
KEY_WAY_ID, KEY_WAY_REFS = key(1, 0), key(8, 2)
EMPTY_STRING_TABLE = bytes_field(1, bytes_field(1, b""))
BLOCK_TRAILER = varint_field(17, GRANULARITY) + varint_field(19, 0) + varint_field(20, 0)


class NodeBlock:
    """One block of the first copy's dense nodes: first values and delta-coded tails."""

    def __init__(self, nodes):
        ids, lats, lons = zip(*nodes)
        self.first = (ids[0], lats[0], lons[0])
        self.tails = (delta_tail(ids), delta_tail(lats), delta_tail(lons))

    def encode(self, dlat, dlon, id_offset):
        """The PrimitiveBlock of this block in a copy shifted by (dlat, dlon, id_offset)."""
        first_id, first_lat, first_lon = self.first
        id_tail, lat_tail, lon_tail = self.tails
        ids = varint(zigzag(first_id + id_offset)) + id_tail
        lats = varint(zigzag(first_lat + dlat)) + lat_tail
        lons = varint(zigzag(first_lon + dlon)) + lon_tail
        dense = (KEY_DENSE_ID + varint(len(ids)) + ids + KEY_DENSE_LAT + varint(len(lats))
                 + lats + KEY_DENSE_LON + varint(len(lons)) + lons)
        group = KEY_GROUP_DENSE + varint(len(dense)) + dense
        return EMPTY_STRING_TABLE + bytes_field(2, group) + BLOCK_TRAILER


class WayBlock:
    """One block of the first copy's ways: string table, and per way what copies share."""

    def __init__(self, ways):
        counts = {}
        for _, _, tags in ways:
            for pair in tags:
                for text in pair:
                    counts[text] = counts.get(text, 0) + 1
        strings = [""] + sorted(counts, key=lambda s: (-counts[s], s))  # index 0 is empty
        index = {text: i for i, text in enumerate(strings)}
        table = b"".join(bytes_field(1, s.encode("utf-8")) for s in strings)
        self.string_table = bytes_field(1, table)
        self.ways = []
        for way_id, refs, tags in ways:
            tag_fields = (bytes_field(2, packed_varints(index[k] for k, _ in tags))
                          + bytes_field(3, packed_varints(index[v] for _, v in tags)))
            self.ways.append((way_id, refs[0] if refs else None, tag_fields,
                              delta_tail(refs) if refs else b""))

    def encode(self, id_offset):
        """The PrimitiveBlock of this block in the copy whose ids are offset by id_offset."""
        group = bytearray()
        for way_id, first_ref, tag_fields, refs_tail in self.ways:
            body = KEY_WAY_ID + varint(way_id + id_offset) + tag_fields
            if first_ref is not None:
                refs = varint(zigzag(first_ref + id_offset)) + refs_tail
                body += KEY_WAY_REFS + varint(len(refs)) + refs
            group += KEY_GROUP_WAY + varint(len(body)) + body
        return self.string_table + bytes_field(2, bytes(group)) + BLOCK_TRAILER


# MARK: Writing the PBF


def write_blob(out, kind, payload):
    """Writes one [length][BlobHeader][Blob] with the payload zlib-compressed; its size."""
    blob = varint_field(2, len(payload)) + bytes_field(3, zlib.compress(payload, 6))
    header = bytes_field(1, kind.encode()) + varint_field(3, len(blob))
    out.write(struct.pack(">I", len(header)))
    out.write(header)
    out.write(blob)
    return 4 + len(header) + len(blob)


def header_block(grid):
    left, right, top, bottom = grid.bbox
    bbox = b"".join(varint_field(n, zigzag(v)) for n, v in enumerate((left, right, top, bottom), 1))
    return (bytes_field(1, bbox) + bytes_field(4, b"OsmSchema-V0.6")
            + bytes_field(4, b"DenseNodes") + bytes_field(16, WRITING_PROGRAM.encode()))


def write_pbf(path, extract, grid):
    """Writes all copies' nodes, then all copies' ways, then the connectors; returns the
    file's size in bytes and the number of connectors."""
    node_blocks = [NodeBlock(part) for part in chunks(extract.nodes, ENTITIES_PER_BLOCK)]
    way_blocks = [WayBlock(part) for part in chunks(extract.ways, ENTITIES_PER_BLOCK)]
    size = 0
    with open(path, "wb") as out:
        size += write_blob(out, "OSMHeader", header_block(grid))
        for k in range(grid.copies):
            dlat, dlon, id_offset = grid.shift(k)
            for block in node_blocks:
                size += write_blob(out, "OSMData", block.encode(dlat, dlon, id_offset))
        for k in range(grid.copies):
            _, _, id_offset = grid.shift(k)
            for block in way_blocks:
                size += write_blob(out, "OSMData", block.encode(id_offset))
        connectors = grid.connectors(ports(extract)) if grid.copies > 1 else []
        for part in chunks(connectors, ENTITIES_PER_BLOCK) if connectors else []:
            size += write_blob(out, "OSMData", WayBlock(part).encode(0))
    return size, len(connectors)


# MARK: Probes


def is_motor_road(tags):
    tags = dict(tags)
    access = tags.get("motorcar") or tags.get("motor_vehicle") or tags.get("vehicle") \
        or tags.get("access")
    return (tags.get("highway") in MOTOR_ROADS and tags.get("area") != "yes"
            and access not in DENIED_ACCESS
            and tags.get("oneway") not in ("reversible", "alternating"))


def driving_direction(tags, rng):
    """+1 along the way's drawing, -1 against it, as its oneway tags allow (else random)."""
    tags = dict(tags)
    oneway = tags.get("oneway")
    if oneway in ("yes", "true", "1"):
        return 1
    if oneway in ("-1", "reverse"):
        return -1
    if oneway is None and (tags.get("highway") == "motorway"
                           or tags.get("junction") in ("roundabout", "circular")):
        return 1
    return rng.choice((1, -1))


def probe_routes(extract):
    """The motor roads' node coordinates (degrees) and tags, for ways of >= 2 known nodes."""
    routes = []
    for _, refs, tags in extract.ways:
        points = [extract.coordinates.get(ref) for ref in refs]
        if len(points) >= 2 and None not in points and is_motor_road(tags):
            routes.append(([(lat / COORDINATE_SCALE, lon / COORDINATE_SCALE)
                            for lat, lon in points], tags))
    if not routes:
        raise UsageError("the extract holds no motor road to drive probes on")
    return routes


def segment_geometry(a, b):
    """Length in metres (equirectangular) and heading in degrees from north of a -> b."""
    mean_lat = math.radians((a[0] + b[0]) / 2)
    north = math.radians(b[0] - a[0])
    east = math.radians(b[1] - a[1]) * math.cos(mean_lat)
    heading = round(math.degrees(math.atan2(east, north)), 1) % 360.0  # 0 <= heading < 360
    return EARTH_RADIUS_M * math.hypot(north, east), heading


def drive(points, speed, intervals):
    """Positions (lat, lon, heading) every interval of travel along points, from the start
    until the way ends or the intervals run out (the first position is the first point)."""
    segment, travelled = 0, 0.0  # travelled along the current segment, metres
    length, heading = segment_geometry(points[0], points[1])
    yield points[0][0], points[0][1], heading
    for interval in intervals:
        ahead = travelled + speed * interval
        while ahead > length:
            segment += 1
            if segment + 1 >= len(points):
                return
            ahead -= length
            length, heading = segment_geometry(points[segment], points[segment + 1])
        travelled = ahead
        (lat0, lon0), (lat1, lon1) = points[segment], points[segment + 1]
        f = travelled / length if length > 0 else 0.0
        yield lat0 + f * (lat1 - lat0), lon0 + f * (lon1 - lon0), heading


def road_limit_ms(tags):
    """The speed limit of a way, m/s: its numeric `maxspeed` (km/h, or "NN mph"), else its
    class's general limit."""
    tags = dict(tags)
    text = tags.get("maxspeed", "").strip()
    try:
        if text.endswith("mph"):
            return float(text[:-3]) * 1.609344 / 3.6
        return float(text) / 3.6
    except ValueError:
        return CLASS_LIMIT_KMH.get(tags.get("highway"), 50) / 3.6


def vehicle_rows(vehicle, routes, grid, rng, now, speeds="road"):
    """The CSV rows of one vehicle on a random motor road of a random copy."""
    points, tags = rng.choice(routes)
    if driving_direction(tags, rng) < 0:
        points = points[::-1]
    dlat, dlon, _ = grid.shift(rng.randrange(grid.copies))
    dlat, dlon = dlat / COORDINATE_SCALE, dlon / COORDINATE_SCALE
    points = [(lat + dlat, lon + dlon) for lat, lon in points]
    if speeds == "uniform":
        speed = rng.uniform(*SPEED_RANGE_MS)
    else:
        speed = road_limit_ms(tags) * rng.uniform(*SHARE_OF_LIMIT)
    intervals = [rng.randint(*PROBE_INTERVAL_S) for _ in range(PROBES_PER_VEHICLE - 1)]
    longest = (PROBES_PER_VEHICLE - 1) * PROBE_INTERVAL_S[1]
    t = now - (PROBE_WINDOW_S - 1) + rng.randint(0, PROBE_WINDOW_S - 1 - longest)
    times = [t]
    for interval in intervals:
        times.append(times[-1] + interval)
    for when, (lat, lon, heading) in zip(times, drive(points, speed, intervals)):
        yield f"{vehicle},{when},{lat:.6f},{lon:.6f},{speed:.2f},{heading:.1f}\n"


def write_probes(path, count, routes, grid, seed, now, speeds="road"):
    """Writes exactly count probe rows; returns count."""
    rng = random.Random(seed)
    written = vehicle = 0
    with open(path, "w") as out:
        out.write("id,time,lat,lng,speed,heading\n")
        while written < count:
            vehicle += 1
            rows = list(vehicle_rows(f"v{seed}-{vehicle}", routes, grid, rng, now, speeds))
            rows = rows[:count - written]
            out.writelines(rows)
            written += len(rows)
    return written


# MARK: Command line


class ArgumentParser(argparse.ArgumentParser):
    def error(self, message):
        self.print_usage(sys.stderr)
        self.exit(EX_USAGE, f"{self.prog}: error: {message}\n")


def parse_arguments(argv):
    parser = ArgumentParser(
        prog="make_region.py",
        description="Tiles an OSM extract's road network into a region-size OSM PBF and "
                    "writes vehicle probes driving on it.")
    parser.add_argument("osm", help="OSM XML extract (.osm or .osm.bz2)")
    parser.add_argument("--copies", type=int, default=400, help="copies of the network (400)")
    parser.add_argument("--pbf", help="the OSM PBF to write")
    parser.add_argument("--probes", help="the probe CSV to write")
    parser.add_argument("--probe-count", type=int, default=10000, help="probe rows (10000)")
    parser.add_argument("--seed", type=int, default=1, help="random seed of the probes (1)")
    parser.add_argument("--now", type=int, default=None,
                        help="Unix seconds the probes end by (default: the current time)")
    parser.add_argument("--probe-speeds", choices=("road", "uniform"), default="road",
                        help="road: 50-100 %% of the road's limit (default); uniform: 5-30 m/s")
    parser.add_argument("--probes-only", action="store_true",
                        help="write only the probes, not the PBF")
    args = parser.parse_args(argv)
    if args.copies < 1:
        parser.error("--copies must be at least 1")
    if args.probe_count < 0:
        parser.error("--probe-count must not be negative")
    if args.probes_only and not args.probes:
        parser.error("--probes-only needs --probes OUT.csv")
    if not args.probes_only and not args.pbf:
        parser.error("--pbf OUT is required (or --probes-only with --probes)")
    if args.now is None:
        args.now = int(time.time())
    return args


def main(argv):
    started = time.monotonic()
    args = parse_arguments(argv)
    try:
        extract = read_extract(args.osm)
        grid = Grid(extract, args.copies)
        routes = probe_routes(extract) if args.probes else None
    except UsageError as error:
        print(f"make_region.py: {error}", file=sys.stderr)
        return EX_USAGE
    nodes = ways = size = probes = connectors = 0
    try:
        if not args.probes_only:
            size, connectors = write_pbf(args.pbf, extract, grid)
            nodes, ways = len(extract.nodes) * grid.copies, len(extract.ways) * grid.copies
        if args.probes:
            probes = write_probes(args.probes, args.probe_count, routes, grid, args.seed,
                                  args.now, args.probe_speeds)
    except UsageError as error:
        print(f"make_region.py: {error}", file=sys.stderr)
        return EX_USAGE
    except OSError as error:
        print(f"make_region.py: cannot write: {error}", file=sys.stderr)
        return EX_CANTCREAT
    print(f"make_region.py: {grid.copies} copies, {nodes} nodes, {ways} ways "
          f"(and {connectors} connectors), "
          f"{size} bytes of PBF, {probes} probes, {time.monotonic() - started:.1f} s",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
