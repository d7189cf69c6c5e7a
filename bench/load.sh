#!/usr/bin/env bash
# Load benchmark: `traffic serve` exactly as users start it (the release binary, default
# options: access log on, response cache on, no keys) on a store of generated WZDx work zones
# imported with `traffic import`, side by side in the same run with nginx serving the very
# same bytes as static files. The server and nginx each run pinned to core 0, wrk to core 1
# (`taskset`), one wrk thread and 32 connections, as a client on another machine would load
# one serving core. Three cases:
#   repeated  one v7 incident query again and again (the response-cache path)
#   distinct  1 km circles at random places over the store, each asked once during the run
#             (the query and encoding path); nginx serves the same answers as files
#   gzip      the repeated query with Accept-Encoding: gzip; nginx serves the same gzip bytes
# Then the server is stopped with SIGTERM and its access log must hold a line for every
# request wrk counted.
#
# Needs: wrk, nginx, curl, python3 (Debian: wrk nginx-light curl python3; `make bench`
# installs them) and two cores. Usage: bench/load.sh [seconds per run, default 8]
# Environment: COUNT (work zones, default 100000), DISTINCT (distinct queries, 60000).
set -euo pipefail

DURATION="${1:-8}"
COUNT="${COUNT:-100000}"
DISTINCT="${DISTINCT:-60000}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="$(mktemp -d)"
SERVER_PORT="${SERVER_PORT:-18080}"
NGINX_PORT="${NGINX_PORT:-18081}"
SERVER_CORE=0
CLIENT_CORE=1
QUERY="/v7/incidents?in=circle:52.52,13.405;r=1000&locationReferencing=shape"
SERVER_PID=""
NGINX_PID=""

cleanup() {
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null || true
  [ -n "$NGINX_PID" ] && kill "$NGINX_PID" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

for tool in wrk nginx curl python3 taskset; do
  command -v "$tool" >/dev/null || {
    echo "load.sh: $tool is missing (make deps-bench installs it)" >&2
    exit 1
  }
done
[ "$(nproc)" -ge 2 ] || { echo "load.sh: needs two cores (server and client pinned apart)" >&2; exit 1; }

(cd "$ROOT" && swift build -c release --product traffic >&2)
BIN="$(cd "$ROOT" && swift build -c release --show-bin-path)/traffic"

echo "== load: $COUNT work zones, traffic import" >&2
python3 "$ROOT/bench/make_wzdx.py" "$COUNT" "$WORK/workzones.geojson"
"$BIN" import --db "$WORK/store.sqlite" "$WORK/workzones.geojson" >&2

taskset -c "$SERVER_CORE" "$BIN" serve --db "$WORK/store.sqlite" --port "$SERVER_PORT" \
  > "$WORK/server.out" 2> "$WORK/access.log" &
SERVER_PID=$!
for _ in $(seq 1 600); do
  curl -sf "http://127.0.0.1:$SERVER_PORT/healthz" -o /dev/null 2>/dev/null && break
  kill -0 "$SERVER_PID" 2>/dev/null || { echo "load.sh: traffic serve exited" >&2; cat "$WORK/access.log" >&2; exit 1; }
  sleep 0.1
done

# The same bytes for nginx: the repeated answer, its gzip form, and every distinct answer.
mkdir -p "$WORK/html/d" "$WORK/html/gz" "$WORK/logs"
chmod 755 "$WORK"
curl -sf "http://127.0.0.1:$SERVER_PORT$QUERY" -o "$WORK/html/static.json"
curl -sf -H 'Accept-Encoding: gzip' "http://127.0.0.1:$SERVER_PORT$QUERY" -o "$WORK/html/gz/static.json"
BYTES=$(stat -c %s "$WORK/html/static.json")
GZ_BYTES=$(stat -c %s "$WORK/html/gz/static.json")
RESULTS=$(grep -o '"originalId"' "$WORK/html/static.json" | wc -l)
python3 - "$WORK" "$SERVER_PORT" "$DISTINCT" <<'PY'
# Draws the distinct queries (seeded), fetches each answer once into html/d/N.json, and
# writes the wrk scripts that ask them in order: each at most once in a run.
import http.client, random, sys
work, port, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(7)
connection = http.client.HTTPConnection("127.0.0.1", port)
paths, total = [], 0
for i in range(count):
    lat, lng = rng.uniform(52.01, 52.99), rng.uniform(12.92, 13.88)
    path = f"/v7/incidents?in=circle:{lat:.5f},{lng:.5f};r=1000&locationReferencing=shape"
    connection.request("GET", path)
    response = connection.getresponse()
    body = response.read()
    if response.status != 200:
        sys.exit(f"load.sh: {path} answered {response.status}: {body[:200]!r}")
    open(f"{work}/html/d/{i}.json", "wb").write(body)
    paths.append(path)
    total += len(body)
def script(name, targets):
    with open(f"{work}/{name}.lua", "w") as out:
        out.write("local paths = {\n")
        out.writelines(f'"{p}",\n' for p in targets)
        out.write("}\nlocal i = 0\nrequest = function()\n  i = i % #paths + 1\n"
                  "  return wrk.format(\"GET\", paths[i])\nend\n")
script("distinct-server", paths)
script("distinct-nginx", [f"/d/{i}.json" for i in range(count)])
print(f"{count} distinct 1 km circles, {total / count:,.0f} bytes per answer on average",
      file=open(f"{work}/distinct.txt", "w"))
PY

cat > "$WORK/nginx.conf" <<CONF
worker_processes 1;
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
    location /gz/ { add_header Content-Encoding gzip; }
  }
}
CONF
taskset -c "$SERVER_CORE" nginx -p "$WORK" -c "$WORK/nginx.conf" -g 'daemon off;' \
  2> "$WORK/logs/nginx.stderr" &
