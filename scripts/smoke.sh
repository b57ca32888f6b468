#!/usr/bin/env bash
# Runs the release binary (what `make demo` builds and users install) through its main paths in a
# scratch HOME: the tests exercise the debug build, this checks the statically linked release one.
# DATEBOOK_SMOKE_BINARY names another binary (the tests run this script on the debug build).
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${DATEBOOK_SMOKE_BINARY:-$PWD/.build/release/datebook}"
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
# An empty environment but the scratch HOME: the caller's DATEBOOK_STORE, DATEBOOK_CONFIG,
# DATEBOOK_NOW/TZ, XDG_* and NO_COLOR never reach the binary, so it never touches their store.
run() { env -i HOME="$home" PATH=/usr/bin:/bin LANG=C.UTF-8 "$bin" --now 2026-12-01T09:00Z --tz Europe/Berlin "$@"; }
expect() {  # expect TEXT COMMAND…: the output contains TEXT
  local text=$1; shift
  local out
  out=$(run "$@")
  if [[ "$out" != *"$text"* ]]; then
    echo "smoke: 'datebook $*' did not print '$text'" >&2
    echo "$out" >&2
    exit 1
  fi
}
expect "datebook " --version
expect "Next 7 Days" demo
expect "Pagliacci" list --period next7
expect "<!DOCTYPE html>" digest --format html
expect "12月" digest --locale ja_JP
run export --format ics -o "$home/planner.ics" 2>/dev/null
expect "imported 9 events" import "$home/planner.ics"
[ -n "$(ls -A "$home/.local/share/datebook" 2>/dev/null)" ] || { echo "smoke: no store in the scratch HOME" >&2; exit 1; }
echo "smoke: $(basename "$(dirname "$bin")") binary ok ($(du -h "$bin" | cut -f1))"
