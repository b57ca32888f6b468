#!/usr/bin/env python3
"""One hostile rule in a 100k-event planner (issue 13): what it costs the budgets.

Two stores are imported from the same generated 100,000-event ICS (10% weekly-recurring); in the
second the first event recurs on every second of the year (`generate.py --hostile 1`, the
743-byte rule). Then `list --period next30`, `tick` with nothing due (a file channel) and `add`
run interleaved on both, so a busy shared host slows both alike; CPU time (user + system of the
process) is reported beside wall time because it moves less with the host's load. Replaces its
section of bench/results.md.

    /usr/bin/python3 bench/hostile.py        # needs .build/release/datebook (make build)
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

N = 100_000
RUNS = int(os.environ.get("BENCH_RUNS", "9"))
NOW = dt.datetime(2026, 12, 1, 9, 0, tzinfo=dt.timezone.utc)
MARKER = "## One hostile rule (bench/hostile.py)"


def run(args, store, config, now=NOW):
    """Wall and CPU time (ms) and peak RSS (MB) of one run."""
    env = dict(os.environ, DATEBOOK_STORE=store, DATEBOOK_CONFIG=config, NO_COLOR="1")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run([bench.BIN, "--now", now.strftime("%Y-%m-%dT%H:%M:%SZ"), "--tz", bench.TZ] + args, env=env,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = (time.perf_counter() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 75):
        sys.exit(f"datebook {' '.join(args)} exited {proc.returncode}: {proc.stderr.decode()}")
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    return wall, cpu, after.ru_maxrss / 1024


def main():
    work = tempfile.mkdtemp(prefix="datebook-hostile-")
    config = os.path.join(work, "config.json5")
    with open(config, "w") as out:
        out.write(f'{{ timeZone: "Europe/Berlin", channels: {{ notes: {{ type: "file", path: "{work}/alerts.md" }} }},'
                  ' alerts: { before: ["1h"], channels: ["notes"], lateness: "6h" } }\n')
    gen = os.path.join(bench.ROOT, "bench", "generate.py")
    stores = {}
    imports = {}
    for label, extra in (("plain", []), ("hostile", ["--hostile", "1"])):
        prefix = os.path.join(work, label)
        subprocess.run([sys.executable, gen, str(N), prefix, "--ics", "--recurring", "0.1"] + extra, check=True,
                       stdout=subprocess.DEVNULL)
        store = os.path.join(work, label + ".sqlite3")
        imports[label] = run(["import", prefix + ".ics"], store, config)
        run(["tick"], store, config)  # settles what is due at NOW
        stores[label] = store
    commands = {"next30": ["list", "--period", "next30"], "tick": ["tick"], "add": ["add", "Bench", "--at", "2026-12-02 10:00"]}
    samples = {(what, label): [] for what in commands for label in stores}
    for i in range(RUNS + 1):
        for label, store in stores.items():
            for what, args in commands.items():
                result = run(args, store, config, now=NOW + dt.timedelta(seconds=i + 1))
                if i > 0:  # the first round warms the page cache
                    samples[(what, label)].append(result)
    budgets = {"next30": "≤ 50 ms", "tick": "≤ 40 ms", "add": ""}
    names = {"next30": "`list --period next30`", "tick": "`tick`, nothing due", "add": "`add`"}
    load = os.getloadavg()[0]
    lines = ["", MARKER, "",
             f"{N:,} events (10% weekly) with and without one event on the 743-byte rule of issue 13, interleaved, "
             f"median of {RUNS}; load average {load:.1f} at the end.", "",
             "| command | planner | wall ms | CPU ms | budget (wall) |", "|---|---|---:|---:|---|"]
    for label, (wall, cpu, rss) in imports.items():
        lines.append(f"| `import planner.ics` (one run, {rss:.0f} MB) | {label} | {wall:.0f} | {cpu:.0f} | ≤ 3000 ms, ≤ 300 MB |")
    for what in commands:
        for label in stores:
            runs = samples[(what, label)]
            lines.append(f"| {names[what]} | {label} | {statistics.median(r[0] for r in runs):.1f} "
                         f"| {statistics.median(r[1] for r in runs):.1f} | {budgets[what]} |")
    print("\n".join(lines))
    bench.write_section(MARKER, lines)
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    if not bench.help_requested(__doc__):
        main()
