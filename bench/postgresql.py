#!/usr/bin/env python3
"""Planner JSON import, `list --period next30`, an idle `tick` and `store copy` on 100k events,
on SQLite and on PostgreSQL; then the recurring planners of issues 30 and 33 on both (`preview
--days 30` and `digest` on 20k events, 10 % weekly; `list --period next30` and `digest --format
html` on 100k, 10 % weekly, half the past overdue, and their ratio).

Starts a throwaway PostgreSQL 15 (Debian `postgresql`) on 127.0.0.1 in a temporary directory (as
the `postgres` user when run as root), imports the generated planner into a SQLite file and into
PostgreSQL with the release build (timed once each), times `list` and `tick` (median of 7 after one
warm-up, output to /dev/null), then `store copy` of the SQLite store into an empty PostgreSQL
schema and of the PostgreSQL store into a new SQLite file (once each), and writes
bench/results-postgresql.md. Stops the server and removes everything at the end.

The recurring planners' commands are timed alternately (each round runs every command on both
backends once), so a change of load during the run falls on all of them alike; each row gives the
median wall time and the median CPU time of the datebook process (user + system; a PostgreSQL
server's own work is not in it), which a loaded host moves much less.

    bench/postgresql.py [N] [--recurring-only]   (default 100000; --recurring-only: the
                                                  recurring planners alone, the rows above them kept)
"""
import os
import pwd
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import bench

ROOT = bench.ROOT
BINARY = os.path.join(ROOT, ".build/release/datebook")
PG = "/usr/lib/postgresql/15/bin"
NOW = ["--now", "2026-12-01T09:00Z", "--tz", "Europe/Berlin"]
BUDGETS = {("PostgreSQL", "list --period next30"): 60, ("PostgreSQL", "tick (nothing due)"): 60,
           ("SQLite → PostgreSQL", "store copy"): 10_000}
# Issue 30 and 33: the recurring planners, on both backends (label, size, generate.py options, commands).
RECURRING = [
    ("20k, 10 % weekly", 20_000, ["--recurring", "0.1"],
     [("preview --days 30", ["preview", "--days", "30"]), ("digest", ["digest"])]),
    ("100k, 10 % weekly, 50 % overdue", 100_000, ["--recurring", "0.1", "--overdue", "0.5"],
     [("list --period next30", ["list", "--period", "next30"]), ("digest --format html", ["digest", "--format", "html"])]),
]
RATIO = ("digest --format html", "list --period next30", "100k, 10 % weekly, 50 % overdue")
for backend in ("SQLite", "PostgreSQL"):
    BUDGETS.update({(backend, "preview --days 30 (20k, 10 % weekly)"): 1_000, (backend, "digest (20k, 10 % weekly)"): 100,
                    (backend, "list --period next30 (100k, 10 % weekly, 50 % overdue)"): 60,
                    (backend, f"{RATIO[0]} ÷ {RATIO[1]} ({RATIO[2]}), ×"): 2.5})


def linkage():
    """How the binary links the Swift runtime: `make build` links it in (`--static-swift-stdlib`); a
    plain `swift build -c release` loads it and Foundation's libraries at every start, which cost
    `list --period next30` about 12 ms of CPU more at a load of 26 (docs/performance.md, "Process start")."""
    libraries = subprocess.run(["ldd", BINARY], capture_output=True, text=True).stdout
    return "Swift runtime loaded at start: not `make build`'s binary" if "libswiftCore" in libraries else "Swift runtime linked in, as `make build` builds it"


