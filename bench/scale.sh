#!/usr/bin/env bash
# The region-size benchmark of issue 15, incident side (run by `traffic-bench --scale`):
# COUNT work zones (default 1,000,000, bench/make_wzdx.py) spread over $BOX (default germany,
# the issue's region, about 7 in a 1 km circle; BOX=berlin puts them all in 1 x 1 degree,
# some 470 in a 1 km circle, a dense worst case) imported with the release `traffic import`,
# then `traffic serve` on the store as a user starts it (default options), measured for:
#   import      wall time and peak RSS of `traffic import` into an empty store
#   ready       seconds from start to the first answered v7 query and to every incident
#               loaded and indexed, and RSS then
#   push-1000   30 documents of 1,000 changed work zones pushed to /v1/feeds/wzdx, one every
#               0.5 s: time from sending until each is answered, and until a query shows it
#   queries     6,000 distinct 1 km circle queries over the box, one client, while a
#               document of 100 changed work zones is pushed every second (100 changes/s)
# Needs about 4 GB of disk in $TMPDIR.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/scale_common.sh
source bench/scale_common.sh

count="${1:-1000000}"
box="${BOX:-germany}"
scale_setup scale

echo "== scale: writing $count work zones over $box and the push documents" >&2
"$python" bench/make_wzdx.py "$count" "$work/zones.geojson" 42 "$box"
"$python" "$tools" docs "$work/zones.geojson" "$work" 30 1000 push1000 1
"$python" "$tools" docs "$work/zones.geojson" "$work" 20 100 push100 2

echo "== scale: traffic import" >&2
import="$("$python" "$tools" run "$bin" import --db "$work/store.sqlite" "$work/zones.geojson" | tail -1)"
echo "scale import $count work zones ($box): $import"

serve_ready "scale serve ready"

echo "== scale: pushes of 1,000 changes" >&2
push="$("$python" "$tools" follow "$port" "$port" "$work" push1000 30)"
echo "scale push 1000 changes: $push"

echo "== scale: queries while 100 changes/s are pushed" >&2
(
  for k in $(seq 0 19); do
    curl -sf -o /dev/null -w '%{time_total}\n' --data-binary "@$work/push100-$k.geojson" \
      "http://127.0.0.1:$port/v1/feeds/wzdx"
    sleep 0.9
  done >"$work/push100.times"
) &
pusher=$!
queries="$("$python" "$tools" latency "$port" 6000 7 1000 "$box")"
wait "$pusher"
echo "scale queries under 100 changes/s: $queries"
sort -n "$work/push100.times" | awk '{a[NR] = $1} END {
  printf "scale push 100 changes (meanwhile): {\"pushes\": %d, \"p50_s\": %s, \"max_s\": %s}\n",
    NR, a[int(NR / 2) + 1], a[NR] }'
