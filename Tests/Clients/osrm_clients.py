"""Real OSRM clients, unchanged, against `traffic serve` (run by OSRMClientsTests).

    osrm_clients.py OURS_URL [OSRM_URL]

1. With OSRM_URL (the official `osrm-routed` on the same extract): the answers of both to
   the same requests have the same shape, key by key (names and JSON types, not values).
2. routingpy's OSRM client gets routes and tables, equal to the server's own answers.
3. pyvroom with its OSRM router pointed at the server solves a vehicle-routing problem (3
   vehicles, 30 jobs); a jam pushed as probes on a road the solution drives makes its tours
   longer on the server's table, and the next solution is priced on that table.
Exits 1 naming what failed.
"""
import json
import sys
import time
import urllib.error
import urllib.request

import routingpy
import vroom

OURS = sys.argv[1].rstrip("/")
OSRM = sys.argv[2].rstrip("/") if len(sys.argv) > 2 else None
failures = []


def get(base, target):
    try:
        with urllib.request.urlopen(base + target, timeout=60) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


def shape(value):
    if isinstance(value, dict):
        return {key: shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [shape(value[0])] if value else []
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return type(value).__name__


def differences(ours, theirs, path=""):
    found = []
    if isinstance(ours, dict) and isinstance(theirs, dict):
        for key in sorted(set(ours) | set(theirs)):
            if key not in ours:
                found.append(f"{path}.{key}: osrm-routed has it, we do not")
            elif key not in theirs:
                found.append(f"{path}.{key}: we have it, osrm-routed does not")
            else:
                found += differences(ours[key], theirs[key], f"{path}.{key}")
    elif isinstance(ours, list) and isinstance(theirs, list):
        if ours and theirs:
            found += differences(ours[0], theirs[0], path + "[]")
    elif ours != theirs:
        found.append(f"{path}: {ours} here, {theirs} in osrm-routed")
    return found


# Places on Liechtenstein's roads.
TRIO = "9.5209,47.1410;9.5230,47.1290;9.5432,47.1735"
SHAPES = [
    f"/route/v1/driving/{TRIO}",
    f"/route/v1/driving/{TRIO}?steps=true&annotations=duration,distance,speed&overview=full"
    "&geometries=geojson",
    f"/route/v1/driving/{TRIO}?steps=true&geometries=polyline6&alternatives=true",
    f"/route/v1/driving/{TRIO}?overview=false&waypoints=0;2",
    f"/route/v1/driving/{TRIO}?annotations=true&steps=true",
    f"/route/v1/driving/{TRIO}?generate_hints=false&skip_waypoints=true",
    f"/table/v1/driving/{TRIO}",
    f"/table/v1/driving/{TRIO}?annotations=duration,distance&sources=0;1&destinations=2",
    f"/table/v1/driving/{TRIO}?fallback_speed=10&scale_factor=1.5",
    "/nearest/v1/driving/9.5209,47.1410?number=3",
    "/route/v1/driving/9.52,47.14",
    "/route/v1/driving/9.52,97.14;9.5,47.1",
    f"/route/v1/driving/{TRIO}?alternatives=7",
    f"/table/v1/driving/{TRIO}?sources=5",
    f"/route/v1/driving/{TRIO}?radiuses=1;1;1",
    f"/route/v1/driving/{TRIO}?bogus=1",
]
if OSRM:
    for target in SHAPES:
        ours_status, ours = get(OURS, target)
        theirs_status, theirs = get(OSRM, target)
        if ours_status != theirs_status:
            failures.append(f"{target}: status {ours_status} here, {theirs_status} in osrm-routed")
        if ours_status >= 400 and ours.get("code") != theirs.get("code"):
            failures.append(f"{target}: code {ours.get('code')} here, {theirs.get('code')} there")
        for line in differences(shape(ours), shape(theirs)):
            failures.append(f"{target}: {line}")
    print(f"shapes: {len(SHAPES)} requests compared key by key with osrm-routed")

# routingpy's OSRM client.
client = routingpy.OSRM(base_url=OURS)
locations = [[float(x) for x in pair.split(",")] for pair in TRIO.split(";")]
direction = client.directions(locations=locations, profile="driving", overview="full")
_, own = get(OURS, f"/route/v1/driving/{TRIO}?overview=full")
if direction.duration != int(own["routes"][0]["duration"]):
    failures.append(f"routingpy route duration {direction.duration}, the server's {own}")
if len(direction.geometry) < 2:
    failures.append("routingpy decoded no route geometry")
matrix = client.matrix(locations=locations, profile="driving", annotations=["duration", "distance"])
_, table = get(OURS, f"/table/v1/driving/{TRIO}?annotations=duration,distance")
if matrix.durations != table["durations"] or matrix.distances != table["distances"]:
    failures.append(f"routingpy table {matrix.durations}, the server's {table['durations']}")
print(f"routingpy: route {direction.duration} s, table {matrix.durations}")

# pyvroom: places on the roads all reachable from one another.
candidates = []
for i in range(8):
    for j in range(8):
        status, near = get(OURS, f"/nearest/v1/driving/{9.49 + 0.012 * i},{47.06 + 0.025 * j}")
        if status == 200 and near["waypoints"][0]["distance"] < 500:
            candidates.append(near["waypoints"][0]["location"])
_, table = get(OURS, "/table/v1/driving/" + ";".join(f"{p[0]},{p[1]}" for p in candidates))
cells = table["durations"]
places = [
    candidates[k]
    for k in range(len(candidates))
    if all(cells[k][c] is not None and cells[c][k] is not None for c in range(len(candidates)))
][:31]
if len(places) < 31:
    failures.append(f"only {len(places)} connected places for the routing problem")


def solve():
    problem = vroom.Input(
        servers={"car": OURS.replace("http://", "")}, router=vroom._vroom.ROUTER.OSRM)
    depot = vroom.Location(coords=places[0])
    problem.add_vehicle(
        [vroom.Vehicle(k + 1, start=depot, end=depot, profile="car", capacity=[10])
         for k in range(3)])
    problem.add_job([vroom.Job(100 + k, location=vroom.Location(coords=p), delivery=[1])
                     for k, p in enumerate(places[1:])])
    return problem.solve(exploration_level=5, nb_threads=2)


before = solve()
routes = before.routes
served = int((routes["type"] == "job").sum())
if served != 30:
    failures.append(f"VROOM served {served} of 30 jobs")
# A jam on the first road of a vehicle's tour: probes crawling along its first 600 m.
first = routes[routes["vehicle_id"] == routes["vehicle_id"].iloc[0]]
a = [first["longitude"].iloc[0], first["latitude"].iloc[0]]
b = [first["longitude"].iloc[1], first["latitude"].iloc[1]]
_, leg = get(OURS, f"/route/v1/driving/{a[0]},{a[1]};{b[0]},{b[1]}"
                   "?overview=full&geometries=geojson&annotations=distance")
line = leg["routes"][0]["geometry"]["coordinates"]
gaps = leg["routes"][0]["legs"][0]["annotation"]["distance"]
rows = ["id,time,lat,lng,speed,heading"]
now = time.time() - 2
for vehicle in range(10):
    along, points = 0.0, []
    for (lng, lat), gap in zip(line, gaps + [0]):
        points.append((along, lng, lat))
        along += gap
        if along > 600:
            break
    for k, (meters, lng, lat) in enumerate(points):
        stamp = now - vehicle * 3 - (points[-1][0] - meters) / 1.5
        rows.append(f"jam{vehicle},{stamp:.3f},{lat},{lng},1.5,")
request = urllib.request.Request(
    OURS + "/v1/probes?flush=true", data=("\n".join(rows) + "\n").encode(),
    headers={"Content-Type": "text/csv"}, method="POST")
with urllib.request.urlopen(request, timeout=60) as response:
    pushed = json.load(response)
_, leg_after = get(OURS, f"/route/v1/driving/{a[0]},{a[1]};{b[0]},{b[1]}?overview=false")
print(f"the jammed leg: {leg['routes'][0]['duration']} s, then {leg_after['routes'][0]['duration']} s")


def priced(solution):
    """The seconds of a solution's tours on the server's table now (each tour's stops in
    order, a table of them, the cells from each stop to the next)."""
    total = 0.0
    for _, tour in solution.routes.groupby("vehicle_id"):
        stops = list(zip(tour["longitude"], tour["latitude"]))
        _, cells = get(OURS, "/table/v1/driving/" + ";".join(f"{x},{y}" for x, y in stops))
        total += sum(cells["durations"][k][k + 1] for k in range(len(stops) - 1))
    return total


# The first solution's tours cost more on the table with the jam (deterministic: the jam only
# slows roads); VROOM's new solution is priced on that table (its own duration).
old_tours_now = priced(before)
after = solve()
after_priced = priced(after)
print(f"VROOM: {served} jobs on {before.routes['vehicle_id'].nunique()} vehicles, "
      f"{before.summary.duration} s; with the jam ({pushed.get('matched')} probes matched) "
      f"the same tours take {old_tours_now:.0f} s, the new solution {after.summary.duration} s")
if not old_tours_now > before.summary.duration + 1:
    failures.append(
        f"the jam did not lengthen the tours: {before.summary.duration} s, then "
        f"{old_tours_now:.0f} s")
if abs(after_priced - after.summary.duration) > len(after.routes):
    failures.append(
        f"VROOM's new solution ({after.summary.duration} s) is not priced on the live table "
        f"({after_priced:.0f} s)")

for failure in failures:
    print("FAIL", failure)
sys.exit(1 if failures else 0)
