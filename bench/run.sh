#!/usr/bin/env bash
# Builds traffic-bench in release mode, runs it and the same workload on Python rtree
# (libspatialindex), and prints the figures side by side with flatbush's published ones.
# `make bench` calls this; at full size it ends with bench/load.sh (the HTTP load benchmark),
# bench/fair_share.sh (a well-behaved client among abusive ones)
# and `traffic-bench --scale` (bench/scale.sh, bench/scale_postgres.sh and
# bench/scale_flow.sh: the region-size benchmarks).
# Pass --quick for a fast smoke run (small sizes, no load benchmark).
set -euo pipefail
cd "$(dirname "$0")/.."

quick=""
if [[ "${1:-}" == "--quick" ]]; then quick="--quick"; fi
python="${PYTHON:-/usr/bin/python3}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

swift build -c release --product traffic-bench >&2
bin="$(swift build -c release --product traffic-bench --show-bin-path)/traffic-bench"

echo "== traffic-bench $quick" >&2
"$bin" $quick --json-only | tee "$out/ours.jsonl"

if "$python" -c "import rtree" 2>/dev/null; then
  echo "== python rtree $quick" >&2
  # libspatialindex's bulk load sorts through temporary files in the working directory.
  script="$PWD/bench/rtree_compare.py"
  (cd "$out" && "$python" "$script" $quick) | tee "$out/python.jsonl"
else
  echo "python rtree not installed (apt-get install python3-rtree); skipping it" >&2
  : > "$out/python.jsonl"
fi

"$python" - "$out/ours.jsonl" "$out/python.jsonl" "$quick" <<'PY'
import json, sys

ours = [json.loads(line) for line in open(sys.argv[1]) if line.startswith("{")]
python = {}
for line in open(sys.argv[2]):
    if line.startswith("{"):
        entry = json.loads(line)
        python[entry["name"].removeprefix("python-rtree.")] = entry
quick = sys.argv[3] == "--quick"
# flatbush README, `node bench.js` with Node v14, same workload at full size.
flatbush = {"rtree.build": 273, "rtree.search-10%": 575, "rtree.search-1%": 63,
            "rtree.search-0.01%": 6, "rtree.nearest-100": 24, "rtree.nearest-all": 133,
            "rtree.nearest-1": 710}

def fmt(value, unit):
    return f"{value:,.0f} {unit}" if value >= 100 else f"{value:.2f} {unit}"

rows = [("benchmark", "n", "traffic-bench", "flatbush (published)", "python rtree", "vs python")]
for m in ours:
    name, unit = m["name"], m["unit"]
    ref = flatbush.get(name) if not quick else None
    py = python.get(name)
    rows.append((name, f"{m['n']:,}", fmt(m["value"], unit),
                 fmt(ref, "ms") + f" ({m['value'] / ref:.2f}x)" if ref else "-",
                 fmt(py["value"], py["unit"]) if py else "-",
                 f"{py['value'] / m['value']:.1f}x faster" if py and unit == "ms" else "-"))
widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
print()
for row in rows:
    print("  ".join(cell.ljust(widths[i]) if i == 0 else cell.rjust(widths[i])
                    for i, cell in enumerate(row)))
PY

# The HTTP load benchmark: `traffic serve` as users run it, side by side with nginx.
if [[ -z "$quick" ]]; then
  echo "== load (bench/load.sh)" >&2
  bench/load.sh
fi

# Fair share under abuse: eight abusive clients against one well-behaved client.
if [[ -z "$quick" ]]; then
  echo "== fair share (bench/fair_share.sh)" >&2
  bench/fair_share.sh
fi

# Publishing: DATEX II and WZDx documents of the 100,000-work-zone store.
if [[ -z "$quick" ]]; then
  echo "== publish (bench/publish.sh)" >&2
  bench/publish.sh
fi

# The region-size benchmarks (`traffic-bench --scale`): a million work zones imported,
# served, pushed to and queried, on SQLite (bench/scale.sh) and on two PostgreSQL nodes
# (bench/scale_postgres.sh); then 2.16M road segments tiled from the real OSM extract, 1.35M
# probes imported, served, flow queried after new probes and routes (bench/scale_flow.sh).
if [[ -z "$quick" ]]; then
  echo "== scale (traffic-bench --scale)" >&2
  "$bin" --scale
fi
