#!/usr/bin/env python3
"""Writes a WZDx 4.2 WorkZoneFeed of COUNT work zones for the load and scale benchmarks.

The work zones are spread uniformly (seeded) over a box, BOX:
  berlin   (default) 1 x 1 degree around Berlin (52.0-53.0 N, 12.9-13.9 E); 100,000 of them
           are about 13 per square kilometre, some 40 in a 1 km circle, as a city's feed.
  germany  Germany's bounding box (47.3-55.0 N, 5.9-15.0 E), issue 15's region: 1,000,000
           of them are about 1.8 per square kilometre, some 7 in a 1 km circle.
Each is a 150-300 m line of three points, active from a day ago for a year, with a road name,
a description and a vehicle impact.

Usage: make_wzdx.py COUNT OUTPUT.geojson [SEED [BOX]]
"""
import json
import math
import random
import sys
from datetime import datetime, timedelta, timezone

# south, north, west, east
BOXES = {"berlin": (52.0, 53.0, 12.9, 13.9), "germany": (47.3, 55.0, 5.9, 15.0)}
IMPACTS = ["some-lanes-closed", "all-lanes-open", "alternating-one-way", "all-lanes-closed"]
DIRECTIONS = ["northbound", "southbound", "eastbound", "westbound"]


def main():
    if len(sys.argv) not in (3, 4, 5) or (len(sys.argv) == 5 and sys.argv[4] not in BOXES):
        sys.exit(__doc__)
    count, output = int(sys.argv[1]), sys.argv[2]
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) >= 4 else 42)
    south, north, west, east = BOXES[sys.argv[4] if len(sys.argv) == 5 else "berlin"]
    now = datetime.now(timezone.utc).replace(microsecond=0)
    stamp = lambda t: t.strftime("%Y-%m-%dT%H:%M:%SZ")
    source = "bench-wzdx"
    with open(output, "w") as out:
        out.write(json.dumps({
            "feed_info": {
                "publisher": "swift-traffic load benchmark", "version": "4.2",
                "update_date": stamp(now),
                "data_sources": [{"data_source_id": source, "organization_name": "bench",
                                  "update_date": stamp(now)}],
            },
            "type": "FeatureCollection",
        })[:-1])
        out.write(', "features": [\n')
        for i in range(count):
            lat = rng.uniform(south, north)
            lng = rng.uniform(west, east)
            bearing = rng.uniform(0, 2 * math.pi)
            step = rng.uniform(75, 150)  # metres per leg, two legs
            dlat = step * math.cos(bearing) / 111_200
            dlng = step * math.sin(bearing) / (111_200 * math.cos(math.radians(lat)))
            coordinates = [[round(lng + k * dlng, 7), round(lat + k * dlat, 7)] for k in range(3)]
            feature = {
                "id": f"bench-{i}",
                "type": "Feature",
                "properties": {
                    "core_details": {
                        "event_type": "work-zone", "data_source_id": source,
                        "road_names": [f"Straße {i % 997}"],
                        "direction": DIRECTIONS[i % 4],
                        "description": f"Bauarbeiten an der Straße {i % 997}, Abschnitt {i}",
                        "update_date": stamp(now - timedelta(hours=1)),
                    },
                    "start_date": stamp(now - timedelta(days=1)),
                    "end_date": stamp(now + timedelta(days=365)),
                    "is_start_date_verified": False, "is_end_date_verified": False,
                    "is_start_position_verified": False, "is_end_position_verified": False,
                    "location_method": "channel-device-method",
                    "vehicle_impact": IMPACTS[i % len(IMPACTS)],
                },
                "geometry": {"type": "LineString", "coordinates": coordinates},
            }
            out.write(("," if i else "") + json.dumps(feature, ensure_ascii=False) + "\n")
        out.write("]}\n")


if __name__ == "__main__":
    main()
