# Sourced by the region-size benchmarks: `serve_ready LABEL` starts the release `traffic
# serve` on "$work/store.sqlite" at a free port as a user starts it (default options), waits
# for the first answered /healthz and prints "LABEL: {"seconds": ..., "rss_kb": ...}".
# Needs $bin, $work and $python; sets $port and $server (the caller's cleanup stops it).
serve_ready() {
  port="$("$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  local start ready rss
  start="$(date +%s.%N)"
  "$bin" serve --db "$work/store.sqlite" --port "$port" >"$work/serve.out" 2>"$work/serve.err" &
  server=$!
  until curl -sf -o /dev/null "http://127.0.0.1:$port/healthz"; do
    kill -0 "$server" 2>/dev/null || { cat "$work/serve.err" >&2; exit 1; }
    sleep 0.05
  done
  ready="$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN {printf "%.2f", b - a}')"
  rss="$(awk '/VmRSS/ {print $2}' "/proc/$server/status")"
  echo "$1: {\"seconds\": $ready, \"rss_kb\": $rss}"
}
