#!/usr/bin/env python3
"""The traffic-bench R-tree workload (flatbush's bench.js) on Python `rtree`
(libspatialindex), for a side-by-side comparison.

Prints one JSON line per measurement, names prefixed `python-rtree.`, with the same data
as traffic-bench: the SplitMix64 generator below reproduces its boxes bit for bit.
Times are the median of several runs after a warm-up, in milliseconds
(time.perf_counter, a monotonic clock).

usage: rtree_compare.py [--quick]
"""

import json
import math
import sys
import time

from rtree import index

MASK = (1 << 64) - 1


class SplitMix64:
    """SplitMix64 (Steele, Lea & Flood 2014), as in Sources/traffic-bench/Workload.swift."""

    def __init__(self, seed):
        self.state = seed

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def next_unit(self):
        return (self.next() >> 11) * 2.0**-53


def random_box(random, max_side):
    x = random.next_unit() * (100 - max_side)
    y = random.next_unit() * (100 - max_side)
    width = random.next_unit() * max_side
    height = random.next_unit() * max_side
    return (x, y, x + width, y + height)


def median_ms(runs, body, warm_up=True):
    if warm_up:
        body()
    times = []
    sink = 0
    for _ in range(runs):
        start = time.perf_counter()
        sink += body()
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    return times[len(times) // 2], sink


def report(name, value, n):
    print(json.dumps({"name": "python-rtree." + name, "value": round(value, 3), "unit": "ms", "n": n}, separators=(",", ":")),
          flush=True)


def main():
    quick = "--quick" in sys.argv[1:]
    item_count, query_count, nearest_count, runs = (
        (20_000, 100, 2_000, 1) if quick else (1_000_000, 1_000, 100_000, 3))

    random = SplitMix64(42)
    boxes = [random_box(random, 1) for _ in range(item_count)]
    queries = {"10%": [], "1%": [], "0.01%": []}
    for _ in range(query_count):
        queries["10%"].append(random_box(random, 100 * math.sqrt(0.1)))
        queries["1%"].append(random_box(random, 10))
        queries["0.01%"].append(random_box(random, 1))

    def build():
        # Bulk loading: libspatialindex packs the tree from a stream of (id, box, object).
        return index.Index(((i, box, None) for i, box in enumerate(boxes)))

    value, _ = median_ms(runs, lambda: len(build().bounds), warm_up=False)
    report("rtree.build", value, item_count)
    tree = build()

    total = 0
    for name in ("10%", "1%", "0.01%"):
        boxes_for_name = queries[name]
        value, sink = median_ms(
            runs, lambda: sum(len(list(tree.intersection(q))) for q in boxes_for_name))
        total += sink
        report("rtree.search-" + name, value, len(boxes_for_name))

    for name, count, k in (("nearest-100", query_count, 100), ("nearest-all", 1, item_count),
                           ("nearest-1", nearest_count, 1)):
        def neighbours(count=count, k=k):
            found = 0
            for i in range(count):
                x, y = boxes[i % item_count][0], boxes[i % item_count][1]
                found += len(list(tree.nearest((x, y, x, y), k)))
            return found
        value, sink = median_ms(runs, neighbours)
        total += sink
        report("rtree." + name, value, count)
    if total < 0:
        print(total)


if __name__ == "__main__":
    main()
