#!/usr/bin/env python3
"""Many overrides of one series, and the hostile calendars of issue 26: what `import` costs.

A daily series with N RECURRENCE-ID overrides (each instance moved an hour later, as Exchange and
Google write them) is imported into an empty store, for N = 150, 600, 1,200 and 10,000 (budget:
10,000 in at most 2 s); then each hostile fixture of Tests/DatebookICalTests/Fixtures (zones whose
observances repeat every second or minute, rules that can never match, the files whose events
used to be lost without a word) and a generated file of 50,000 nested unknown components closed by
50,000 stray ENDs are imported on their own (budget: 1 s each). Median of BENCH_RUNS
runs, each into a new store; CPU time (user + system) beside wall time. Replaces its section of
bench/results.md.

    /usr/bin/python3 bench/overrides.py        # needs .build/release/datebook (make build)
"""
import datetime as dt
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402

RUNS = int(os.environ.get("BENCH_RUNS", "5"))
SIZES = [150, 600, 1_200, 10_000]
FIXTURES = os.path.join(bench.ROOT, "Tests", "DatebookICalTests", "Fixtures")
HOSTILE = ["hostile-zone-secondly.ics", "hostile-zone-minutely.ics", "hostile-zone-every-second.ics",
           "never-matching-rules.ics", "stray-end-vtimezone.ics", "duplicated-end-daylight.ics",
           "vevent-after-end-vcalendar.ics", "nested-vcalendar.ics", "cr-line-ends.ics", "stray-end-vevent.ics",
           "non-utf8.ics"]
MARKER = "## Overrides and hostile calendars (bench/overrides.py)"


def overrides_calendar(count):
    """One daily series from 2000-01-01 09:00 Berlin with `count` instances moved to 10:00."""
    lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//datebook//bench//EN",
             "BEGIN:VEVENT", "UID:series", "DTSTAMP:20260101T000000Z", "SUMMARY:Daily",
             "DTSTART;TZID=Europe/Berlin:20000101T090000", "DTEND;TZID=Europe/Berlin:20000101T093000",
             "RRULE:FREQ=DAILY", "END:VEVENT"]
    day = dt.date(2000, 1, 1)
    for n in range(count):
        stamp = (day + dt.timedelta(days=n)).strftime("%Y%m%d")
        lines += ["BEGIN:VEVENT", "UID:series", "DTSTAMP:20260101T000000Z", f"SUMMARY:Moved {n}",
                  f"RECURRENCE-ID;TZID=Europe/Berlin:{stamp}T090000", f"DTSTART;TZID=Europe/Berlin:{stamp}T100000",
                  f"DTEND;TZID=Europe/Berlin:{stamp}T103000", "END:VEVENT"]
    lines.append("END:VCALENDAR")
    return "\r\n".join(lines) + "\r\n"


def deep_nesting_calendar(depth):
    """One event, then `depth` unknown components opened and `depth` stray ENDs (a parser that
    rescans its stack per line is quadratic here; Tests' HostileCalendarTests checks the result)."""
    return ("BEGIN:VCALENDAR\nBEGIN:VEVENT\nUID:kept\nDTSTART:20261210T090000Z\nEND:VEVENT\n"
            + "BEGIN:X\n" * depth + "END:Y\n" * depth + "END:VCALENDAR\n")


def run_import(path, store):
    """Wall and CPU time (ms) of one import into a new store."""
    env = dict(os.environ, DATEBOOK_STORE=store, NO_COLOR="1")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run([bench.BIN, "--now", bench.NOW, "--tz", bench.TZ, "import", path], env=env,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = (time.perf_counter() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.exit(f"datebook import {path} exited {proc.returncode}: {proc.stderr.decode()}")
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    return wall, cpu


def measure(path, work):
    samples = []
    for i in range(RUNS):
        store = os.path.join(work, f"store-{i}.sqlite3")
        samples.append(run_import(path, store))
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(store + suffix):
                os.remove(store + suffix)
    return statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples)


def main():
    work = tempfile.mkdtemp(prefix="datebook-overrides-")
    try:
        rows = []
        for count in SIZES:
            path = os.path.join(work, f"overrides-{count}.ics")
            with open(path, "w") as out:
                out.write(overrides_calendar(count))
            wall, cpu = measure(path, work)
            rows.append((f"{count:,} overrides of one series", wall, cpu, "≤ 2000 ms" if count == 10_000 else ""))
        path = os.path.join(work, "deep-nesting.ics")
        with open(path, "w") as out:
            out.write(deep_nesting_calendar(50_000))
        wall, cpu = measure(path, work)
        rows.append(("50,000 nested unknown components and 50,000 stray ENDs", wall, cpu, "≤ 1000 ms"))
        for name in HOSTILE:
            wall, cpu = measure(os.path.join(FIXTURES, name), work)
            rows.append((f"`{name}`", wall, cpu, "≤ 1000 ms"))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    load = os.getloadavg()[0]
    lines = ["", MARKER, "",
             f"`import` into an empty store, median of {RUNS} runs; load average {load:.1f} at the end.", "",
             "| file | wall ms | CPU ms | budget (wall) |", "|---|---:|---:|---|"]
    lines += [f"| {label} | {wall:.0f} | {cpu:.0f} | {budget} |" for label, wall, cpu, budget in rows]
    print("\n".join(lines))
    bench.write_section(MARKER, lines)


if __name__ == "__main__":
    if not bench.help_requested(__doc__):
        main()
