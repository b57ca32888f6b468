#!/usr/bin/env bash
# Runs the test suite in two tiers and fails if a test fails, if no test ran, or if the run left
# files in the temporary folder or processes behind. docs/testing.md describes it.
#
#   scripts/test.sh          the fast tier, then the stress tier
#   scripts/test.sh fast     every suite but the stress suites
#   scripts/test.sh stress   the stress suites alone (kill loops, crash tests)
#
# Each tier is one `swift test --skip-build` run with TMPDIR set to a folder of its own under
# /tmp; the output of each is kept in .build/test-logs/TIER.log, and crash reports of the test
# process (Swift's backtracer) in .build/test-logs/crashes/.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

# The stress suites: the long kill loops and crash tests (minutes each, mostly waiting on real
# processes). One regular expression over test identifiers (Module.Suite/test()).
stress_suites='DatebookSchedulerTests.ReplicaTests|DatebookSchedulerTests.PausedReplicaTests|DatebookSchedulerTests.CrashTests|DatebookSyncTests.CalDAVKillTests'

# The same locale and zone on every machine (tests pass --tz / --now where they mean one; this is
# for what they do not name): a developer's LANG or TZ must not change a result.
export LANG=C.UTF-8 TZ=UTC
unset LANGUAGE LC_ALL LC_CTYPE LC_MESSAGES LC_TIME LC_NUMERIC LC_COLLATE LC_MONETARY

tiers=(fast stress)
case "${1:-all}" in
  all) ;;
  fast|stress) tiers=("$1") ;;
  *) echo "usage: scripts/test.sh [all|fast|stress]" >&2; exit 64 ;;
esac

logs="$root/.build/test-logs"
mkdir -p "$logs/crashes"

echo "test: building (swift build --build-tests)"
if ! swift build --build-tests > "$logs/build.log" 2>&1; then
  tail -n 40 "$logs/build.log" >&2
  echo "test: the build failed (whole log: $logs/build.log)" >&2
  exit 1
fi

# What /tmp holds before the run: an entry that appears during the run and is still there at the
# end was left by a test (the run's own TMPDIR aside, which must end empty).
snapshot=$(mktemp -d /tmp/datebook-test-snapshot.XXXXXX)
ls -A /tmp | sort > "$snapshot/before"

# Processes that mention this checkout (its .build, its test scripts) or the run's TMPDIR, other
# than this script and its ancestors: whatever is there after a tier was left by it.
leftover_processes() {
  /usr/bin/python3 - "$root" "$1" "$$" <<'PY'
import os, sys
root, tmp = sys.argv[1], sys.argv[2]
mine = {int(sys.argv[3])}
pid = os.getpid()  # this check, the subshell running it, the script and its callers
while pid > 1:
    mine.add(pid)
    try:
        with open(f"/proc/{pid}/stat") as f: pid = int(f.read().rsplit(")", 1)[1].split()[1])
    except OSError: break
for entry in os.listdir("/proc"):
    if not entry.isdigit() or int(entry) in mine: continue
    try:
        with open(f"/proc/{entry}/cmdline", "rb") as f: command = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
        with open(f"/proc/{entry}/stat") as f: fields = f.read().rsplit(")", 1)[1].split()
    except OSError: continue
    if fields[0] == "Z" or int(fields[1]) in mine: continue
    try: cwd = os.readlink(f"/proc/{entry}/cwd")
    except OSError: cwd = ""
    if tmp in command or cwd.startswith(tmp) or root + "/.build/" in command or root + "/Tests/" in command:
        print(entry, command[:200])
PY
}

