#!/usr/bin/python3
"""Writes geodesic_vectors.csv: WGS84 geodesic reference values from GeographicLib.

Run with Debian's python3-geographiclib (`apt-get install python3-geographiclib`):

    /usr/bin/python3 Tests/GeoTests/Vectors/make_geodesic_vectors.py

The output is deterministic (fixed seed). Each row holds one inverse problem
(lat1, lon1) -> (lat2, lon2) with its solution s12, azi1, azi2 and reduced length m12, and
one direct problem starting at (lat1, lon1) with azimuth dazi1 and distance ds12, with its
solution dlat2, dlon2, dazi2. Angles are in degrees, lengths in meters; azimuths as
GeographicLib gives them (-180...180]. Values are written with repr(), which round-trips
exactly, and every reference is computed from the exact values written.
"""

import math
import os
import random

import geographiclib
from geographiclib.geodesic import Geodesic

SEED = 20130717  # Karney's paper, J. Geodesy 87, was accepted in 2012; any fixed seed does.
G = Geodesic.WGS84
rng = random.Random(SEED)
rows = []


def wrap(lon):
    """Longitude into -180...180."""
    lon = math.remainder(lon, 360.0)
    return 180.0 if lon == -180.0 else lon


def log_uniform(lo, hi):
    return math.exp(rng.uniform(math.log(lo), math.log(hi)))


def random_direct():
    """A random direct problem: any azimuth, distances from 1 mm to beyond a circumference."""
    azi = rng.uniform(-180.0, 180.0)
    s = log_uniform(1e-3, 4.5e7)
    if rng.random() < 0.1:
        s = -s
    return azi, s


def add(kind, lat1, lon1, lat2, lon2, direct=None):
    lat1, lon1, lat2, lon2 = float(lat1), float(wrap(lon1)), float(lat2), float(wrap(lon2))
    inv = G.Inverse(lat1, lon1, lat2, lon2,
                    Geodesic.DISTANCE | Geodesic.AZIMUTH | Geodesic.REDUCEDLENGTH)
    dazi1, ds12 = direct if direct is not None else random_direct()
    d = G.Direct(lat1, lon1, dazi1, ds12)
    rows.append((kind, lat1, lon1, lat2, lon2, inv["s12"], inv["azi1"], inv["azi2"],
                 inv["m12"], dazi1, ds12, d["lat2"], wrap(d["lon2"]), d["azi2"]))


def random_latitude():
    # Uniform over the sphere's area.
    return math.degrees(math.asin(rng.uniform(-1.0, 1.0)))


# Random pairs anywhere on the globe.
for _ in range(1000):
    add("random", random_latitude(), rng.uniform(-180, 180), random_latitude(),
        rng.uniform(-180, 180))

# Short pairs, 1 mm to 100 km, the second point placed with GeographicLib's direct solution
# and then rounded to the double written to the file.
for _ in range(800):
    lat1 = rng.uniform(-89.9, 89.9) if rng.random() < 0.8 else rng.uniform(-80, 80)
    lon1 = rng.uniform(-180, 180)
    azi, s = rng.uniform(-180, 180), log_uniform(1e-3, 1e5)
    end = G.Direct(lat1, lon1, azi, s)
    add("short", lat1, lon1, end["lat2"], end["lon2"], (azi, log_uniform(1e-3, 1e5)))

# Exactly antipodal pairs.
for i in range(100):
    lat1 = 0.0 if i < 5 else random_latitude()
    lon1 = rng.uniform(-180, 180)
    add("antipodal", lat1, lon1, -lat1, lon1 + 180)

# Nearly antipodal pairs: offsets from 1e-12 degrees to 2 degrees, a third of them close to
# the equator where the astroid starting guess matters most.
for i in range(500):
    lat1 = rng.uniform(-1, 1) if i % 3 == 0 else random_latitude()
    if i % 7 == 0:
        lat1 = 0.0
    lon1 = rng.uniform(-180, 180)
    dlat = rng.choice((-1, 1)) * log_uniform(1e-12, 2) if rng.random() < 0.8 else 0.0
    dlon = rng.choice((-1, 1)) * log_uniform(1e-12, 2) if rng.random() < 0.9 else 0.0
    lat2 = max(-90.0, min(90.0, -lat1 + dlat))
    add("nearantipodal", lat1, lon1, lat2, lon1 + 180 + dlon)

