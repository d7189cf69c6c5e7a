#!/usr/bin/env bash
# Load test of the traffic server (issue 6): wrk against a 1 km circle query on a store of
# 100,000 incidents, side by side with nginx serving a static JSON of the same size on the
# same machine, in the same run. Prints requests per second and latency percentiles at
# full load, then p99 at half of the server's maximum rate (wrk throttled with a Lua delay).
#
# Needs: wrk, nginx (Debian: wrk nginx-light), a release build of traffic-load-server
# (built here if missing). Usage: bench/load.sh [seconds per run, default 10]
set -euo pipefail

DURATION="${1:-10}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="$(mktemp -d)"
SERVER_PORT="${SERVER_PORT:-18080}"
NGINX_PORT="${NGINX_PORT:-18081}"
CORES="$(nproc)"
CONNECTIONS="${CONNECTIONS:-64}"
QUERY="/v7/incidents?in=circle:52.52,13.41;r=1000"
SERVER_PID=""
NGINX_PID=""

cleanup() {
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null || true
  [ -n "$NGINX_PID" ] && kill "$NGINX_PID" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

for tool in wrk nginx curl; do
  command -v "$tool" >/dev/null || { echo "load.sh: $tool is missing (apt-get install -y wrk nginx-light curl)" >&2; exit 1; }
done

BIN="$ROOT/.build/release/traffic-load-server"
if [ ! -x "$BIN" ]; then
  (cd "$ROOT" && swift build -c release --product traffic-load-server)
fi

"$BIN" --count 100000 --port "$SERVER_PORT" --threads "$CORES" > "$WORK/server.out" 2> "$WORK/server.err" &
SERVER_PID=$!
for _ in $(seq 1 600); do
  grep -q listening "$WORK/server.out" 2>/dev/null && break
  sleep 0.1
done
grep -q listening "$WORK/server.out" || { echo "load.sh: server did not start" >&2; cat "$WORK/server.err" >&2; exit 1; }

mkdir -p "$WORK/html" "$WORK/logs"
chmod 755 "$WORK"
curl -sf "http://127.0.0.1:$SERVER_PORT$QUERY" -o "$WORK/html/static.json"
BYTES=$(stat -c %s "$WORK/html/static.json")
RESULTS=$(grep -o '"originalId"' "$WORK/html/static.json" | wc -l)

cat > "$WORK/nginx.conf" <<CONF
worker_processes $CORES;
pid $WORK/nginx.pid;
error_log $WORK/logs/error.log;
events { worker_connections 4096; }
http {
  access_log off;
  types { application/json json; }
  client_body_temp_path $WORK/logs;
  proxy_temp_path $WORK/logs;
  fastcgi_temp_path $WORK/logs;
  uwsgi_temp_path $WORK/logs;
  scgi_temp_path $WORK/logs;
  server {
    listen 127.0.0.1:$NGINX_PORT;
    root $WORK/html;
    location / { }
  }
}
CONF
nginx -p "$WORK" -c "$WORK/nginx.conf" -g 'daemon off;' 2> "$WORK/logs/nginx.stderr" &
NGINX_PID=$!
for _ in $(seq 1 100); do
  curl -sf "http://127.0.0.1:$NGINX_PORT/static.json" -o /dev/null 2>/dev/null && break
  sleep 0.1
done

echo "1 km circle query: $RESULTS incidents, $BYTES bytes of JSON; store of 100,000 incidents"
echo "wrk: $CORES threads, $CONNECTIONS connections, ${DURATION}s per run, machine with $CORES cores"
echo

run() { # name url [extra wrk args...]
  local name="$1" url="$2"
  shift 2
  local file="$WORK/run-$RANDOM.txt"
  wrk -t"$CORES" -c"$CONNECTIONS" -d"${DURATION}s" --latency "$@" "$url" > "$file"
  local rps p50 p90 p99
  rps=$(awk '/Requests\/sec/ {print $2}' "$file")
  p50=$(awk '$1 == "50%" {print $2}' "$file")
  p90=$(awk '$1 == "90%" {print $2}' "$file")
  p99=$(awk '$1 == "99%" {print $2}' "$file")
  local errors
  errors=$(awk '/Non-2xx|Socket errors/' "$file" | tr '\n' ' ')
  printf "%-32s %12s req/s   p50 %-9s p90 %-9s p99 %-9s %s\n" "$name" "$rps" "$p50" "$p90" "$p99" "$errors" >&2
  echo "$rps"
}

SERVER_RPS=$(run "traffic-server (max)" "http://127.0.0.1:$SERVER_PORT$QUERY")
NGINX_RPS=$(run "nginx static (max)" "http://127.0.0.1:$NGINX_PORT/static.json")

# Half of the server's maximum rate. wrk (not wrk2) can only pause each connection a whole
# number of milliseconds before its next request; a pause of D ms on average is made of
# floor(D) and floor(D) + 1 drawn at random. One short calibration run measures the latency
# added to the pause (cycle = pause + latency, rate = connections / cycle), and the pause is
# corrected once.
HALF_CONNECTIONS="${HALF_CONNECTIONS:-$CONNECTIONS}"
TARGET_RPS=$(awk -v rps="$SERVER_RPS" 'BEGIN { printf "%d", rps / 2 }')
throttle() { # average pause in ms
  cat > "$WORK/throttle.lua" <<LUA
local base = math.floor($1)
local fraction = $1 - base
function delay()
  if math.random() < fraction then return base + 1 end
  return base
end
LUA
}
DELAY_MS=$(awk -v c="$HALF_CONNECTIONS" -v t="$TARGET_RPS" 'BEGIN { printf "%.3f", 1000 * c / t }')
throttle "$DELAY_MS"
wrk -t"$CORES" -c"$HALF_CONNECTIONS" -d3s -s "$WORK/throttle.lua" \
  "http://127.0.0.1:$SERVER_PORT$QUERY" > "$WORK/calibration.txt"
CALIBRATION_RPS=$(awk '/Requests\/sec/ {print $2}' "$WORK/calibration.txt")
DELAY_MS=$(awk -v c="$HALF_CONNECTIONS" -v t="$TARGET_RPS" -v r="$CALIBRATION_RPS" -v d="$DELAY_MS" \
  'BEGIN { x = 1000 * c / t - (1000 * c / r - d); if (x < 0) x = 0; printf "%.3f", x }')
throttle "$DELAY_MS"
CONNECTIONS="$HALF_CONNECTIONS" run "traffic-server (half: $TARGET_RPS/s)" \
  "http://127.0.0.1:$SERVER_PORT$QUERY" -s "$WORK/throttle.lua" > /dev/null
echo
awk -v s="$SERVER_RPS" -v n="$NGINX_RPS" 'BEGIN { printf "traffic-server / nginx = %.0f %% of nginx requests per second\n", 100 * s / n }'