def as_server(args):
    prefix = ["runuser", "-u", "postgres", "--"] if os.getuid() == 0 else []
    subprocess.run(prefix + args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_once(store, args, env):
    """Wall and CPU milliseconds of one run."""
    started = time.perf_counter()
    process = subprocess.Popen([BINARY, "--store", store] + NOW + args, env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    wall = (time.perf_counter() - started) * 1000
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise subprocess.CalledProcessError(process.returncode, args)
    return wall, (usage.ru_utime + usage.ru_stime) * 1000


def timed(store, args, env):
    run_once(store, args, env)
    return statistics.median(run_once(store, args, env)[0] for _ in range(7))


def timed_alternately(runs, env, rounds=7):
    """runs: {name: (store, args)}; one warm-up each, then `rounds` rounds running each once.
    {name: (median wall ms, median CPU ms)}."""
    for store, args in runs.values():
        run_once(store, args, env)
    samples = {name: [] for name in runs}
    for _ in range(rounds):
        for name, (store, args) in runs.items():
            samples[name].append(run_once(store, args, env))
    return {name: (statistics.median(w for w, _ in got), statistics.median(c for _, c in got)) for name, got in samples.items()}


def import_planner(store, prefix, work, env):
    """Imports the chunks bench/generate.py wrote as PREFIX-…; the milliseconds it took."""
    started = time.perf_counter()
    for part in sorted(p for p in os.listdir(work) if p.startswith(os.path.basename(prefix) + "-")):
        subprocess.run([BINARY, "--store", store] + NOW + ["import", os.path.join(work, part)], check=True, env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return (time.perf_counter() - started) * 1000


def main():
    recurring_only = "--recurring-only" in sys.argv
    if "not `make build`" in linkage():
        print("bench/postgresql.py: .build/release/datebook loads the Swift runtime at start; "
              "`make build` (--static-swift-stdlib) is the binary the budgets are for", file=sys.stderr)
    numbers = [a for a in sys.argv[1:] if not a.startswith("--")]
    n = int(numbers[0]) if numbers else 100_000
    work = tempfile.mkdtemp(prefix="datebook-pgbench-")
    data = os.path.join(work, "data")
    port = free_port()
    if os.getuid() == 0:
        user = pwd.getpwnam("postgres")
        os.chown(work, user.pw_uid, user.pw_gid)
    try:
        subprocess.run([sys.executable, os.path.join(ROOT, "bench/generate.py"), str(n), os.path.join(work, "planner")], check=True)
        as_server([PG + "/initdb", "-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8", "--locale=C"])
        as_server([PG + "/pg_ctl", "-D", data, "-l", os.path.join(work, "server.log"), "-w", "start",
                   "-o", f"-c listen_addresses=127.0.0.1 -p {port} -k {work}"])
        url = f"postgresql://postgres@127.0.0.1:{port}/postgres"
        sqlite = os.path.join(work, "store.sqlite3")
        env = {"HOME": work, "PATH": "/usr/bin:/bin"}
        config = os.path.join(work, "config.json5")
        with open(config, "w") as f:
            f.write('{ channels: { log: { type: "file", path: "' + os.path.join(work, "alerts.log") + '" } }, '
                    'alerts: { channels: ["log"] } }')
        rows = []
        for name, store in [] if recurring_only else [("SQLite", sqlite), ("PostgreSQL", url)]:
            import_ms = import_planner(store, os.path.join(work, "planner"), work, env)
            # The first tick plans everything of the lateness window; later ones have nothing due.
            subprocess.run([BINARY, "--store", store, "--config", config] + NOW + ["tick"], env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            if store == url:
                # What autovacuum does within a minute of a bulk load, done before timing so that it
                # does not run on the other core while `list` and `tick` are measured.
                subprocess.run([PG + "/psql", "-X", "-q", "-h", "127.0.0.1", "-p", str(port), "-U", "postgres",
                                "-d", "postgres", "-c", "VACUUM (ANALYZE) datebook.events, datebook.tasks, datebook.deliveries"],
                               check=True, stdout=subprocess.DEVNULL)
            rows.append((name, "import (planner JSON)", import_ms, None))
            rows.append((name, "list --period next30", timed(store, ["list", "--period", "next30"], env), None))
            rows.append((name, "tick (nothing due)", timed(store, ["--config", config, "tick"], env), None))
        for label, size, options, commands in RECURRING:
            prefix = os.path.join(work, f"recurring{size}")
            subprocess.run([sys.executable, os.path.join(ROOT, "bench/generate.py"), str(size), prefix] + options, check=True)
            stores = [("SQLite", prefix + ".sqlite3"), ("PostgreSQL", url + f"?schema=recurring{size}")]
            for name, store in stores:
                import_planner(store, prefix, work, env)
                if name == "PostgreSQL":
                    subprocess.run([PG + "/psql", "-X", "-q", "-h", "127.0.0.1", "-p", str(port), "-U", "postgres", "-d", "postgres",
                                    "-c", f"VACUUM (ANALYZE) recurring{size}.events, recurring{size}.tasks, recurring{size}.occurrences"],
                                   check=True, stdout=subprocess.DEVNULL)
            times = timed_alternately({(name, command): (store, ["--config", config] + args)
                                       for name, store in stores for command, args in commands}, env)
            for name, _ in stores:
                rows += [(name, f"{command} ({label})", *times[(name, command)]) for command, _ in commands]
                if label == RATIO[2]:
                    (html, html_cpu), (listing, listing_cpu) = times[(name, RATIO[0])], times[(name, RATIO[1])]
                    rows.append((name, f"{RATIO[0]} ÷ {RATIO[1]} ({RATIO[2]}), ×", html / listing, html_cpu / listing_cpu))
        for name, source, target in [] if recurring_only else [("SQLite → PostgreSQL", sqlite, url + "?schema=copied"),
                                                               ("PostgreSQL → SQLite", url, os.path.join(work, "copied.sqlite3"))]:
            started = time.perf_counter()
            subprocess.run([BINARY] + NOW + ["store", "copy", source, target], check=True, env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            rows.append((name, "store copy", (time.perf_counter() - started) * 1000, None))
        load = os.getloadavg()[0]
        lines = [
            "# datebook on PostgreSQL: benchmark",
            "",
            f"Release build ({linkage()}), {n:,} generated events (bench/generate.py), `--now 2026-12-01T09:00Z --tz Europe/Berlin`,",
            "median of 7 runs after one warm-up (import and store copy: one run), output to /dev/null; PostgreSQL 15 on 127.0.0.1 of the same machine",
            "(default settings; `VACUUM (ANALYZE)` after the import, as autovacuum would within a minute).",
            f"Load average {load:.1f} when done (2 cores, shared). Generated by bench/postgresql.py "
            f"({time.strftime('%Y-%m-%d %H:%M')}).",
            "",
            "| store | command | median ms | CPU ms | budget ms | verdict |",
            "|---|---|---:|---:|---:|---|",
        ]
        path = os.path.join(ROOT, "bench/results-postgresql.md")
        earlier = open(path).read() if os.path.exists(path) else ""
        # A full run's rows kept by a `--recurring-only` run, with a CPU cell where they had none.
        def with_cpu_cell(line):
            cells = line.split("|")
            return line if len(cells) == 8 else "|".join(cells[:4] + ["  "] + cells[4:])
        table = earlier.split("\n## ")[0]
        kept_rows = [with_cpu_cell(line) for line in table.split("\n") if line.startswith("| ") and "10 % weekly" not in line
                     and not line.startswith("| store ")] if recurring_only else []
        if recurring_only:
            lines[5] += " The recurring planners alone (`--recurring-only`); the rows above them are from the last full run."
            lines += [line for line in kept_rows if "store copy" not in line]

        def figure(value):
            return "" if value is None else f"{value:.{2 if value < 10 else 1}f}"
        for name, command, ms, cpu in rows:
            budget = BUDGETS.get((name, command))
            verdict = "" if budget is None else ("ok" if ms <= budget else "OVER")
            lines.append(f"| {name} | `{command}` | {figure(ms)} | {figure(cpu)} | {budget or ''} | {verdict} |")
        lines += [line for line in kept_rows if "store copy" in line]
        # The sections other scripts write below the table (bench/replicas.py) stay.
        bench.write_section(None, lines, path=path)
        print("\n".join(lines))
    finally:
        if os.path.exists(os.path.join(data, "postmaster.pid")):
            as_server([PG + "/pg_ctl", "-D", data, "-m", "immediate", "-w", "stop"])
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    if not bench.help_requested(__doc__):
        main()
