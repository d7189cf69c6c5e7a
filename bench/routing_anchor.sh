#!/usr/bin/env bash
# Routing beside the open engines people self-host (issue 17's anchor): swift-traffic's
# `traffic serve` (GET /v8/routes), OSRM (osrm-routed, CH and MLD) and Valhalla
# (valhalla_service) on the same OpenStreetMap extract, asked the same PAIRS origin/destination
# pairs one at a time (bench/routing_anchor.py): latency p50/p90 and route length against
# OSRM's. Each server runs pinned to core 0 with one worker thread, the client on core 1.
# No traffic: swift-traffic routes at free flow (its speed limits), OSRM and Valhalla with
# their car profiles' speeds, so durations differ by profile and lengths show whether the
# same roads are taken. OSRM and Valhalla are the official builds `make routing-tools` fetches.
# Usage: bench/routing_anchor.sh [PAIRS]   (default 500; the Liechtenstein extract)
# With COPIES=N in the environment the engines load the region bench/make_region.py tiles
# from N copies of the extract instead (400: ~2.2M directed segments, the scale region of
# issues 15 and 17) and the pairs are drawn anywhere in it.
set -euo pipefail
cd "$(dirname "$0")/.."
pairs="${1:-500}"
python="${PYTHON:-/usr/bin/python3}"
tools="$PWD/.build/tools"
pbf="$PWD/Tests/Fixtures/osm/liechtenstein-2013-08-03.osm.pbf"
box="9.47,47.05,9.64,47.27"
[[ -x "$tools/osrm/bin/osrm-extract" && -x "$tools/valhalla/bin/valhalla_build_tiles" ]] || \
  make routing-tools >&2
swift build -c release --product traffic >&2
bin="$(swift build -c release --product traffic --show-bin-path)/traffic"
work="$(mktemp -d "${TMPDIR:-/tmp}/traffic-anchor.XXXXXX")"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
free_port() { "$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_for() { until curl -s -o /dev/null "$1"; do sleep 0.1; done; }

echo "== anchor: preparing the three engines on $(basename "$pbf")${COPIES:+, $COPIES copies}" >&2
if [[ -n "${COPIES:-}" ]]; then
  "$python" bench/make_region.py "${pbf%.pbf}.bz2" --copies "$COPIES" --pbf "$work/li.osm.pbf" >&2
  box="region"
else
  cp "$pbf" "$work/li.osm.pbf"
fi
"$bin" network import --db "$work/store.sqlite" "$work/li.osm.pbf" >&2
(cd "$work" && "$tools/osrm/bin/osrm-extract" -p "$tools/osrm/share/profiles/car.lua" li.osm.pbf \
  >/dev/null 2>&1 && mkdir ch mld && cp li.osrm* ch/ && mv li.osrm* mld/ \
  && "$tools/osrm/bin/osrm-contract" ch/li.osrm >/dev/null 2>&1 \
  && "$tools/osrm/bin/osrm-partition" mld/li.osrm >/dev/null 2>&1 \
  && "$tools/osrm/bin/osrm-customize" mld/li.osrm >/dev/null 2>&1)
ours=$(free_port); ch=$(free_port); mld=$(free_port); valhalla=$(free_port)
"$python" "$tools/valhalla/valhalla_build_config.py" --mjolnir-tile-dir "$work/tiles" \
  --mjolnir-concurrency 1 --mjolnir-tile-extract '' --mjolnir-traffic-extract '' \
  --mjolnir-admin '' --mjolnir-timezone '' \
  --httpd-service-listen "tcp://127.0.0.1:$valhalla" \
  --httpd-service-loopback "ipc://$work/loopback" --httpd-service-interrupt "ipc://$work/interrupt" \
  > "$work/valhalla.json"
"$tools/valhalla/bin/valhalla_build_tiles" -c "$work/valhalla.json" "$work/li.osm.pbf" >/dev/null 2>&1

taskset -c 0 "$bin" serve --db "$work/store.sqlite" --port "$ours" >/dev/null 2>"$work/serve.err" &
pids+=($!)
taskset -c 0 "$tools/osrm/bin/osrm-routed" -a CH -t 1 -i 127.0.0.1 -p "$ch" "$work/ch/li.osrm" >/dev/null 2>&1 &
pids+=($!)
taskset -c 0 "$tools/osrm/bin/osrm-routed" -a MLD -t 1 -i 127.0.0.1 -p "$mld" "$work/mld/li.osrm" >/dev/null 2>&1 &
pids+=($!)
taskset -c 0 "$tools/valhalla/bin/valhalla_service" "$work/valhalla.json" 1 >/dev/null 2>&1 &
pids+=($!)
wait_for "http://127.0.0.1:$ours/healthz"
wait_for "http://127.0.0.1:$ch/"
wait_for "http://127.0.0.1:$mld/"
wait_for "http://127.0.0.1:$valhalla/status"
# Ours builds its routing hierarchy in the background on a large network: measured once it
# is in use.
until [[ "$(curl -s "http://127.0.0.1:$ours/metrics" | awk '$1 == "traffic_routing_hierarchy_edges" {print $2}')" -gt 0 ]]; do
  sleep 1
done

echo "== anchor: $pairs pairs" >&2
taskset -c 1 "$python" bench/routing_anchor.py "$ours" "$ch" "$mld" "$valhalla" "$pairs" 7 "$box" \
  | sed 's/^/anchor: /'
