#!/usr/bin/env bash
# make test's two passes over the built tests: every suite in parallel but the timed ones,
# then the timed ones (servers, browsers, SUMO, PostgreSQL) one after another.
#
#   Tests/run.sh 'SuiteA|SuiteB'     (the timed suites, a --filter pattern)
#
# The console shows each suite's end, every failure with its details and the totals; the
# whole output (each test's start and end) goes to .build/test-output.log. A pass that does
# not end within TEST_PASS_LIMIT (30m) is a hang: it is stopped and named, not waited for.
# The tests' scratch files (stores, logs, browser profiles) go to a private TMPDIR that is
# removed afterwards, pass or fail, so repeated runs leave nothing in /tmp.
set -uo pipefail
cd "$(dirname "$0")/.."

if [ $# -ne 1 ] || [ -z "$1" ]; then
  echo "usage: Tests/run.sh 'TimedSuite|OtherTimedSuite'" >&2
  exit 64
fi
timed=$1
swift=${SWIFT:-swift}
limit=${TEST_PASS_LIMIT:-30m}
log=.build/test-output.log

# Open to every user like /tmp itself: PostgreSQL's initdb runs as its own user.
scratch=$(mktemp -d "${TMPDIR:-/tmp}/traffic-tests.XXXXXX") || exit 1
chmod 1777 "$scratch"
trap 'rm -rf "$scratch"' EXIT
mkdir -p .build && : >"$log"

# Drops the lines that say a test or suite started (all of them when a test's arguments
# hold line breaks: up to the one ending in "started.") and that one test passed; keeps
# suites' ends, failures and their details, anything a test printed, and the run's totals.
progress() {
  awk '
    starting { starting = !/ started\.$/; next }
    /^◇ / { starting = !/ started\.$/; next }
    /^✔ Test / && !/^✔ Test run/ { next }
    { print; fflush() }'
}

# One pass: `swift test` with the given arguments, under the time limit.
pass() {
  # $swift unquoted: SWIFT may carry options, as make's $(SWIFT) does.
  # shellcheck disable=SC2086
  TMPDIR=$scratch timeout --kill-after=30s "$limit" $swift test --skip-build "$@" 2>&1 \
    | tee -a "$log" | progress
  local status=${PIPESTATUS[0]}
  if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
    echo "make test: 'swift test $*' did not end within $limit (a test hangs): stopped." \
      "The end of $log, where the tests still running started:" >&2
    tail -n 40 "$log" >&2
  elif [ "$status" -ne 0 ]; then
    echo "make test: 'swift test $*' failed (exit $status); every test's start and end" \
      "are in $log" >&2
  fi
  return "$status"
}

pass --skip "$timed" || exit $?
pass --no-parallel --filter "$timed"
