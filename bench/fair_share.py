#!/usr/bin/env python3
"""Fair share under abuse: `traffic serve` as users start it (the release binary, default
options) on the repository's Liechtenstein extract with generated work zones, eight abusive
clients (each from its own loopback address) looping on one expensive request class, and one
well-behaved client on another address asking `/healthz` and a cached incident query every
20 ms. Prints, per abuse, the well-behaved client's answers (share of 200s) and latencies,
and what the abusers got.

Usage: bench/fair_share.py TRAFFIC_BINARY [seconds per abuse, default 20]
(bench/fair_share.sh builds the binary and calls this; `make bench` runs it.)
"""

import http.client
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BINARY = sys.argv[1]
SECONDS = float(sys.argv[2]) if len(sys.argv) > 2 else 20
PORT = 18090
NETWORK = os.path.join(ROOT, "Tests/Fixtures/osm/liechtenstein-2013-08-03.osm.bz2")


def request(path, source="127.0.0.1", timeout=120):
    connection = http.client.HTTPConnection(
        "127.0.0.1", PORT, timeout=timeout, source_address=(source, 0))
    connection.request("GET", path)
    response = connection.getresponse()
    body = response.read()
    connection.close()
    return response.status, body


def work_zones(count, path):
    """WZDx 4.2 work zones over Liechtenstein (seeded), one document."""
    rng = random.Random(11)
    features = []
    for i in range(count):
        lat, lng = rng.uniform(47.06, 47.24), rng.uniform(9.49, 9.60)
        features.append({
            "id": f"wz-{i}", "type": "Feature",
            "properties": {
                "core_details": {"event_type": "work-zone", "data_source_id": "s",
                                 "road_names": [f"Road {i % 97}"], "direction": "northbound",
                                 "update_date": "2026-01-01T00:00:00Z"},
                "start_date": "2026-01-01T00:00:00Z", "end_date": "2030-01-01T00:00:00Z",
                "is_start_date_verified": False, "is_end_date_verified": False,
                "is_start_position_verified": False, "is_end_position_verified": False,
                "location_method": "channel-device-method", "vehicle_impact": "some-lanes-closed"},
            "geometry": {"type": "LineString",
                         "coordinates": [[lng, lat], [lng + 0.001, lat + 0.0005]]}})
    document = {"feed_info": {"publisher": "bench", "version": "4.2",
                              "update_date": "2026-01-01T00:00:00Z",
                              "data_sources": [{"data_source_id": "s",
                                                "organization_name": "bench"}]},
                "type": "FeatureCollection", "features": features}
    with open(path, "w") as out:
        json.dump(document, out)


def routable_points(count):
    """Points the router reaches from the middle of the country (seeded)."""
    rng = random.Random(3)
    points = []
    while len(points) < count:
        lat, lng = rng.uniform(47.06, 47.24), rng.uniform(9.49, 9.60)
        status, _ = request(f"/v8/routes?transportMode=car&origin=47.14,9.52"
                            f"&destination={lat:.5f},{lng:.5f}")
        if status == 200:
            points.append((lat, lng))
    return points


def abuse(name, path, seconds):
    """`path()` gives each abusive request's path (varied: nothing comes from a cache)."""
    stop = time.time() + seconds
    tallies = {}

    def abuser(k):
        counts = {}
        while time.time() < stop:
            try:
                status, _ = request(path(), source=f"127.0.0.{10 + k}")
                counts[status] = counts.get(status, 0) + 1
            except Exception as error:  # a closed connection counts as such
                counts[type(error).__name__] = counts.get(type(error).__name__, 0) + 1
        tallies[k] = counts

    threads = [threading.Thread(target=abuser, args=(k,)) for k in range(8)]
    for thread in threads:
        thread.start()
    time.sleep(1)
    latencies, failures, asked = [], {}, 0
    cached = "/v7/incidents?in=circle:47.15,9.52;r=2000"
    request(cached, source="127.0.0.2")
    while time.time() < stop - 0.5:
        for target in ("/healthz", cached):
            asked += 1
            started = time.perf_counter()
            try:
                status, _ = request(target, source="127.0.0.2", timeout=30)
            except Exception as error:
                status = type(error).__name__
            latencies.append((time.perf_counter() - started) * 1000)
            if status != 200:
                failures[status] = failures.get(status, 0) + 1
        time.sleep(0.02)
    for thread in threads:
        thread.join()
    latencies.sort()
    answered = asked - sum(failures.values())
    abusers = {}
    for counts in tallies.values():
        for status, count in counts.items():
            abusers[status] = abusers.get(status, 0) + count
    p = lambda q: latencies[min(len(latencies) - 1, int(len(latencies) * q))]
    print(f"| {name} | {answered / asked * 100:.1f} % of {asked} | {p(0.5):.1f} ms | "
          f"{p(0.99):.1f} ms | {latencies[-1]:.1f} ms | "
          + ", ".join(f"{k}: {v}" for k, v in sorted(abusers.items(), key=str)) + " |",
          flush=True)


def main():
    work = tempfile.mkdtemp(prefix="fair-share-")
    zones = os.path.join(work, "zones.geojson")
    work_zones(2000, zones)
    store = os.path.join(work, "store.sqlite")
    subprocess.run([BINARY, "import", "--db", store, zones], check=True,
                   stdout=subprocess.DEVNULL)
    server = subprocess.Popen(
        [BINARY, "serve", "--db", store, "--network", NETWORK, "--port", str(PORT),
         "--access-log", "off"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(1200):
            try:
                if request("/readyz", timeout=2)[0] == 200:
                    break
            except OSError:
                pass
            time.sleep(0.1)
        points = routable_points(25)
        vias = "&".join(f"via={lat:.5f},{lng:.5f}" for lat, lng in points[2:])
        route = (f"/v8/routes?transportMode=car&origin={points[0][0]:.5f},{points[0][1]:.5f}"
                 f"&destination={points[1][0]:.5f},{points[1][1]:.5f}&{vias}"
                 "&alternatives=3&return=summary,polyline")
        print(f"traffic serve (release, defaults) on Liechtenstein with 2,000 work zones;"
              f" 8 abusive clients x {SECONDS:.0f} s each, one well-behaved client"
              f" (/healthz and a cached incident query, every 20 ms)\n")
        print("| abuse (8 clients, each from its own address) | well-behaved answers |"
              " p50 | p99 | max | abusers got |")
        print("|---|---|---|---|---|---|")
        rng = random.Random(5)
        abuse("route searches, 23 vias, 3 alternatives", lambda: route, SECONDS)
        abuse("DATEX II publication of every incident", lambda: "/datex2/v3/situations", SECONDS)
        abuse("incident queries, 0.2° boxes at random places (uncached)",
              lambda: "/v7/incidents?in=bbox:{:.4f},{:.4f},{:.4f},{:.4f}".format(
                  *(lambda x, y: (x, y, x + 0.2, y + 0.2))(
                      rng.uniform(9.40, 9.55), rng.uniform(47.0, 47.2))), SECONDS)
        abuse("basemap tiles at zoom 13 at random places (uncached renders)",
              lambda: f"/tiles/base/13/{rng.randint(4310, 4316)}/{rng.randint(2870, 2880)}"
              f".png?scale={rng.choice([1, 2])}", SECONDS)
    finally:
        server.terminate()
        server.wait()


main()
