# Sourced by the region-size benchmarks (bench/scale.sh, bench/scale_flow.sh).
#
# `scale_setup NAME` sets $python, $tools, a scratch $work directory (removed on exit, with
# any server still running) and $bin, the release `traffic` it builds.
# `serve_ready LABEL [STORE...]` starts `traffic serve` on STORE (default: --db
# "$work/store.sqlite") at a free port as a user starts it (default options), waits for the
# first answered v7 query (a 1 km circle in Berlin) and then for the log line saying every
# incident is loaded and indexed, and prints "LABEL: {"first_query_s": ..., "loaded_s": ...,
# "rss_kb": ...}" (seconds from the start, RSS once loaded); it sets $port and $server (the
# last one started; every server is stopped on exit).

scale_setup() {
  python="${PYTHON:-/usr/bin/python3}"
  tools="$PWD/bench/scale_tools.py"
  work="$(mktemp -d "${TMPDIR:-/tmp}/traffic-$1.XXXXXX")"
  server=""
  servers=()
  trap scale_cleanup EXIT
  swift build -c release --product traffic >&2
  bin="$(swift build -c release --product traffic --show-bin-path)/traffic"
}

scale_cleanup() {
  local running
  for running in "${servers[@]}"; do
    kill "$running" 2>/dev/null || true
    wait "$running" 2>/dev/null || true
  done
  rm -rf "$work"
}

serve_ready() {
  port="$("$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  local label="$1" start first loaded rss log
  shift
  if [[ $# -eq 0 ]]; then set -- --db "$work/store.sqlite"; fi
  log="$work/serve-$port"
  start="$(date +%s.%N)"
  "$bin" serve "$@" --port "$port" >"$log.out" 2>"$log.err" &
  server=$!
  servers+=("$server")
  until curl -sf -o /dev/null "http://127.0.0.1:$port/v7/incidents?in=circle:52.52,13.405;r=1000"; do
    kill -0 "$server" 2>/dev/null || { cat "$log.err" >&2; exit 1; }
    sleep 0.05
  done
  first="$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN {printf "%.2f", b - a}')"
  until grep -q "loaded and indexed" "$log.err"; do
    kill -0 "$server" 2>/dev/null || { cat "$log.err" >&2; exit 1; }
    sleep 0.05
  done
  loaded="$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN {printf "%.2f", b - a}')"
  rss="$(awk '/VmRSS/ {print $2}' "/proc/$server/status")"
  echo "$label: {\"first_query_s\": $first, \"loaded_s\": $loaded, \"rss_kb\": $rss}"
}
