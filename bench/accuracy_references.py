#!/usr/bin/env python3
"""ETA references at departure from the SUMO files of a `make accuracy` run.

What would a picture at departure built another way have given the harness's judged trips?
For every today and fleet of a run made with

    TRAFFIC_ACCURACY_DIAGNOSTICS=1 TRAFFIC_ACCURACY_SCRATCH=DIR traffic-bench --accuracy > OUT

this prints, beside ours and free flow (the `ETA` lines of OUT), the median absolute error
against SUMO's time over the same span (the trip's second edge to its last but one) of:

- SUMO's space-mean speed of each edge (all vehicles, `edgeData`) in the interval before
  departure: the quantity the flow is judged against, standing vehicles included;
- the probe fleet's completed traversals of each edge in the 5 minutes before departure
  (from SUMO's `vehroutes` exit times), their median and their mean: only vehicles that
  left the edge count, so vehicles standing on it without leaving do not.

An edge without such data counts at its space-mean speed, else at 50 km/h.

Usage: bench/accuracy_references.py OUT DIR
Needs: python3 and SUMO's sumolib (Debian's sumo-tools, which the Makefile installs).
"""

import bisect
import collections
import os
import re
import statistics
import sys
import xml.etree.ElementTree as ET

SUMO_TOOLS = "/usr/share/sumo/tools"
WINDOW_SECONDS = 300.0
DEFAULT_SPEED = 13.9


def fail(message):
    sys.stderr.write(f"accuracy_references.py: {message}\n")
    sys.exit(64)


def load_day(directory):
    """Edge lengths, space-mean speeds by interval, and each vehicle's route and exits."""
    sys.path.insert(0, SUMO_TOOLS)
    import sumolib  # noqa: E402 (from sumo-tools)

    # SUMO writes its configuration, with the network's path, in a comment at the top of
    # every output file.
    with open(os.path.join(directory, "edges.xml")) as head:
        found = re.search(r'<net-file value="([^"]+)"', head.read(4096))
    if found is None:
        fail(f"{directory}/edges.xml names no network")
    network = sumolib.net.readNet(found.group(1))
    lengths = {edge.getID(): edge.getLength() for edge in network.getEdges()}
    speeds = collections.defaultdict(dict)
    for interval in ET.parse(os.path.join(directory, "edges.xml")).getroot():
        begin = float(interval.get("begin"))
        for edge in interval:
            if edge.get("speed"):
                speeds[begin][edge.get("id")] = float(edge.get("speed"))
    routes = {}
    for vehicle in ET.parse(os.path.join(directory, "vehroutes.xml")).getroot().iter("vehicle"):
        route = vehicle.find("route")
        if route is None or not route.get("exitTimes"):
            continue
        routes[vehicle.get("id")] = (
            vehicle.get("type"),
            route.get("edges").split(),
            [float(x) for x in route.get("exitTimes").split()],
        )
    return lengths, speeds, routes


def traversals(routes, fleet):
    """Each edge's completed traversals by the fleet's vehicles: (exit time, seconds)."""
    rates = [5, 15, 40]
    types = {f"p{rate}" for rate in rates if rate <= fleet}
    by_edge = collections.defaultdict(list)
    for vehicle_type, edges, exits in routes.values():
        if vehicle_type not in types:
            continue
        for k in range(1, len(edges)):
            by_edge[edges[k]].append((exits[k], exits[k] - exits[k - 1]))
    for runs in by_edge.values():
        runs.sort()
    return by_edge


def main():
    try:
        run()
    except (OSError, ET.ParseError) as error:
        fail(f"cannot read the run's files: {error}")


def run():
    if len(sys.argv) != 3:
        fail("usage: bench/accuracy_references.py OUT DIR (see the file's first lines)")
    output, scratch = sys.argv[1], sys.argv[2]
    blocks = collections.OrderedDict()
    with open(output) as lines:
        for line in lines:
            if line.startswith("ETA\t"):
                fields = line.rstrip("\n").split("\t")
                blocks.setdefault((fields[1], fields[2]), []).append(fields[3:])
    if not blocks:
        fail(f"{output} has no ETA lines: run traffic-bench with TRAFFIC_ACCURACY_DIAGNOSTICS=1")
    days = {}
    for (today, fleet_name), trips in blocks.items():
        suffix = "-" + today.replace(" ", "-")
        if today not in days:
            candidates = [
                name for name in os.listdir(scratch) if name.endswith(suffix) and "-drives-" not in name
            ]
            if len(candidates) != 1:
                fail(f"{scratch} holds no single day directory ending in {suffix}")
            days[today] = load_day(os.path.join(scratch, candidates[0]))
        lengths, speeds, routes = days[today]
        begins = sorted(speeds)
        fleet = int(fleet_name.split("+")[0])
        runs = traversals(routes, fleet)

        def space_mean_seconds(edge, time):
            k = bisect.bisect_right(begins, time) - 1
            for j in (k - 1, k):
                speed = speeds[begins[j]].get(edge, 0) if 0 <= j < len(begins) else 0
                if speed > 0:
                    return lengths[edge] / max(speed, 0.5)
            return lengths[edge] / DEFAULT_SPEED

        def recent(edge, time):
            return [seconds for (exit, seconds) in runs.get(edge, []) if time - WINDOW_SECONDS <= exit <= time]

        rows = []
        for vehicle, _depart, duration, ours, free, _clairvoyant, _last_runs in trips:
            if vehicle not in routes:
                continue
            _, edges, exits = routes[vehicle]
            if len(edges) < 3:
                continue
            start = exits[0]
            space_mean = median_runs = mean_runs = 0.0
            for edge in edges[1:-1]:
                fallback = space_mean_seconds(edge, start)
                space_mean += fallback
                seen = recent(edge, start)
                median_runs += statistics.median(seen) if seen else fallback
                mean_runs += sum(seen) / len(seen) if seen else fallback
            rows.append((float(duration), float(ours), float(free), space_mean, median_runs, mean_runs))

        def median_error(selected, column):
            if not selected:
                return "–"
            return "%.1f %%" % (100 * statistics.median(abs(row[column] - row[0]) / row[0] for row in selected))

        congested = [row for row in rows if abs(row[2] - row[0]) / row[0] > 0.4]
        for label, selected in (("all", rows), ("congested", congested)):
            print(
                f"{today}, {fleet_name} %, {label} trips ({len(selected)}): ours {median_error(selected, 1)}, "
                f"free flow {median_error(selected, 2)}, space-mean at departure "
                f"{median_error(selected, 3)}, the fleet's completed traversals of the last 5 minutes: "
                f"median {median_error(selected, 4)}, mean {median_error(selected, 5)}"
            )


if __name__ == "__main__":
    main()
