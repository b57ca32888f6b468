#!/usr/bin/env python3
"""One hostile rule in a 100k-event planner (issue 13): its marginal cost on the budgets.

Two stores are imported from the same generated 100,000-event ICS (10% weekly-recurring); in the
second the first event recurs on every second of the year (`generate.py --hostile 1`, the
743-byte rule). Then `list --period next30`, `tick` with nothing due (a file channel) and `add`
run interleaved on both, so a busy shared host slows both alike. Prints a markdown table.

    /usr/bin/python3 bench/hostile.py        # needs .build/release/datebook (make build)
"""
import datetime as dt
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402

N = 100_000
RUNS = int(os.environ.get("BENCH_RUNS", "9"))
NOW = dt.datetime(2026, 12, 1, 9, 0, tzinfo=dt.timezone.utc)


def iso(t):
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def run(args, store, config, now=NOW):
    """Wall time (ms) and peak RSS (MB) of one run."""
    os.environ["DATEBOOK_CONFIG"] = config
    bench.NOW = iso(now)
    return bench.run_once(args, store)


def main():
    work = tempfile.mkdtemp(prefix="datebook-hostile-")
    config = os.path.join(work, "config.json5")
    with open(config, "w") as out:
        out.write(f'{{ timeZone: "Europe/Berlin", channels: {{ notes: {{ type: "file", path: "{work}/alerts.md" }} }},'
                  ' alerts: { before: ["1h"], channels: ["notes"], lateness: "6h" } }\n')
    gen = os.path.join(bench.ROOT, "bench", "generate.py")
    stores = {}
    rows = []
    for label, extra in (("plain", []), ("hostile", ["--hostile", "1"])):
        prefix = os.path.join(work, label)
        subprocess.run([sys.executable, gen, str(N), prefix, "--ics", "--recurring", "0.1"] + extra, check=True,
                       stdout=subprocess.DEVNULL)
        store = os.path.join(work, label + ".sqlite3")
        ms, rss = run(["import", prefix + ".ics"], store, config)
        rows.append((f"`import planner.ics` ({label})", ms, rss, "≤ 3000 ms, ≤ 300 MB"))
        run(["tick"], store, config)  # settles what is due at NOW
        stores[label] = store
    samples = {(what, label): [] for what in ("next30", "tick", "add") for label in stores}
    for i in range(RUNS + 1):
        for label, store in stores.items():
            later = NOW + dt.timedelta(seconds=i + 1)
            results = {
                "next30": run(["list", "--period", "next30"], store, config),
                "tick": run(["tick"], store, config, now=later),
                "add": run(["add", f"Bench {i}", "--at", "2026-12-02 10:00"], store, config),
            }
            if i > 0:  # the first round warms the page cache
                for what, (ms, _) in results.items():
                    samples[(what, label)].append(ms)
    budgets = {"next30": "≤ 50 ms", "tick": "≤ 40 ms", "add": ""}
    names = {"next30": "`list --period next30`", "tick": "`tick`, nothing due", "add": "`add`"}
    print(f"| what | planner | median ms | budget |\n|---|---|---:|---|")
    for name, ms, rss, budget in rows:
        print(f"| {name} | {N:,} events | {ms:.0f} ({rss:.0f} MB) | {budget} |")
    for what in ("next30", "tick", "add"):
        for label in stores:
            print(f"| {names[what]} | {label} | {statistics.median(samples[(what, label)]):.1f} | {budgets[what]} |")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
