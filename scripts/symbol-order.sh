#!/usr/bin/env bash
# Regenerates scripts/symbol-order.txt, the order in which the release link lays out functions:
# those that run in datebook's common paths (the daemon's start, idle and deliveries first, then
# --version, list, tick, digest, add, demo, import, export) go together at the start of .text.
# The daemon then keeps ~4 MB of code resident instead of ~11 MB (docs/performance.md, "Linking").
#
# Needs valgrind (installed here if missing). Run it after larger changes (`make symbol-order`), and
# commit the file: symbols that no longer exist are skipped by the linker, new ones land after.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
command -v valgrind >/dev/null || { SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo; $SUDO apt-get install -y -qq valgrind >/dev/null; }
[ -f scripts/symbol-order.txt ] || : > scripts/symbol-order.txt   # the link reads it
out=$(swift build -c release --static-swift-stdlib --product datebook 2>&1) || { echo "$out" >&2; exit 1; }
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
# Valgrind 3.19 (Debian 12) gives up on the toolchain's DWARF 5 ("unhandled dwarf2 abbrev form code
# 0x25 … Possibly corrupted debuginfo file"): callgrind runs a copy without the debug info; its
# symbol table, which is all the names below come from, is the binary's own.
mkdir -p "$work/release"
objcopy --strip-debug "$root/.build/release/datebook" "$work/release/datebook"
bin=$work/release/datebook
export HOME=$work DATEBOOK_TZ=Europe/Berlin NO_COLOR=1
profile() {  # profile NAME ARGS…: one command under callgrind
  local name=$1; shift
  valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/cg.$name" "$bin" "$@" >/dev/null 2>&1 || true
}

# A local sink for the deliveries, and a config that sends alerts and a digest to it.
python3 Tests/DatebookDeliveryTests/Support/http_sink.py "$work/requests.jsonl" > "$work/sink.port" 2>/dev/null &
for _ in $(seq 50); do [ -s "$work/sink.port" ] && break; sleep 0.1; done
port=$(head -1 "$work/sink.port")
mkdir -p "$work/.config/datebook"
cat > "$work/.config/datebook/config.json5" <<JSON
{ timeZone: "Europe/Berlin",
  channels: { hook: { type: "webhook", url: "http://127.0.0.1:$port/hook" },
              team: { type: "slack", url: "http://127.0.0.1:$port/slack" } },
  alerts: { before: ["10m"], channels: ["hook", "team"] },
  digests: [ { name: "morning", at: "07:00", channels: ["hook"], format: "html" } ] }
JSON
chmod 600 "$work/.config/datebook/config.json5"
"$bin" demo >/dev/null 2>&1
now=$(date +%s)
for i in 0 1; do "$bin" add "Order $i" --at "$(date -u -d @$((now + 615 + 3 * i)) +%Y-%m-%dT%H:%M:%SZ)" --task "x" >/dev/null; done

# The daemon: start, two alerts, idle; SIGTERM lets callgrind write its profile.
valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/cg.run" "$bin" run >/dev/null 2>&1 &
daemon=$!
sleep 30
kill -TERM $daemon; wait $daemon || true

profile version --version
profile list list
profile next30 list --period next30
profile tick tick
profile digest digest --format html
profile add add "Dentist" --at "tomorrow 10:00" --task "Bring card" --alert 1h
profile show show Dentist
profile export export --format ics -o "$work/planner.ics"
profile import import "$work/planner.ics"
profile status status
profile preview preview

python3 scripts/symbol-order-extract.py release/datebook "$work"/cg.run "$work"/cg.version "$work"/cg.list \
  "$work"/cg.next30 "$work"/cg.tick "$work"/cg.digest "$work"/cg.add "$work"/cg.show "$work"/cg.export \
  "$work"/cg.import "$work"/cg.status "$work"/cg.preview > scripts/symbol-order.txt
echo "symbol-order: $(wc -l < scripts/symbol-order.txt) functions; $(grep -c '"path": "/hook"' "$work/requests.jsonl" || true) requests reached the sink"
# SwiftPM does not see the file as an input of the link: relink now.
rm -f "$root/.build/release/datebook"
out=$(swift build -c release --static-swift-stdlib --product datebook 2>&1) || { echo "$out" >&2; exit 1; }
