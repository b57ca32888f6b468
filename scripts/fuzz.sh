#!/usr/bin/env bash
# Builds datebook's libFuzzer targets (fuzz/) with -sanitize=fuzzer,address and runs each for
# FUZZ_SECONDS (default 60) from its seed corpus fuzz/corpus/<target>/. New inputs go to
# .build/fuzz/corpus/<target>/, findings (crash-*, timeout-*, oom-*) to .build/fuzz/findings/<target>/.
# FUZZ_TARGETS picks targets (default: all). See docs/fuzzing.md.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH
seconds=${FUZZ_SECONDS:-60}
targets=${FUZZ_TARGETS:-"ical ical-libical rrule planner-json config when mustache feed action-link dav-xml"}
out=.build/fuzz

# The linker warns once per ASan helper symbol ("Cannot export local symbol '__asan_…'"): harmless.
DATEBOOK_FUZZ=1 swift build --build-path "$out" --product datebook-fuzz \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -Onone 2>&1 | grep -v "Cannot export local symbol '__asan"
[ "${PIPESTATUS[0]}" -eq 0 ] || exit 1
binary="$out/debug/datebook-fuzz"

status=0
printf '%-14s %8s %12s %s\n' target seconds executions findings
for target in $targets; do
    [ -d "fuzz/corpus/$target" ] || { echo "fuzz: no seed corpus fuzz/corpus/$target" >&2; exit 64; }
    mkdir -p "$out/corpus/$target" "$out/findings/$target"
    log="$out/findings/$target.log"
    start=$(date +%s)
    # -timeout: one input taking longer than 10 s is a finding (a stall), like a crash.
    SWIFT_BACKTRACE=enable=no DATEBOOK_FUZZ_TARGET="$target" "$binary" \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -max_len=65536 -print_final_stats=1 \
        -artifact_prefix="$out/findings/$target/" "$out/corpus/$target" "fuzz/corpus/$target" >"$log" 2>&1
    ran=$(( $(date +%s) - start ))
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    findings=$(find "$out/findings/$target" -type f | wc -l)
    printf '%-14s %8s %12s %s\n' "$target" "$ran" "${execs:-?}" "$findings"
    [ "$findings" -eq 0 ] || status=1
done
[ $status -eq 0 ] || echo "fuzz: findings under $out/findings/; make each a regression fixture (docs/fuzzing.md)" >&2
exit $status
