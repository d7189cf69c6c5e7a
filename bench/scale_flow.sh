#!/usr/bin/env bash
# The region-size benchmark of issue 15, flow side: a road network of COPIES tiles of the
# real Liechtenstein OSM extract (bench/make_region.py; 400 copies = 2,156,400 directed
# segments, written as an OSM PBF) and PROBES vehicle probes along its roads, run through the
# release `traffic` as a user would, measured for:
#   network     wall time and peak RSS of `traffic network import` of the PBF
#   probes      wall time, peak RSS and probes per second of `traffic probes import`
#   history     HISTORY_WEEKS (default 4) more probe files, each of PROBES / HISTORY_WEEKS
#               probes ending a week, two weeks ... before now, imported with `traffic
#               probes import` (history feeds the typical weeks only): probes per second, and
#               the typical weeks stored (segments, bins, bytes of `typical_speeds`)
#   ready       seconds from `traffic serve` start to the first answered /healthz, and RSS
#   refresh     ROUNDS times: a batch of 2,000 fresh probes POSTed to /v1/probes?flush=true,
#               then the time of the next /v7/flow query (2 km circle), which rebuilds the
#               flow view on the new aggregates
#   routes      the routing hierarchy's build time, then ROUTES (100) GET /v8/routes between
#               road points 5 to 15 km apart and as many between points anywhere in the
#               region (the copies are joined by connector roads)
# Usage: bench/scale_flow.sh [COPIES]   Environment: PROBES (default 1,350,000), ROUNDS (10),
# ROUTES (100), HISTORY_WEEKS (4).
# Needs about 1.5 GB of disk in $TMPDIR. `make bench` runs it after bench/scale.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/scale_common.sh
source bench/scale_common.sh

copies="${1:-400}"
probes="${PROBES:-1350000}"
rounds="${ROUNDS:-10}"
extract="Tests/Fixtures/osm/liechtenstein-2013-08-03.osm.bz2"
scale_setup scale-flow

echo "== scale flow: writing $copies copies of the extract and $probes probes" >&2
"$python" bench/make_region.py "$extract" --copies "$copies" --pbf "$work/region.osm.pbf" \
  --probes "$work/probes.csv" --probe-count "$probes" --seed 1

echo "== scale flow: traffic network import" >&2
network="$("$python" "$tools" run "$bin" network import --db "$work/store.sqlite" \
  "$work/region.osm.pbf" | tee "$work/network.out" | tail -1)"
echo "scale network import $copies copies: $network"
echo "scale network: $(grep -o '[0-9]* nodes, [0-9]* directed segments' "$work/network.out" || true)"

echo "== scale flow: traffic probes import" >&2
imported="$("$python" "$tools" run "$bin" probes import --db "$work/store.sqlite" \
  "$work/probes.csv" | tee "$work/probes.out" | tail -1)"
seconds="$(printf '%s' "$imported" | "$python" -c 'import json, sys; print(json.load(sys.stdin)["seconds"])')"
echo "scale probes import $probes probes: $imported, $(awk -v n="$probes" -v s="$seconds" \
  'BEGIN {printf "%.0f", n / s}') probes/s"
echo "scale probes: $(grep -o '[0-9]* accepted.*' "$work/probes.out" | head -1)"

weeks="${HISTORY_WEEKS:-4}"
if [[ "$weeks" -gt 0 ]]; then
  echo "== scale flow: $weeks weeks of history (traffic probes import)" >&2
  now="$(date +%s)"
  for k in $(seq 1 "$weeks"); do
    "$python" bench/make_region.py "$extract" --copies "$copies" --probes-only \
      --probes "$work/history-$k.csv" --probe-count "$((probes / weeks))" --seed "$((50 + k))" \
      --now "$((now - k * 604800))" 2>/dev/null
  done
  history="$("$python" "$tools" run "$bin" probes import --db "$work/store.sqlite" \
    "$work"/history-*.csv | tail -1)"
  seconds="$(printf '%s' "$history" | "$python" -c 'import json, sys; print(json.load(sys.stdin)["seconds"])')"
  echo "scale history import $((probes / weeks * weeks)) probes of $weeks past weeks: $history, $(awk \
    -v n="$((probes / weeks * weeks))" -v s="$seconds" 'BEGIN {printf "%.0f", n / s}') probes/s"
  "$python" - "$work/store.sqlite" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
