#!/usr/bin/env bash
# Fair share under abuse (issue 55): builds the release `traffic` and runs
# bench/fair_share.py with it. Usage: bench/fair_share.sh [seconds per abuse, default 20]
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product traffic >&2
exec python3 bench/fair_share.py "$(swift build -c release --show-bin-path)/traffic" "${1:-20}"
