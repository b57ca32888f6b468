#!/usr/bin/env bash
# Runs the release binary (what `make demo` builds and users install) through its main paths in a
# scratch HOME: the tests exercise the debug build, this checks the statically linked release one.
set -euo pipefail
cd "$(dirname "$0")/.."
bin="$PWD/.build/release/datebook"
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
run() { HOME="$home" "$bin" --now 2026-12-01T09:00Z --tz Europe/Berlin "$@"; }
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
echo "smoke: release binary ok ($(du -h "$bin" | cut -f1), Swift runtime linked statically)"
