#!/usr/bin/env python3
"""Reference vectors for Roads' TransverseMercator, made with an independent tool: PROJ
through pyproj (Debian bookworm: python3-pyproj 3.4.1, PROJ 9.1.1).

Run: /usr/bin/python3 make_utm_vectors.py > utm_vectors.csv
Columns: zone, south (0/1), latitude, longitude (degrees), easting, northing (meters).
"""
import random
from pyproj import Transformer

random.seed(20130803)
rows = []
cases = [(33, False, 52.3, 13.6), (32, False, 47.14, 9.52), (31, False, 0.0, 3.0),
         (33, False, 84.0, 15.0), (1, False, 10.0, -180.0), (60, True, -45.0, 177.0),
         (23, True, -23.55, -46.63), (33, False, 52.29, 12.0), (33, False, 52.29, 18.0)]
for _ in range(40):
    zone = random.randint(1, 60)
    south = random.random() < 0.4
    lat = -random.uniform(0, 80) if south else random.uniform(0, 84)
    lon = zone * 6 - 183 + random.uniform(-3.5, 3.5)
    cases.append((zone, south, lat, lon))
for zone, south, lat, lon in cases:
    crs = f"+proj=utm +zone={zone} {'+south ' if south else ''}+ellps=WGS84 +datum=WGS84 +units=m +no_defs"
    t = Transformer.from_crs("EPSG:4326", crs, always_xy=True)
    e, n = t.transform(lon, lat)
    rows.append(f"{zone},{int(south)},{lat:.10f},{lon:.10f},{e:.6f},{n:.6f}")
print("\n".join(rows))
