#!/usr/bin/env python3
"""Peak memory and time of large iCalendar imports (issue 33); writes the "Import memory" section
of bench/results.md.

`import FILE.ics` into a fresh SQLite store of generate.py --ics files (N VEVENTs, about 3N VTODOs
with RELATED-TO) at BENCH_IMPORT_SIZES (default 100000,300000,1000000), measured with
`/usr/bin/time -f %M` (peak RSS), wall and CPU time, and the load average before and after each run.
Goals: ≤ 150 MB at 100k, ≤ 250 MB at 300k, ≤ 500 MB and ≤ 15 s at 1M (the 15 s on a quiet machine:
on this shared host the wall time follows the load, so CPU time is given beside it).

BENCH_IMPORT_RUNS (default 3) imports each file that many times per build; the table gives the median
wall and CPU time, the range of wall times and the highest peak. BENCH_IMPORT_BASELINE=PATH names
another datebook build (the one before a change, say): each size is then imported by it and by this
build in turn, run after run, so both see the same spells of the shared host.

BENCH_IMPORT_POSTGRESQL (default 100000; empty for none) lists the sizes also imported into a
throwaway PostgreSQL 15 on 127.0.0.1 (the batched COPY path), right after the same file into SQLite;
the server's own CPU is not in the CPU column.
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402
import postgresql  # noqa: E402

GENERATE = os.path.join(bench.ROOT, "bench", "generate.py")
SIZES = [int(x) for x in os.environ.get("BENCH_IMPORT_SIZES", "100000,300000,1000000").split(",") if x]
BASELINE = os.environ.get("BENCH_IMPORT_BASELINE", "")
RUNS = max(1, int(os.environ.get("BENCH_IMPORT_RUNS", "3")))
GOALS = {100_000: 150, 300_000: 250, 1_000_000: 500}
POSTGRESQL_SIZES = [int(x) for x in os.environ.get("BENCH_IMPORT_POSTGRESQL", "100000").split(",") if x]
HEADING = "## Import memory (issue 33)"


def load():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def measure(binary, ics, directory, url=None):
    """One import into a fresh store (SQLite, or the PostgreSQL schema `url` names):
    (wall s, peak MB, CPU s, load before, load after)."""
    store = url or os.path.join(directory, "import.sqlite3")
    report = os.path.join(directory, "time.txt")
    env = dict(os.environ, DATEBOOK_STORE=store, NO_COLOR="1")
    before = load()
    subprocess.run(["/usr/bin/time", "-o", report, "-f", "%e %M %U %S", binary, "import", ics], env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall, peak_kb, user, system = open(report).read().split()[-4:]
    for suffix in ("", "-wal", "-shm", "-journal"):
        if not url and os.path.exists(store + suffix):
            os.remove(store + suffix)
    return float(wall), int(peak_kb) / 1024, float(user) + float(system), before, load()


def start_postgresql(directory):
    """A throwaway PostgreSQL 15 in `directory`; its URL (each import takes a schema of its own)."""
    if os.getuid() == 0:
        user = postgresql.pwd.getpwnam("postgres")
        os.chown(directory, user.pw_uid, user.pw_gid)
    data, port = os.path.join(directory, "pgdata"), postgresql.free_port()
    postgresql.as_server([postgresql.PG + "/initdb", "-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8",
                          "--locale=C"])
    postgresql.as_server([postgresql.PG + "/pg_ctl", "-D", data, "-l", os.path.join(directory, "server.log"), "-w", "start",
                          "-o", f"-c listen_addresses=127.0.0.1 -p {port} -k {directory}"])
    return data, f"postgresql://postgres@127.0.0.1:{port}/postgres"


def main():
    if not os.path.exists(bench.BIN):
        sys.exit("bench/import.py: build the release binary first (make build)")
    os.makedirs(bench.DATA, exist_ok=True)
    builds = [("datebook", bench.BIN)] + ([("baseline", BASELINE)] if BASELINE else [])
    rows = []
    directory = tempfile.mkdtemp(prefix="datebook-import-bench-")
    server = None
    try:
        for n in SIZES:
            ics = os.path.join(bench.DATA, f"planner-{n}.ics")
            if not os.path.exists(ics):
                subprocess.run([sys.executable, GENERATE, str(n), ics[:-4], "--ics"], check=True, stdout=subprocess.DEVNULL)
            size = os.path.getsize(ics) / 1e6
            runs = {label: [] for label, _ in builds}
            for _ in range(RUNS):
                for label, binary in builds:
                    wall, peak, cpu, before, after = measure(binary, ics, directory)
                    print(f"import {n:,} ({size:.0f} MB), {label}: {wall:.1f} s, {cpu:.1f} s CPU, peak {peak:.0f} MB, "
                          f"load {before:.1f} → {after:.1f}")
                    runs[label].append((wall, peak, cpu, before, after))
            for label, _ in builds:
                walls = [run[0] for run in runs[label]]
                rows.append((n, size, label, walls, statistics.median(run[2] for run in runs[label]),
                             max(run[1] for run in runs[label]), runs[label][0][3], runs[label][-1][4]))
            if n in POSTGRESQL_SIZES:
                if server is None:
                    server = start_postgresql(directory)
                url = f"{server[1]}?schema=import{n}"
                wall, peak, cpu, before, after = measure(bench.BIN, ics, directory, url=url)
                print(f"import {n:,} ({size:.0f} MB), datebook into PostgreSQL: {wall:.1f} s, {cpu:.1f} s CPU, "
                      f"peak {peak:.0f} MB, load {before:.1f} → {after:.1f}")
                rows.append((n, size, "datebook, PostgreSQL", [wall], cpu, peak, before, after))
    finally:
        if server is not None:
            postgresql.as_server([postgresql.PG + "/pg_ctl", "-D", server[0], "-m", "immediate", "-w", "stop"])
        shutil.rmtree(directory, ignore_errors=True)
    lines = [HEADING, "",
             f"`import FILE.ics` into a fresh store, {RUNS} run{'s' if RUNS > 1 else ''} each (`bench/import.py`, "
             f"{time.strftime('%Y-%m-%d %H:%M')}; PostgreSQL once): the median wall time (the range in brackets) and CPU "
             "time, and the highest peak RSS by `/usr/bin/time -f %M`. Machine: 2 cores shared with other work; the load "
             "average is given before the first run → after the last, and wall time follows it"
             + (f"; the two builds ran in turn, run after run, baseline `{BASELINE}`" if BASELINE else "") + ".",
             "", "| file | build | wall s | CPU s | peak MB | load | goal | verdict |", "|---|---|---:|---:|---:|---|---|---|"]
    for n, size, label, walls, cpu, peak, before, after in rows:
        wall = statistics.median(walls)
        shown = f"{wall:.1f}" + (f" ({min(walls):.1f}–{max(walls):.1f})" if len(walls) > 1 else "")
        goal = GOALS.get(n)
        ok = goal is None or (peak <= goal and (n < 1_000_000 or wall <= 15))
        budget = (f"≤ {goal} MB" + (", ≤ 15 s" if n >= 1_000_000 else "")) if goal else ""
        verdict = ("ok" if ok else "OVER") if goal and label.startswith("datebook") else ""
        lines.append(f"| {n:,} VEVENT + ~{3 * n:,} VTODO ({size:,.0f} MB) | {label} | {shown} | {cpu:.1f} | {peak:,.0f} "
                     f"| {before:.1f} → {after:.1f} | {budget} | {verdict} |")
    bench.write_section(HEADING, lines)


if __name__ == "__main__":
    if not bench.help_requested(__doc__):
        main()
