#!/usr/bin/env python3
"""A jam pushed as probes, then how long until OSRM's /route/v1 and /table/v1 answer with it.

usage: live_change.py PORT
Picks two places about 3 km apart near the middle of the network's bounds, asks the route
and a table of the two (the bucket search on a region), pushes 10 vehicles crawling at
1.5 m/s along the route's first 600 m (/v1/probes?flush=true), then asks both every 50 ms.
Prints the seconds from the push's answer to the first route and table whose duration
differs by more than a second, with the durations before and after.
"""
import json
import sys
import time
import urllib.error
import urllib.request

BASE = f"http://127.0.0.1:{int(sys.argv[1])}"


def get(target):
    with urllib.request.urlopen(BASE + target, timeout=120) as response:
        return json.load(response)


def nearest(lng, lat):
    """The nearest road point, or None when no road lies within 1 km."""
    try:
        return get(f"/nearest/v1/driving/{lng},{lat}")["waypoints"][0]["location"]
    except urllib.error.HTTPError:
        return None


bounds = get("/v1/info")["networkBounds"]
lat = (bounds["south"] + bounds["north"]) / 2
lng = (bounds["west"] + bounds["east"]) / 2
# From the middle outward, the first two road points 0.04° of longitude apart.
pair = None
for step in range(400):
    x, y = lng + 0.01 * (step % 20), lat + 0.01 * (step // 20)
    a, b = nearest(x, y), nearest(x + 0.04, y)
    if a and b:
        pair = f"{a[0]},{a[1]};{b[0]},{b[1]}"
        break
if pair is None:
    sys.exit("no two road points found near the middle of the network")


def route_seconds():
    return get(f"/route/v1/driving/{pair}?overview=false")["routes"][0]["duration"]


def table_seconds():
    return get(f"/table/v1/driving/{pair}")["durations"][0][1]


route_before, table_before = route_seconds(), table_seconds()
leg = get(f"/route/v1/driving/{pair}?overview=full&geometries=geojson&annotations=distance")
line = leg["routes"][0]["geometry"]["coordinates"]
gaps = leg["routes"][0]["legs"][0]["annotation"]["distance"]
points, along = [], 0.0
for (x, y), gap in zip(line, gaps + [0]):
    points.append((along, x, y))
    along += gap
    if along > 600:
        break
rows = ["id,time,lat,lng,speed,heading"]
now = time.time() - 2
for vehicle in range(10):
    for meters, x, y in points:
        rows.append(f"jam{vehicle},{now - vehicle * 3 - (points[-1][0] - meters) / 1.5:.3f},{y},{x},1.5,")
request = urllib.request.Request(
    BASE + "/v1/probes?flush=true", data=("\n".join(rows) + "\n").encode(),
    headers={"Content-Type": "text/csv"}, method="POST")
with urllib.request.urlopen(request, timeout=120) as response:
    pushed = json.load(response)
pushed_at = time.perf_counter()
seen = {}
while len(seen) < 2 and time.perf_counter() - pushed_at < 120:
    if "route" not in seen:
        seconds = route_seconds()
        if abs(seconds - route_before) > 1:
            seen["route"] = (time.perf_counter() - pushed_at, seconds)
    if "table" not in seen:
        seconds = table_seconds()
        if abs(seconds - table_before) > 1:
            seen["table"] = (time.perf_counter() - pushed_at, seconds)
    time.sleep(0.05)
print(json.dumps({
    "probes_matched": pushed.get("matched"), "route_s_before": route_before,
    "table_s_before": table_before,
    **{f"{name}_changed_after_s": round(value[0], 3) for name, value in seen.items()},
    **{f"{name}_s_after": value[1] for name, value in seen.items()}}))