segments = bins = stored = 0
for (blob,) in db.execute("SELECT bins FROM typical_speeds"):
    # version byte, then the bin count as a varint, then 4 bytes per bin
    count, shift, i = 0, 0, 1
    while True:
        count |= (blob[i] & 0x7F) << shift
        shift += 7
        i += 1
        if blob[i - 1] < 0x80:
            break
    segments, bins, stored = segments + 1, bins + count, stored + len(blob)
print(f"scale typical weeks: {{\"segments\": {segments}, \"bins\": {bins}, \"bytes\": {stored}, "
      f"\"bytes_per_segment\": {stored / max(segments, 1):.0f}}}")
PY
fi

serve_ready "scale flow serve ready"

echo "== scale flow: flow queries after new probes" >&2
# The first copy lies at the extract's own place; a 2 km circle in its middle.
query="/v7/flow?in=circle:47.14,9.52;r=2000"
curl -sf -o /dev/null "http://127.0.0.1:$port$query"
for k in $(seq 1 "$rounds"); do
  "$python" bench/make_region.py "$extract" --copies "$copies" --probes-only \
    --probes "$work/fresh.csv" --probe-count 2000 --seed "$((100 + k))" 2>/dev/null
  curl -sf -o /dev/null -H 'Content-Type: text/csv' --data-binary "@$work/fresh.csv" \
    "http://127.0.0.1:$port/v1/probes?flush=true"
  curl -sf -o /dev/null -w '%{time_total}\n' "http://127.0.0.1:$port$query"
done | sort -n | awk '{a[NR] = $1} END {
  printf "scale flow query after new probes: {\"rounds\": %d, \"min_s\": %s, \"p50_s\": %s, \"max_s\": %s}\n",
    NR, a[1], a[int(NR / 2) + 1], a[NR] }'

echo "== scale flow: the typical picture of another hour (at=)" >&2
later="$(date -u -d '+6 hours' +%Y-%m-%dT%H:%M:%SZ)"
for k in $(seq 1 "$rounds"); do
  curl -sf -o /dev/null -w '%{time_total}\n' "http://127.0.0.1:$port$query&at=$later"
done | sort -n | awk '{a[NR] = $1} END {
  printf "scale flow query at another hour: {\"rounds\": %d, \"min_s\": %s, \"p50_s\": %s, \"max_s\": %s}\n",
    NR, a[1], a[int(NR / 2) + 1], a[NR] }'

echo "== scale flow: routes on the live traffic (GET /v8/routes)" >&2
# The server builds its routing bounds (a contraction hierarchy) in the background from its
# start; routes are measured once they are in use (at most 10 minutes' wait).
for _ in $(seq 1 600); do
  edges="$(curl -sf "http://127.0.0.1:$port/metrics" | awk '$1 == "traffic_routing_hierarchy_edges" {print $2}')"
  [[ "${edges:-0}" -gt 0 ]] && break
  sleep 1
done
echo "scale routing hierarchy: $(curl -sf "http://127.0.0.1:$port/metrics" | awk \
  '$1 == "traffic_routing_hierarchy_edges" {n = $2} $1 == "traffic_routing_hierarchy_build_seconds" {s = $2}
   END {printf "{\"edges\": %s, \"build_s\": %.1f}", n, s}')"
echo "scale routes: $("$python" "$tools" routes "$port" "${ROUTES:-100}" 7 local)"
echo "scale routes: $("$python" "$tools" routes "$port" "${ROUTES:-100}" 7 region)"
