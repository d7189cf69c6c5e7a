#!/usr/bin/env python3
"""Helpers of bench/scale.sh (the region-size benchmark of issue 15).

  scale_tools.py docs ZONES OUTDIR COUNT SIZE PREFIX SEED
      Writes COUNT WZDx documents OUTDIR/PREFIX-K.geojson, each with SIZE work zones of
      ZONES (a bench/make_wzdx.py file) drawn at random and changed: a new description and
      a later update_date, so that each push really changes SIZE incidents.
  scale_tools.py run COMMAND...
      Runs COMMAND and prints {"seconds": wall time, "peak_rss_kb": its peak resident set}.
  scale_tools.py follow PORT_A PORT_B OUTDIR PREFIX COUNT
      Pushes OUTDIR/PREFIX-0 ... PREFIX-(COUNT-1) (written by `docs`) to the server on
      PORT_A, one every 0.5 s, and after each polls the server on PORT_B (the same server,
      or another node on the same database) until a query around the document's first
      work zone shows its change; prints the p50, p90 and max seconds from sending until A
      answered and until the change was visible on B.
  scale_tools.py latency PORT COUNT SEED [RADIUS [BOX]]
      Sends COUNT distinct circle queries (/v7/incidents) of RADIUS meters (default 1000,
      issue 15's 1 km) at random over one of make_wzdx's boxes (default berlin), one after
      another on one keep-alive connection, and prints the latencies' p50, p90, p99 and max
      in milliseconds and the mean number of incidents answered.
  scale_tools.py routes PORT COUNT SEED [local|region]
      Sends COUNT GET /v8/routes between road points of the server's network, 5 to 15 km
      apart (local, the default) or anywhere in its bounds (region), one after another on
      one keep-alive connection; prints how many were routed, their latencies' p50, p90 and
      max in milliseconds and the median route length.
"""
import http.client
import json
import math
import os
import random
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone

from make_wzdx import BOXES


def docs(zones, outdir, count, size, prefix, seed):
    rng = random.Random(seed)
    with open(zones) as source:
        header = source.readline()
        lines = source.readlines()
    features = len(lines) - 1  # the last line closes the array
    picks = [rng.sample(range(features), size) for _ in range(count)]
    now = datetime.now(timezone.utc).replace(microsecond=0)
    head = header[: header.rindex('"features"')]
    for k, pick in enumerate(picks):
        changed = []
        for i in pick:
            feature = json.loads(lines[i].lstrip(",").strip())
            core = feature["properties"]["core_details"]
            core["description"] += f" (Änderung {prefix} {k})"
            stamp = now + timedelta(minutes=k + 1)
            core["update_date"] = stamp.strftime("%Y-%m-%dT%H:%M:%SZ")
            changed.append(json.dumps(feature, ensure_ascii=False))
        with open(os.path.join(outdir, f"{prefix}-{k}.geojson"), "w") as out:
            out.write(head + '"features": [\n' + ",\n".join(changed) + "]}\n")


def run(command):
    start = time.perf_counter()
    child = subprocess.Popen(command)
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - start
    print(json.dumps({"seconds": round(seconds, 2), "peak_rss_kb": usage.ru_maxrss,
                      "status": os.waitstatus_to_exitcode(status)}))
    return os.waitstatus_to_exitcode(status)


