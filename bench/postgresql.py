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

    bench/postgresql.py [N]   (default 100000)
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

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
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


def as_server(args):
    prefix = ["runuser", "-u", "postgres", "--"] if os.getuid() == 0 else []
    subprocess.run(prefix + args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def timed(store, args, env):
    def once():
        started = time.perf_counter()
        subprocess.run([BINARY, "--store", store] + NOW + args, check=True, env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return (time.perf_counter() - started) * 1000
    once()
    return statistics.median(once() for _ in range(7))


def import_planner(store, prefix, work, env):
    """Imports the chunks bench/generate.py wrote as PREFIX-…; the milliseconds it took."""
    started = time.perf_counter()
    for part in sorted(p for p in os.listdir(work) if p.startswith(os.path.basename(prefix) + "-")):
        subprocess.run([BINARY, "--store", store] + NOW + ["import", os.path.join(work, part)], check=True, env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return (time.perf_counter() - started) * 1000


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
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
        for name, store in [("SQLite", sqlite), ("PostgreSQL", url)]:
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
            rows.append((name, "import (planner JSON)", import_ms))
            rows.append((name, "list --period next30", timed(store, ["list", "--period", "next30"], env)))
            rows.append((name, "tick (nothing due)", timed(store, ["--config", config, "tick"], env)))
        for label, size, options, commands in RECURRING:
            prefix = os.path.join(work, f"recurring{size}")
            subprocess.run([sys.executable, os.path.join(ROOT, "bench/generate.py"), str(size), prefix] + options, check=True)
            for name, store in [("SQLite", prefix + ".sqlite3"), ("PostgreSQL", url + f"?schema=recurring{size}")]:
                import_planner(store, prefix, work, env)
                if name == "PostgreSQL":
                    subprocess.run([PG + "/psql", "-X", "-q", "-h", "127.0.0.1", "-p", str(port), "-U", "postgres", "-d", "postgres",
                                    "-c", f"VACUUM (ANALYZE) recurring{size}.events, recurring{size}.tasks, recurring{size}.occurrences"],
                                   check=True, stdout=subprocess.DEVNULL)
                times = {command: timed(store, ["--config", config] + args, env) for command, args in commands}
                rows += [(name, f"{command} ({label})", ms) for command, ms in times.items()]
                if label == RATIO[2]:
                    rows.append((name, f"{RATIO[0]} ÷ {RATIO[1]} ({RATIO[2]}), ×", times[RATIO[0]] / times[RATIO[1]]))
        for name, source, target in [("SQLite → PostgreSQL", sqlite, url + "?schema=copied"),
                                     ("PostgreSQL → SQLite", url, os.path.join(work, "copied.sqlite3"))]:
            started = time.perf_counter()
            subprocess.run([BINARY] + NOW + ["store", "copy", source, target], check=True, env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            rows.append((name, "store copy", (time.perf_counter() - started) * 1000))
        load = os.getloadavg()[0]
        lines = [
            "# datebook on PostgreSQL: benchmark",
            "",
            f"Release build, {n:,} generated events (bench/generate.py), `--now 2026-12-01T09:00Z --tz Europe/Berlin`,",
            "median of 7 runs after one warm-up (import and store copy: one run), output to /dev/null; PostgreSQL 15 on 127.0.0.1 of the same machine",
            "(default settings; `VACUUM (ANALYZE)` after the import, as autovacuum would within a minute).",
            f"Load average {load:.1f} when done (2 cores, shared). Generated by bench/postgresql.py "
            f"({time.strftime('%Y-%m-%d %H:%M')}).",
            "",
            "| store | command | median ms | budget ms | verdict |",
            "|---|---|---:|---:|---|",
        ]
        for name, command, ms in rows:
            budget = BUDGETS.get((name, command))
            verdict = "" if budget is None else ("ok" if ms <= budget else "OVER")
            lines.append(f"| {name} | `{command}` | {ms:.{2 if ms < 10 else 1}f} | {budget or ''} | {verdict} |")
        text = "\n".join(lines) + "\n"
        path = os.path.join(ROOT, "bench/results-postgresql.md")
        earlier = open(path).read() if os.path.exists(path) else ""
        # The sections other scripts write below the table (bench/replicas.py) stay.
        kept = earlier[earlier.index("\n## "):] if "\n## " in earlier else ""
        with open(path, "w") as f:
            f.write(text + kept)
        print(text)
    finally:
        if os.path.exists(os.path.join(data, "postmaster.pid")):
            as_server([PG + "/pg_ctl", "-D", data, "-m", "immediate", "-w", "stop"])
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
