#!/usr/bin/env bash
# Publishing benchmark: what the DATEX II and WZDx documents cost on a store of generated WZDx
# work zones, as users produce them — `traffic export datex2|wzdx` (wall time, peak RSS,
# size) and `traffic serve`'s `/datex2/v3/situations` and `/wzdx/v4.2/feed` (a whole
# document, gzip (first and again), a conditional GET of a current copy, and a DATEX II
# delta after a push of 1,000 changes), all with the release binary and default options.
#
# Needs: curl, python3 (`make bench` installs them). Usage: bench/publish.sh
# Environment: COUNT (work zones, default 100000).
set -euo pipefail

COUNT="${COUNT:-100000}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="$(mktemp -d)"
PORT="${SERVER_PORT:-18090}"
SERVER_PID=""
cleanup() {
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

(cd "$ROOT" && swift build -c release --product traffic >&2)
BIN="$(cd "$ROOT" && swift build -c release --show-bin-path)/traffic"

echo "== publish: $COUNT work zones, traffic import" >&2
python3 "$ROOT/bench/make_wzdx.py" "$COUNT" "$WORK/workzones.geojson"
"$BIN" import --quiet --db "$WORK/store.sqlite" "$WORK/workzones.geojson" >&2

for format in datex2 wzdx; do
  python3 "$ROOT/bench/scale_tools.py" run "$BIN" export "$format" --db "$WORK/store.sqlite" \
    -o "$WORK/export.$format" | tail -1 > "$WORK/time"
  read -r seconds kilobytes < <(python3 -c '
import json, sys
run = json.load(open(sys.argv[1]))
print(run["seconds"], run["peak_rss_kb"])' "$WORK/time")
  bytes=$(stat -c %s "$WORK/export.$format")
  echo "traffic export $format: ${seconds} s, peak RSS $((kilobytes / 1024)) MB, $((bytes / 1000000)) MB"
done

"$BIN" serve --db "$WORK/store.sqlite" --port "$PORT" > "$WORK/server.out" 2> "$WORK/access.log" &
SERVER_PID=$!
for _ in $(seq 1 600); do
  curl -sf "http://127.0.0.1:$PORT/healthz" -o /dev/null 2>/dev/null && break
  sleep 0.1
done
sleep 2  # past the second of the last write, so If-Modified-Since can answer 304

rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$SERVER_PID/status"; }
# The resting size once every incident is loaded and indexed (/readyz answers 200).
for _ in $(seq 1 1200); do
  curl -sf "http://127.0.0.1:$PORT/readyz" -o /dev/null 2>/dev/null && break
  sleep 0.1
done
sleep 3
RESTING_KB=$(rss_kb)
echo "traffic serve resting RSS: $((RESTING_KB / 1024)) MB"

measure() {  # label, path, extra curl arguments...
  local label="$1" path="$2"
  shift 2
  rm -f "$WORK/body"
  echo "$RESTING_KB" > "$WORK/peak"
  # The server's RSS sampled every 50 ms while the request runs: its peak above the
  # resting size is what one answer costs.
  (
    peak=0
    while :; do
      now=$(rss_kb)
      [ "$now" -gt "$peak" ] && peak=$now && echo "$peak" > "$WORK/peak"
      sleep 0.05
    done
  ) &
  local sampler=$!
  curl -s -o "$WORK/body" -D "$WORK/headers" -w "%{http_code} %{time_total} %{size_download}\n" \
    "$@" "http://127.0.0.1:$PORT$path" > "$WORK/result"
  kill "$sampler" 2>/dev/null || true
  wait "$sampler" 2>/dev/null || true
  read -r status seconds size < "$WORK/result"
  local above=$(( ($(cat "$WORK/peak") - RESTING_KB) / 1024 ))
  printf '%-56s %s in %6.3f s, %10d bytes, peak RSS +%d MB\n' "$label" "$status" "$seconds" \
    "$size" "$above"
}

for path in /datex2/v3/situations /wzdx/v4.2/feed; do
  measure "GET $path" "$path"
  tag=$(grep -i '^etag:' "$WORK/headers" | cut -d' ' -f2 | tr -d '\r')
  modified=$(grep -i '^last-modified:' "$WORK/headers" | cut -d' ' -f2- | tr -d '\r')
  measure "GET $path, gzip" "$path" -H 'Accept-Encoding: gzip'
  measure "GET $path, gzip again (same version)" "$path" -H 'Accept-Encoding: gzip'
  measure "GET $path, If-None-Match" "$path" -H "If-None-Match: $tag"
  measure "GET $path, If-Modified-Since" "$path" -H "If-Modified-Since: $modified"
done

# A delta: 1,000 work zones changed by their feed, then the changes since the last document.
curl -sf "http://127.0.0.1:$PORT/wzdx/v4.2/feed" -o "$WORK/feed.json"
since=$(python3 - "$WORK/feed.json" <<'PY'
import json, sys
print(json.load(open(sys.argv[1]))["feed_info"]["update_date"])
PY
)
python3 - "$WORK/workzones.geojson" "$WORK/push.geojson" <<'PY'
import json, random, sys
document = json.load(open(sys.argv[1]))
random.seed(11)
document["features"] = random.sample(document["features"], 1000)
for feature in document["features"]:
    core = feature["properties"]["core_details"]
    core["update_date"] = "2030-01-01T00:00:00Z"
    core["description"] = "changed " + core.get("description", "")
json.dump(document, open(sys.argv[2], "w"))
PY
sleep 1
curl -sf --data-binary @"$WORK/push.geojson" "http://127.0.0.1:$PORT/v1/feeds/wzdx" -o /dev/null
measure "GET /datex2/v3/situations?since= (1,000 changed)" "/datex2/v3/situations?since=$since"
echo "delta records: $(grep -c "<sit:situation " "$WORK/body"), $(grep -i "^x-publication" "$WORK/headers" | tr -d "\r"), since $since"
