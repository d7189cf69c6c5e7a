#!/usr/bin/env python3
"""Queries the same origin/destination pairs from swift-traffic's GET /v8/routes and its
OSRM-compatible /route/v1, OSRM's /route/v1 and Valhalla's /route, one request at a time on a
kept-alive connection each, and prints per engine the latency (p50, p90), the share of pairs
answered and route lengths against OSRM's; then a 100 x 100 /table/v1 of the pairs' points
from swift-traffic and from OSRM CH and MLD (the median of 5 requests).

usage: routing_anchor.py OURS_PORT OSRM_CH_PORT OSRM_MLD_PORT VALHALLA_PORT PAIRS SEED WEST,SOUTH,EAST,NORTH|region
Pairs are points on roads (vertices of the segments swift-traffic's /v7/flow lists in the
box, drawn at random), at least 2 km apart in a straight line; with `region`, the first
vertex /v7/flow lists within 1 km of random points anywhere in the network's bounds. A pair
counts for the length comparison when every engine found a route.
"""
import http.client
import json
import math
import random
import sys
import time


def distance_km(a, b):
    lat = math.radians((a[0] + b[0]) / 2)
    dy = (a[0] - b[0]) * 111.2
    dx = (a[1] - b[1]) * 111.2 * math.cos(lat)
    return math.hypot(dx, dy)


class Engine:
    def __init__(self, name, port):
        self.name = name
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.latencies = []
        self.lengths = {}
        self.reported = False

    def request(self, method, path, body=None):
        headers = {"Content-Type": "application/json"} if body else {}
        start = time.perf_counter()
        self.connection.request(method, path, body=body, headers=headers)
        response = self.connection.getresponse()
        data = response.read()
        self.latencies.append((time.perf_counter() - start) * 1000)
        return response.status, data


def ours(engine, k, a, b):
    status, data = engine.request(
        "GET", f"/v8/routes?transportMode=car&origin={a[0]},{a[1]}&destination={b[0]},{b[1]}"
        "&return=summary")
    if status == 200:
        routes = json.loads(data).get("routes", [])
        if routes:
            engine.lengths[k] = sum(s["summary"]["length"] for s in routes[0]["sections"])


def osrm(engine, k, a, b):
    status, data = engine.request(
        "GET", f"/route/v1/driving/{a[1]},{a[0]};{b[1]},{b[0]}?overview=false")
    if status == 200:
        routes = json.loads(data).get("routes", [])
        if routes:
            engine.lengths[k] = routes[0]["distance"]


def ours_osrm(engine, k, a, b):
    """Ours through OSRM's API (/route/v1), as OSRM's clients ask it."""
    osrm(engine, k, a, b)