failed_tiers=()
failed_tests=()
problems=()
total=0
for tier in "${tiers[@]}"; do
  log="$logs/$tier.log"
  tmp=$(mktemp -d /tmp/datebook-test-run.XXXXXX)
  chmod 755 "$tmp"  # the PostgreSQL tests' server runs as the postgres user and must reach its folder
  if [ "$tier" = fast ]; then selection=(--skip "$stress_suites"); else selection=(--filter "$stress_suites"); fi
  echo "test: $tier tier (log: $log)"
  started=$(date +%s)
  # --disable-xctest: every test is Swift Testing (no "Executed 0 tests" line from an empty XCTest run).
  TMPDIR="$tmp" SWIFT_BACKTRACE="enable=yes,interactive=no,output-to=$logs/crashes" \
    swift test --skip-build --disable-xctest "${selection[@]}" 2>&1 | tee "$log"
  status=${PIPESTATUS[0]}
  seconds=$(( $(date +%s) - started ))

  count=$(grep -Eo 'Test run with [0-9]+ tests?' "$log" | tail -1 | grep -Eo '[0-9]+' || echo 0)
  total=$(( total + ${count:-0} ))
  # A canary secret is set in the tests' configs: it must never reach any output.
  leaks=$(grep -c 'CANARY-SECRET-7f3a9e' "$log" || true)
  # A passing run is quiet: a traceback (from a test server or script) is a failure to look at.
  tracebacks=$(grep -c 'Traceback (most recent call last)' "$log" || true)
  [ "${leaks:-0}" -eq 0 ] || problems+=("$tier tier: a canary secret appeared $leaks times in the test output")
  [ "${tracebacks:-0}" -eq 0 ] || problems+=("$tier tier: the test output holds $tracebacks Python traceback(s)")

  # The failing tests by name; when the test process died, the tests it was running.
  while IFS= read -r name; do failed_tests+=("$tier: $name"); done < <(
    sed -n 's/^.*✘ Test \(.*\) failed after .*$/\1/p' "$log" | grep -v '^run with ' | sort -u)
  if ! grep -q 'Test run with [0-9]* tests\? ' "$log"; then
    problems+=("$tier tier: the test process ended without finishing the run (exit $status); crash reports, if any: $logs/crashes/")
    while IFS= read -r name; do failed_tests+=("$tier: $name (running when the test process died)"); done < <(
      comm -23 <(sed -n 's/^.*◇ Test \(.*\) started\.$/\1/p' "$log" | sort -u) \
               <(sed -n 's/^.*[✔✘➜] Test \(.*\) \(passed\|failed\|skipped\).*$/\1/p' "$log" | sort -u))
  fi

  # Nothing left behind: the run's TMPDIR is empty, and no process of the run is still there.
  # SwiftPM's own (TemporaryDirectory.*, *.lock) go with the folder. The test process's reaper
  # finishes its work just after the test process ends: up to 30 s are given to it.
  for _ in $(seq 1 30); do
    leftovers=$(ls -A "$tmp" | grep -Ev '^(TemporaryDirectory\.[A-Za-z0-9]+|.*\.lock)$')
    processes=$(leftover_processes "$tmp")
    [ -n "$leftovers$processes" ] || break
    sleep 1
  done
  if [ -n "$leftovers" ]; then
    problems+=("$tier tier left in its TMPDIR: $(echo "$leftovers" | head -20 | tr '\n' ' ')")
  fi
  if [ -n "$processes" ]; then
    problems+=("$tier tier left processes running (now killed): $(echo "$processes" | tr '\n' ';')")
    echo "$processes" | while read -r pid _; do kill -KILL "$pid" 2>/dev/null; done
  fi
  rm -rf "$tmp"
  crashes=$(find "$logs/crashes" -type f -newermt "@$started" 2>/dev/null)
  [ -z "$crashes" ] || problems+=("$tier tier: crash report(s): $(echo "$crashes" | tr '\n' ' ')")

  if [ "$status" -ne 0 ] || [ "${count:-0}" -eq 0 ]; then
    failed_tiers+=("$tier")
    echo "test: $tier tier FAILED (exit $status, $count tests, ${seconds} s)" >&2
  else
    echo "test: $tier tier passed ($count tests, ${seconds} s)"
  fi
done

# Entries this run added to /tmp (a child run with an environment of its own writes there).
ls -A /tmp | sort > "$snapshot/after"
added=$(comm -13 "$snapshot/before" "$snapshot/after" | grep -v "^$(basename "$snapshot")\$" | grep -E '^(datebook|digest|tmp|radicale|pg_|dbus-|\.s\.PGSQL)' || true)
rm -rf "$snapshot"
if [ -n "$added" ]; then
  # DATEBOOK_SHARED_TMP=1: other test runs share this /tmp (several checkouts on one machine), so
  # a new entry may be theirs: it is named, and does not fail the run.
  if [ "${DATEBOOK_SHARED_TMP:-0}" = 1 ]; then
    echo "test: new in /tmp during the run (this run's or another's): $(echo "$added" | head -20 | tr '\n' ' ')" >&2
  else
    problems+=("the run left in /tmp: $(echo "$added" | head -20 | tr '\n' ' ')")
  fi
fi

echo "tests run: $total"
for problem in "${problems[@]}"; do echo "test: $problem" >&2; done
if [ ${#failed_tests[@]} -gt 0 ]; then
  echo "test: failing tests:" >&2
  printf '  %s\n' "${failed_tests[@]}" >&2
fi
if [ ${#failed_tiers[@]} -gt 0 ]; then
  echo "test: FAILED in the ${failed_tiers[*]} tier(s); logs in $logs/" >&2
  exit 1
fi
if [ "$total" -eq 0 ]; then
  echo "test: no tests ran: treating as a failure" >&2
  exit 1
fi
if [ ${#problems[@]} -gt 0 ]; then
  echo "test: FAILED: the tests passed but the run is not clean (see above)" >&2
  exit 1
fi
echo "test: all tiers passed"
