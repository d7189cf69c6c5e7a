#!/usr/bin/env bash
# How soon a live speed change reaches OSRM's tables and routes on the region (issue 54): the
# region of COPIES tiles of the Liechtenstein extract (bench/make_region.py), `traffic serve`
# on it as a user starts it (release, default options), and once its routing hierarchy is
# built bench/live_change.py: a route and a table between two places of one tile, then a jam
# pushed as probes (10 vehicles crawling along the route's first 600 m) and both asked again
# every 50 ms until their durations change.
# Usage: bench/live_change.sh [COPIES]   (default 400: ~2.2M directed segments)
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/scale_common.sh
source bench/scale_common.sh

copies="${1:-400}"
scale_setup live-change
"$python" bench/make_region.py Tests/Fixtures/osm/liechtenstein-2013-08-03.osm.bz2 \
  --copies "$copies" --pbf "$work/region.osm.pbf" >&2
"$bin" network import --db "$work/store.sqlite" "$work/region.osm.pbf" >&2
serve_ready "live change serve"
until [[ "$(curl -s "http://127.0.0.1:$port/metrics" | awk '$1 == "traffic_routing_hierarchy_edges" {print $2}')" -gt 0 ]]; do
  sleep 1
done
"$python" bench/live_change.py "$port" | sed 's/^/live change: /'
