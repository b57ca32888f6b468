#!/usr/bin/env bash
# Runs the whole test suite and fails if any test fails or if no test ran at all.
set -uo pipefail
cd "$(dirname "$0")/.."
log=$(mktemp)
swift test 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
# Swift Testing closes with "Test run with N tests …"; XCTest with "Executed N tests".
swift_testing=$(grep -Eo 'Test run with [0-9]+ tests?' "$log" | tail -1 | grep -Eo '[0-9]+' || echo 0)
xctest=$(grep -Eo 'Executed [0-9]+ tests?' "$log" | tail -1 | grep -Eo '[0-9]+' || echo 0)
total=$(( ${swift_testing:-0} + ${xctest:-0} ))
# A canary secret is set in the tests' configs: it must never reach any output.
leaks=$(grep -c 'CANARY-SECRET-7f3a9e' "$log" || true)
# A passing run is quiet: a traceback (from a test server or script) is a failure to look at.
tracebacks=$(grep -c 'Traceback (most recent call last)' "$log" || true)
rm -f "$log"
if [ "${leaks:-0}" -ne 0 ]; then
  echo "a canary secret appeared $leaks times in the test output" >&2
  exit 1
fi
if [ "${tracebacks:-0}" -ne 0 ]; then
  echo "the test output holds $tracebacks Python traceback(s)" >&2
  exit 1
fi
echo "tests run: $total (Swift Testing $swift_testing, XCTest $xctest)"
if [ "$status" -ne 0 ]; then
  echo "test suite failed (exit $status)" >&2
  exit "$status"
fi
if [ "$total" -eq 0 ]; then
  echo "no tests ran: treating as a failure" >&2
  exit 1
fi
