# Sourced by the region-size benchmarks (bench/scale.sh, bench/scale_flow.sh).
#
# `scale_setup NAME` sets $python, $tools, a scratch $work directory (removed on exit, with
# any server still running) and $bin, the release `traffic` it builds.
# `serve_ready LABEL` starts `traffic serve` on "$work/store.sqlite" at a free port as a user
# starts it (default options), waits for the first answered /healthz and prints
# "LABEL: {"seconds": ..., "rss_kb": ...}"; it sets $port and $server.

scale_setup() {
  python="${PYTHON:-/usr/bin/python3}"
  tools="$PWD/bench/scale_tools.py"
  work="$(mktemp -d "${TMPDIR:-/tmp}/traffic-$1.XXXXXX")"
  server=""
  trap scale_cleanup EXIT
  swift build -c release --product traffic >&2
  bin="$(swift build -c release --product traffic --show-bin-path)/traffic"
}

scale_cleanup() {
  if [[ -n "$server" ]]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  rm -rf "$work"
}

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