NGINX_PID=$!
for _ in $(seq 1 100); do
  curl -sf "http://127.0.0.1:$NGINX_PORT/static.json" -o /dev/null 2>/dev/null && break
  sleep 0.1
done

echo "store: $COUNT WZDx work zones; repeated query: $RESULTS incidents, $BYTES bytes" \
  "($GZ_BYTES gzip); $(cat "$WORK/distinct.txt")"
echo "server and nginx on core $SERVER_CORE, wrk -t1 -c32 -d${DURATION}s on core $CLIENT_CORE"
echo

TOTAL_REQUESTS=0
# run NAME URL [wrk args...]: prints a row, sets RPS and P99_MS
run() {
  local name="$1" url="$2"
  shift 2
  local file="$WORK/run-$RANDOM.txt"
  taskset -c "$CLIENT_CORE" wrk -t1 -c32 -d"${DURATION}s" --latency "$@" "$url" > "$file"
  RPS=$(awk '/Requests\/sec/ {print $2}' "$file")
  local p50 p99 errors requests
  p50=$(awk '$1 == "50%" {print $2}' "$file")
  p99=$(awk '$1 == "99%" {print $2}' "$file")
  P99_MS=$(awk '$1 == "99%" {v=$2; if (v ~ /us$/) {sub(/us/,"",v); v/=1000} else if (v ~ /ms$/) {sub(/ms/,"",v)} else if (v ~ /s$/) {sub(/s/,"",v); v*=1000}; print v}' "$file")
  errors=$(awk '/Non-2xx|Socket errors/' "$file" | tr '\n' ' ')
  requests=$(awk '/requests in/ {print $1}' "$file")
  [[ "$url" == *":$SERVER_PORT"* ]] && TOTAL_REQUESTS=$((TOTAL_REQUESTS + requests))
  printf "%-22s %12s req/s   p50 %-9s p99 %-9s %s\n" "$name" "$RPS" "$p50" "$p99" "$errors"
}

compare() { # case server_rps nginx_rps server_p99_ms
  awk -v c="$1" -v s="$2" -v n="$3" -v p="$4" \
    'BEGIN { printf "%-22s traffic serve / nginx = %.2fx, p99 %.2f ms\n\n", c, s / n, p }'
}

run "serve repeated" "http://127.0.0.1:$SERVER_PORT$QUERY"
S=$RPS; SP=$P99_MS
run "nginx repeated" "http://127.0.0.1:$NGINX_PORT/static.json"
compare repeated "$S" "$RPS" "$SP"

run "serve distinct" "http://127.0.0.1:$SERVER_PORT" -s "$WORK/distinct-server.lua"
S=$RPS; SP=$P99_MS
run "nginx distinct" "http://127.0.0.1:$NGINX_PORT" -s "$WORK/distinct-nginx.lua"
compare distinct "$S" "$RPS" "$SP"

run "serve gzip" "http://127.0.0.1:$SERVER_PORT$QUERY" -H 'Accept-Encoding: gzip'
S=$RPS; SP=$P99_MS
run "nginx gzip" "http://127.0.0.1:$NGINX_PORT/gz/static.json" -H 'Accept-Encoding: gzip'
compare gzip "$S" "$RPS" "$SP"

# The access log after a graceful stop: one line per request, none lost.
kill -TERM "$SERVER_PID"
wait "$SERVER_PID" 2>/dev/null || true
SERVER_PID=""
LOGGED=$(grep -c '^time=' "$WORK/access.log" || true)
echo "access log: $LOGGED lines after SIGTERM for $TOTAL_REQUESTS requests wrk completed" \
  "(plus $((DISTINCT + 3)) set-up requests)"
if [ "$LOGGED" -lt "$((TOTAL_REQUESTS + DISTINCT + 3))" ]; then
  echo "load.sh: the access log lost lines" >&2
  exit 1
fi
