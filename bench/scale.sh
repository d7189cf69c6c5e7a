#!/usr/bin/env bash
# The region-size benchmark of issue 15, incident side: COUNT work zones (default 1,000,000,
# bench/make_wzdx.py) imported with the release `traffic import`, then `traffic serve` on the
# store as a user starts it (default options), measured for:
#   import      wall time and peak RSS of `traffic import` into an empty store
#   ready       seconds from start to the first answered /healthz, and RSS then
#   push-1000   30 documents of 1,000 changed work zones pushed to /v1/feeds/wzdx, one every
#               0.5 s: time until each is answered (the change is visible to queries then)
#   queries     6,000 distinct 300 m circle queries, one client, while a document of 100
#               changed work zones is pushed every second (100 changes/s)
# Needs about 4 GB of disk in $TMPDIR. `make bench` runs it after bench/load.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/scale_common.sh
source bench/scale_common.sh

count="${1:-1000000}"
scale_setup scale

echo "== scale: writing $count work zones and the push documents" >&2
"$python" bench/make_wzdx.py "$count" "$work/zones.geojson"
"$python" "$tools" docs "$work/zones.geojson" "$work" 30 1000 push1000 1
"$python" "$tools" docs "$work/zones.geojson" "$work" 20 100 push100 2

echo "== scale: traffic import" >&2
import="$("$python" "$tools" run "$bin" import --db "$work/store.sqlite" "$work/zones.geojson" | tail -1)"
echo "scale import $count work zones: $import"

serve_ready "scale serve ready"

echo "== scale: pushes of 1,000 changes" >&2
for k in $(seq 0 29); do
  curl -sf -o /dev/null -w '%{time_total}\n' --data-binary "@$work/push1000-$k.geojson" \
    "http://127.0.0.1:$port/v1/feeds/wzdx"
  sleep 0.5
done | sort -n | awk '{a[NR] = $1} END {
  printf "scale push 1000 changes: {\"pushes\": %d, \"min_s\": %s, \"p50_s\": %s, \"p90_s\": %s, \"max_s\": %s}\n",
    NR, a[1], a[int(NR / 2) + 1], a[int(NR * 0.9)], a[NR] }'

echo "== scale: queries while 100 changes/s are pushed" >&2
(
  for k in $(seq 0 19); do
    curl -sf -o /dev/null -w '%{time_total}\n' --data-binary "@$work/push100-$k.geojson" \
      "http://127.0.0.1:$port/v1/feeds/wzdx"
    sleep 0.9
  done >"$work/push100.times"
) &
pusher=$!
queries="$("$python" "$tools" latency "$port" 6000 7)"
wait "$pusher"
echo "scale queries under 100 changes/s: $queries"
sort -n "$work/push100.times" | awk '{a[NR] = $1} END {
  printf "scale push 100 changes (meanwhile): {\"pushes\": %d, \"p50_s\": %s, \"max_s\": %s}\n",
    NR, a[int(NR / 2) + 1], a[NR] }'