def table(port, places, runs=5):
    """A `/table/v1` of all places to all places: the median seconds of `runs` requests, and
    how many cells have a duration."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
    path = "/table/v1/driving/" + ";".join(f"{p[1]},{p[0]}" for p in places) + \
        "?annotations=duration,distance"
    times, filled = [], 0
    for _ in range(runs):
        start = time.perf_counter()
        connection.request("GET", path)
        response = connection.getresponse()
        data = response.read()
        times.append(time.perf_counter() - start)
        if response.status != 200:
            return {"status": response.status, "answer": data[:200].decode(errors="replace")}
        filled = sum(cell is not None for row in json.loads(data)["durations"] for cell in row)
    first = times[0]
    times.sort()
    return {"first_s": round(first, 3), "median_s": round(times[len(times) // 2], 3),
            "min_s": round(times[0], 3),
            "cells": len(places) ** 2, "cells_with_duration": filled}


def valhalla(engine, k, a, b):
    body = json.dumps({"locations": [{"lat": a[0], "lon": a[1]}, {"lat": b[0], "lon": b[1]}],
                       "costing": "auto", "directions_type": "none"})
    status, data = engine.request("POST", "/route", body)
    if status == 200:
        engine.lengths[k] = json.loads(data)["trip"]["summary"]["length"] * 1000
    elif not engine.reported:  # say once why Valhalla declined a pair
        engine.reported = True
        print(f"routing_anchor: Valhalla answered {status}: {data[:300]!r}", file=sys.stderr)


def main():
    args = sys.argv[1:]
    ports = [int(p) for p in args[:-3]]
    count, seed = int(args[-3]), int(args[-2])
    rng = random.Random(seed)
    probe = http.client.HTTPConnection("127.0.0.1", ports[0], timeout=60)
    def flow(query):
        probe.request("GET", f"/v7/flow?in={query}&locationReferencing=shape")
        results = json.loads(probe.getresponse().read())["results"]
        return [(p["lat"], p["lng"]) for item in results
                for link in item["location"]["shape"]["links"] for p in link["points"]]
    pairs = []
    if args[-1] == "region":
        probe.request("GET", "/v1/info")
        bounds = json.loads(probe.getresponse().read())["networkBounds"]
        def road_point():
            while True:
                lat = rng.uniform(bounds["south"], bounds["north"])
                lng = rng.uniform(bounds["west"], bounds["east"])
                points = flow(f"circle:{lat:.5f},{lng:.5f};r=1000")
                if points:
                    return points[0]
        while len(pairs) < count:
            pairs.append((road_point(), road_point()))
    else:
        west, south, east, north = (float(v) for v in args[-1].split(","))
        points = flow(f"bbox:{west},{south},{east},{north}")
        if not points:
            sys.exit("no road points from /v7/flow")
        while len(pairs) < count:
            a, b = rng.choice(points), rng.choice(points)
            if distance_km(a, b) >= 2:
                pairs.append((a, b))
    names = ["swift-traffic /v8/routes", "OSRM CH", "OSRM MLD", "Valhalla"]
    if len(ports) != len(names):
        sys.exit(__doc__)
    calls = {"swift-traffic /v8/routes": ours, "OSRM CH": osrm, "OSRM MLD": osrm,
             "Valhalla": valhalla, "swift-traffic /route/v1": ours_osrm}
    engines = [Engine(name, port) for name, port in zip(names, ports)]
    engines.insert(1, Engine("swift-traffic /route/v1", ports[0]))
    for engine in engines:  # warm up (first requests load pages and caches)
        for k, (a, b) in enumerate(pairs[:10]):
            calls[engine.name](engine, k, a, b)
        engine.latencies.clear()
        engine.lengths.clear()
    # Each engine answers each pair in turn; ours through OSRM's API in a pass of its own, so
    # that it never answers a pair its /v8/routes has just searched (warm caches).
    second = engines[1]
    for k, (a, b) in enumerate(pairs):
        for engine in engines:
            if engine is not second:
                calls[engine.name](engine, k, a, b)
    for k, (a, b) in enumerate(pairs):
        calls[second.name](second, k, a, b)
    reference = engines[2]
    for engine in engines:
        # Lengths are compared with OSRM CH's on the pairs both routed.
        common = set(engine.lengths) & set(reference.lengths)
        latencies = sorted(engine.latencies)
        ratios = sorted(engine.lengths[k] / reference.lengths[k] for k in common
                        if reference.lengths[k] > 0)
        print(json.dumps({
            "engine": engine.name, "queries": len(latencies),
            "routed": len(engine.lengths),
            "p50_ms": round(latencies[len(latencies) // 2], 2),
            "p90_ms": round(latencies[int(len(latencies) * 0.9)], 2),
            "length_vs_osrm_median": round(ratios[len(ratios) // 2], 3) if ratios else None,
            "length_within_5pct": round(sum(1 for r in ratios if abs(r - 1) <= 0.05) / max(len(ratios), 1), 3),
            "common_pairs": len(common)}))
    # A 100 x 100 travel-time table (OSRM's /table/v1) of road points, each engine in turn.
    places = [point for pair in pairs for point in pair][:100]
    for name, port in [("swift-traffic /table/v1", ports[0]), ("OSRM CH", ports[1]),
                       ("OSRM MLD", ports[2])]:
        print(json.dumps({"engine": name, "table": f"{len(places)} x {len(places)}",
                          **table(port, places)}))


if __name__ == "__main__":
    main()