def follow(port_a, port_b, outdir, prefix, count):
    writer = http.client.HTTPConnection("127.0.0.1", port_a)
    reader = http.client.HTTPConnection("127.0.0.1", port_b)
    answered, visible = [], []
    for k in range(count):
        with open(os.path.join(outdir, f"{prefix}-{k}.geojson"), "rb") as source:
            body = source.read()
        document = json.loads(body)
        lng, lat = document["features"][0]["geometry"]["coordinates"][0][:2]
        marker = f"{prefix} {k})"
        start = time.perf_counter()
        writer.request("POST", "/v1/feeds/wzdx", body, {"Content-Type": "application/geo+json"})
        response = writer.getresponse()
        response.read()
        if response.status != 200:
            sys.exit(f"push {prefix}-{k}: HTTP {response.status}")
        answered.append(time.perf_counter() - start)
        while marker not in get(reader, f"/v7/incidents?in=circle:{lat},{lng};r=20").decode():
            if time.perf_counter() - start > 60:
                sys.exit(f"push {prefix}-{k} not visible on the other node after 60 s")
            time.sleep(0.002)
        visible.append(time.perf_counter() - start)
        time.sleep(0.5)
    def summary(times):
        times = sorted(times)
        return {"p50_s": round(times[len(times) // 2], 3),
                "p90_s": round(times[int(len(times) * 0.9)], 3), "max_s": round(times[-1], 3)}
    print(json.dumps({"pushes": count, "answered": summary(answered),
                      "visible": summary(visible)}))


def latency(port, count, seed, radius=1000, box="berlin"):
    rng = random.Random(seed)
    south, north, west, east = BOXES[box]
    connection = http.client.HTTPConnection("127.0.0.1", port)
    times, answered = [], 0
    for _ in range(count):
        lat, lng = rng.uniform(south, north), rng.uniform(west, east)
        path = f"/v7/incidents?in=circle:{lat:.5f},{lng:.5f};r={radius}"
        start = time.perf_counter()
        connection.request("GET", path)
        response = connection.getresponse()
        body = response.read()
        times.append((time.perf_counter() - start) * 1000)
        if response.status != 200:
            sys.exit(f"{path}: HTTP {response.status}")
        answered += len(json.loads(body)["results"])
    times.sort()
    pick = lambda q: round(times[min(len(times) - 1, int(len(times) * q))], 2)
    print(json.dumps({"box": box, "radius_m": radius, "queries": count,
                      "mean_results": round(answered / count, 1), "p50_ms": pick(0.5),
                      "p90_ms": pick(0.9), "p99_ms": pick(0.99),
                      "max_ms": round(times[-1], 1)}))


def routes(port, count, seed, spread="local"):
    """`count` GET /v8/routes between random pairs of the region's road points (taken from
    the answers of /v7/flow in 1 km circles), one connection; latencies of the routes found,
    and how many pairs had none. `spread` "local": pairs 5 to 15 km apart; "region": both
    ends anywhere in the network's bounds."""
    rng = random.Random(seed)
    connection = http.client.HTTPConnection("127.0.0.1", port)
    info = json.loads(get(connection, "/v1/info"))
    south, west, north, east = (info["networkBounds"][k] for k in ("south", "west", "north", "east"))
    def road_point(lat, lng):
        flows = json.loads(get(connection, f"/v7/flow?in=circle:{lat:.5f},{lng:.5f};r=1000"))
        if not flows["results"]:
            return None
        point = flows["results"][0]["location"]["shape"]["links"][0]["points"][0]
        return point["lat"], point["lng"]

    pairs = []
    while len(pairs) < count:
        origin = road_point(rng.uniform(south, north), rng.uniform(west, east))
        if origin is None:
            continue
        if spread == "region":
            destination = road_point(rng.uniform(south, north), rng.uniform(west, east))
        else:
            distance, bearing = rng.uniform(5_000, 15_000), rng.uniform(0, 2 * math.pi)
            destination = road_point(
                origin[0] + distance * math.cos(bearing) / 111_200,
                origin[1] + distance * math.sin(bearing)
                / (111_200 * math.cos(math.radians(origin[0]))))
        if destination is not None:
            pairs.append((origin, destination))
    times, lengths, failed = [], [], 0
    for k in range(count):
        (a, b), (c, d) = pairs[k]
        path = (f"/v8/routes?transportMode=car&origin={a},{b}&destination={c},{d}"
                "&return=summary,polyline")
        start = time.perf_counter()
        connection.request("GET", path)
        response = connection.getresponse()
        body = response.read()
        elapsed = (time.perf_counter() - start) * 1000
        if response.status != 200:
            failed += 1
            continue
        times.append(elapsed)
        lengths.append(json.loads(body)["routes"][0]["sections"][0]["summary"]["length"])
    times.sort()
    pick = lambda q: round(times[min(len(times) - 1, int(len(times) * q))], 1)
    print(json.dumps({"spread": spread, "queries": count, "routes": len(times),
                      "no_route": failed,
                      "p50_ms": pick(0.5), "p90_ms": pick(0.9), "max_ms": round(times[-1], 1),
                      "median_km": round(sorted(lengths)[len(lengths) // 2] / 1000, 1)}))


def get(connection, path):
    connection.request("GET", path)
    response = connection.getresponse()
    body = response.read()
    if response.status != 200:
        sys.exit(f"{path}: HTTP {response.status}")
    return body


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    command, args = sys.argv[1], sys.argv[2:]
    if command == "docs" and len(args) == 6:
        docs(args[0], args[1], int(args[2]), int(args[3]), args[4], int(args[5]))
    elif command == "run" and args:
        sys.exit(run(args))
    elif command == "follow" and len(args) == 5:
        follow(int(args[0]), int(args[1]), args[2], args[3], int(args[4]))
    elif command == "latency" and len(args) in (3, 4, 5) and args[4:5] in ([], ["berlin"], ["germany"]):
        latency(int(args[0]), int(args[1]), int(args[2]), *(int(a) for a in args[3:4]), *args[4:])
    elif command == "routes" and len(args) in (3, 4) and args[3:] in ([], ["local"], ["region"]):
        routes(int(args[0]), int(args[1]), int(args[2]), *args[3:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