# Both points on the equator, including longitude differences around (1 - f) 180 degrees,
# where the shortest path leaves the equator.
for i in range(200):
    lon1 = rng.uniform(-180, 180)
    if i % 2 == 0:
        dlon = rng.uniform(-180, 180)
    else:
        dlon = rng.choice((-1, 1)) * rng.uniform(179.0, 180.0)
    direct = (rng.choice((90.0, -90.0)), rng.uniform(-4.5e7, 4.5e7)) if i % 4 == 0 else None
    add("equatorial", 0.0, lon1, 0.0, lon1 + dlon, direct)

# Meridional pairs: same longitude or opposite longitudes.
for i in range(200):
    lon1 = rng.uniform(-180, 180)
    lon2 = lon1 if i % 2 == 0 else lon1 + 180
    direct = (rng.choice((0.0, 180.0, -180.0)), rng.uniform(-4.5e7, 4.5e7)) if i % 3 == 0 else None
    add("meridional", random_latitude(), lon1, random_latitude(), lon2, direct)

# At or very near a pole (one or both points).
for i in range(200):
    pole = rng.choice((-90.0, 90.0))
    offset = 0.0 if i % 2 == 0 else log_uniform(1e-12, 1e-2)
    lat1 = pole - math.copysign(offset, pole)
    lon1 = rng.uniform(-180, 180)
    if i % 5 == 0:
        lat2 = rng.choice((-90.0, 90.0))
    else:
        lat2 = random_latitude() if i % 3 else pole - math.copysign(log_uniform(1e-9, 1), pole)
    if rng.random() < 0.5:
        lat1, lat2 = lat2, lat1
    add("polar", lat1, lon1, lat2, rng.uniform(-180, 180))

# Coincident points.
special = [(0.0, 0.0), (90.0, 0.0), (-90.0, 45.0), (0.0, 180.0), (0.0, -180.0), (45.0, 180.0)]
for i in range(50):
    lat, lon = special[i] if i < len(special) else (random_latitude(), rng.uniform(-180, 180))
    add("coincident", lat, lon, lat, lon)

# Hand-picked edge cases: longitudes at +-180, tiny latitudes, the antimeridian.
edges = [
    (0.0, -180.0, 0.0, 180.0), (0.0, 179.9999999, 0.0, -179.9999999),
    (1e-300, 0.0, -1e-300, 179.5), (-1e-12, 10.0, 1e-12, -170.0 + 1e-9),
    (30.0, 180.0, -30.0, 0.0), (30.0, -180.0, -30.0, 0.0), (89.999999999, 0.0, -89.999999999, 180.0),
    (-90.0, 0.0, 90.0, 0.0), (45.0, 179.999, 45.0, -179.999), (-45.0, -179.999, -45.0, 179.999),
    (0.0, 0.0, 0.5, 179.5), (0.0, 0.0, -0.5, 179.7), (0.0, 0.0, 0.0, 179.3965), (0.0, 0.0, 0.0, 179.3966),
    (10.0, 10.0, -10.0, -170.0), (-41.41, 0.0, 41.0, 179.5), (-30.0, 0.0, 29.9, 179.8),
]
for e in edges:
    add("edge", *e)

header = ("kind", "lat1", "lon1", "lat2", "lon2", "s12", "azi1", "azi2", "m12",
          "dazi1", "ds12", "dlat2", "dlon2", "dazi2")
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "geodesic_vectors.csv")
with open(out, "w") as f:
    f.write("# WGS84 geodesics from GeographicLib %s (Python), make_geodesic_vectors.py seed %d\n"
            % (geographiclib.__version__, SEED))
    f.write(",".join(header) + "\n")
    for row in rows:
        f.write(row[0] + "," + ",".join(repr(float(v)) for v in row[1:]) + "\n")
print("wrote %d rows to %s" % (len(rows), out))
