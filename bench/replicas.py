#!/usr/bin/env python3
"""Several `datebook run` replicas on one PostgreSQL database (issue 17 budgets).

1. 3 replicas on PostgreSQL deliver 10,000 alerts that are already due to a local nginx (204):
   deliveries per second, from starting the replicas until every ledger row is final (≥ 5,000/s);
   beside it the same workload with 1 replica on SQLite, and one `tick` on SQLite for the scale of
   the machine at that moment.
2. An idle replica on PostgreSQL: CPU over BENCH_IDLE_SECONDS (default 30) from /proc/PID/stat
   (≈ 0 %), RSS (≤ 30 MB).
3. With 3 idle replicas running, `datebook add` of an event whose alert is already due, from
   another process: nginx's $msec of the alert minus the moment `add` returned (≤ 1 s).

Release build; PostgreSQL 15 (Debian `postgresql`) and nginx-light (scripts/setup.sh --bench) on
127.0.0.1 from a temporary directory, removed at the end. Writes the "Replicas" section of
bench/results-postgresql.md. With BENCH_BASELINE=PATH (another build's release binary, e.g. the
main branch's), the throughput rows are measured for that binary too, in the same run, so a change
is judged against the same machine load.

    bench/replicas.py
    BENCH_BASELINE=/path/to/main/.build/release/datebook bench/replicas.py
"""
import datetime as dt
import json
import os
import pwd
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from scheduler import Nginx, free_port, idle_usage, write_config  # noqa: E402
import bench

ROOT = bench.ROOT
BINARY = os.path.join(ROOT, ".build/release/datebook")
BUILD = BINARY
BASELINE = os.environ.get("BENCH_BASELINE")
PG = "/usr/lib/postgresql/15/bin"
COUNT = int(os.environ.get("BENCH_ALERTS", "10000"))
IDLE = int(os.environ.get("BENCH_IDLE_SECONDS", "30"))
LATENCY_SAMPLES = int(os.environ.get("BENCH_LATENCY_SAMPLES", "3"))
FINAL = ("sent", "sent-late", "skipped", "cancelled", "failed")
MARKER = "## Replicas (bench/replicas.py)"


def iso(t):
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


class Postgres:
    """A throwaway server: initdb in `work`, pg_ctl on a free loopback port (as `postgres` when root)."""

    def __init__(self, work):
        self.work = work
        self.data = os.path.join(work, "data")
        self.port = free_port()
        if os.getuid() == 0:
            user = pwd.getpwnam("postgres")
            os.chown(work, user.pw_uid, user.pw_gid)
        self.server([PG + "/initdb", "-D", self.data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8", "--locale=C"])
        self.server([PG + "/pg_ctl", "-D", self.data, "-l", os.path.join(work, "server.log"), "-w", "start",
                     "-o", f"-c listen_addresses=127.0.0.1 -p {self.port} -k {work}"])

    @staticmethod
    def server(args, check=True):
        prefix = ["runuser", "-u", "postgres", "--"] if os.getuid() == 0 else []
        subprocess.run(prefix + args, check=check, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def create(self, name):
        self.sql(f"CREATE DATABASE {name}", "postgres")
        return f"postgresql://postgres@127.0.0.1:{self.port}/{name}"

    def sql(self, text, database):
        return subprocess.run([PG + "/psql", "-X", "-q", "-A", "-t", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres",
                               "-d", database, "-c", text], check=True, capture_output=True, text=True).stdout.strip()

    def session(self, database):
        """One long-lived psql on `database` (polling by spawning psql every 20 ms took 7 % of the
        machine from the replicas measured)."""
        return PsqlSession([PG + "/psql", "-X", "-q", "-A", "-t", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres",
                            "-d", database])

    def stop(self):
        if os.path.exists(os.path.join(self.data, "postmaster.pid")):
            self.server([PG + "/pg_ctl", "-D", self.data, "-m", "immediate", "-w", "stop"], check=False)


class PsqlSession:
    """psql reading queries from a pipe, each answer read back up to an `\\echo` marker."""

    MARK = "-- end of answer --"

    def __init__(self, command):
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     text=True, bufsize=1)

    def lines(self, query):
        self.proc.stdin.write(f"{query};\n\\echo '{self.MARK}'\n")
        self.proc.stdin.flush()
        answer = []
        for line in self.proc.stdout:
            if line.rstrip("\n") == self.MARK:
                return answer
            answer.append(line.rstrip("\n"))
        raise RuntimeError("psql ended")

    def counter(self, query):
        """A function returning the two counts of `query`'s one row ((0, 0) while it fails)."""
        def count():
            answer = [line for line in self.lines(query) if "|" in line]
            if not answer:
                return 0, 0
            final, total = answer[0].split("|")
            return int(final), int(total)
        count.close = self.close
        return count

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def environment(work, store, config):
    return {"HOME": work, "PATH": "/usr/bin:/bin", "DATEBOOK_STORE": store, "DATEBOOK_CONFIG": config,
            "DATEBOOK_TZ": "Europe/Berlin", "NO_COLOR": "1", "SWIFT_BACKTRACE": "enable=no"}


def ledger_counter(store, pg):
    """A function returning (final rows, all rows) of the ledger, read without going through datebook
    (PostgreSQL: through one psql kept open), and `.close()` when done."""
    if store.startswith("postgresql:"):
        return pg.session(store.rsplit("/", 1)[1]).counter(
            "SELECT count(*) FILTER (WHERE state IN ('sent','sent-late','skipped','cancelled','failed')), "
            "count(*) FROM datebook.deliveries")

    def count_sqlite():
        try:
            with sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=5) as db:
                marks = ",".join("?" * len(FINAL))
                return db.execute(f"SELECT count(*) FILTER (WHERE state IN ({marks})), count(*) FROM deliveries", FINAL).fetchone()
        except sqlite3.OperationalError:
            return 0, 0  # no ledger table yet
    count_sqlite.close = lambda: None
    return count_sqlite


def start_replicas(n, env, work, name):
    return [subprocess.Popen([BINARY, "run"], env=env, stdout=subprocess.DEVNULL,
                             stderr=open(os.path.join(work, f"{name}-{i}.log"), "w")) for i in range(n)]


def stop(procs):
    for proc in procs:
        proc.terminate()
    for proc in procs:
        proc.wait()


def due_planner(work, nginx, store, name):
    """Imports COUNT events whose alerts fell due 30 s ago into `store`; the environment for it."""
    due = dt.datetime.now(dt.timezone.utc).replace(microsecond=0) - dt.timedelta(seconds=30)
    events = [{"id": f"{name[:2]}{i:014x}", "title": f"Due {i}", "start": iso(due + dt.timedelta(hours=1)), "allDay": False,
               "end": None, "timeZone": "UTC", "symbol": "star.fill", "color": "primary", "notes": "",
               "alerts": ["1h"], "recurrence": None, "tasks": []} for i in range(COUNT)]
    planner = os.path.join(work, f"{name}.json")
    with open(planner, "w") as out:
        json.dump({"datebook": 1, "events": events}, out)
    config = write_config(work, nginx.port)
    env = environment(work, store, config)
    subprocess.run([BINARY, "import", planner], env=env, stdout=subprocess.DEVNULL, check=True)
    return env


def tick_rate(work, nginx, store):
    """Deliveries per second of one `tick` sending all COUNT due alerts (the scale of the machine right now)."""
    env = due_planner(work, nginx, store, "tick")
    started = time.perf_counter()
    subprocess.run([BINARY, "tick"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return COUNT / (time.perf_counter() - started)


def throughput(work, nginx, store, pg, replicas, name):
    """Seconds from starting `replicas` runs until all COUNT alerts (due 30 s ago) are final."""
    env = due_planner(work, nginx, store, name)
    count = ledger_counter(store, pg)
    before = len(nginx.requests())
    started = time.perf_counter()
    procs = start_replicas(replicas, env, work, name)
    final = total = 0
    planned = None
    while time.perf_counter() - started < 120:
        final, total = count()
        if planned is None and total >= COUNT:
            planned = time.perf_counter() - started
        if total >= COUNT and final == total:
            break
        time.sleep(0.02)
    elapsed = time.perf_counter() - started
    count.close()
    print(f"  {name}: every row planned after {planned or float('nan'):.2f} s, final after {elapsed:.2f} s", flush=True)
    stop(procs)
    time.sleep(0.3)  # nginx's log buffer (flush=100ms)
    keys = [k for _, k in nginx.requests()[before:]]
    return COUNT / elapsed, elapsed, final, len(keys) - len(set(keys))


def swift_linked_in(binary):
    """Whether the Swift runtime and Foundation are linked into `binary`, as `make build` links them: a
    `swift build -c release` binary loads them as shared libraries, which an idle replica's RSS counts
    too (35.6 MB against 24.0 MB for the same source, load 14)."""
    return "libswiftCore.so" not in subprocess.run(["ldd", binary], capture_output=True, text=True).stdout


def idle(work, store):
    """CPU % over IDLE seconds and the RSS (MB) of one `run` with nothing due."""
    config = os.path.join(work, "idle.json5")
    with open(config, "w") as out:
        out.write('{ timeZone: "Europe/Berlin" }\n')
    proc = subprocess.Popen([BINARY, "run"], env=environment(work, store, config), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    usage = idle_usage(proc.pid, IDLE)
    stop([proc])
    return usage


def latency(work, nginx, store):
    """Seconds from `add` returning to nginx receiving the new event's alert (already due), 3 idle replicas running."""
    config = write_config(work, nginx.port)
    env = environment(work, store, config)
    procs = start_replicas(3, env, work, "latency")
    time.sleep(3)  # started, first pass done, asleep
    samples = []
    try:
        for i in range(LATENCY_SAMPLES):
            # Due this second: a due time before the replicas' last pass would be outside every later
            # pass's window ((last pass, now]) and never planned.
            start = dt.datetime.now(dt.timezone.utc).replace(microsecond=0) + dt.timedelta(hours=1)
            title = f"Latency {i} {time.time():.0f}"
            subprocess.run([BINARY, "add", title, "--at", iso(start), "--alert", "1h"], env=env, stdout=subprocess.DEVNULL, check=True)
            added = time.time()
            sent = None
            while sent is None and time.time() - added < 70:
                time.sleep(0.05)
                sent = next((t for t, k in nginx.requests() if k.endswith(f":{iso(start)}:1h:hook") and t >= added - 1), None)
            samples.append(sent - added if sent is not None else float("inf"))
            print(f"  alert of an event added while idle: {samples[-1]:.3f} s", flush=True)
            time.sleep(2)
    finally:
        stop(procs)
    return samples


def main():
    global BINARY
    if not os.path.exists(BINARY):
        sys.exit("no release build: make build")
    work = tempfile.mkdtemp(prefix="datebook-replicas-")
    pg = None
    nginx = None
    try:
        pg = Postgres(work)
        nginx = Nginx(work)
        rows = []
        for build, binary in [("this build", BUILD)] + ([("baseline", BASELINE)] if BASELINE else []):
            BINARY = binary
            tag = "" if build == "this build" else "_baseline"
            for label, replicas, store in [("PostgreSQL", 3, pg.create("throughput" + tag)),
                                           ("SQLite", 1, os.path.join(work, f"throughput{tag}.sqlite3"))]:
                rate, elapsed, final, dupes = throughput(work, nginx, store, pg, replicas, label.lower() + tag)
                print(f"{build}: {label}, {replicas} replica(s): {COUNT:,} alerts final in {elapsed:.2f} s, {rate:,.0f}/s, "
                      f"{final} final, {dupes} sent twice", flush=True)
                rows.append((build, label, f"{replicas} × `run`: {COUNT:,} due alerts until every ledger row is final "
                             f"({elapsed:.2f} s, {dupes} sent twice)", rate))
            scale = tick_rate(work, nginx, os.path.join(work, f"tick{tag}.sqlite3"))
            print(f"{build}: SQLite, 1 × tick: {scale:,.0f}/s", flush=True)
            rows.append((build, "SQLite", f"1 × `tick` on the same workload", scale))
        BINARY = BUILD
        idle_store = pg.create("idle")
        subprocess.run([BINARY, "add", "Tomorrow", "--at", "tomorrow 9:00"],
                       env=environment(work, idle_store, write_config(work, nginx.port)), stdout=subprocess.DEVNULL, check=True)
        cpu, rss = idle(work, idle_store)
        linked = swift_linked_in(BINARY)
        if not linked:
            print("warning: this binary loads the Swift libraries as shared objects (not `make build`): the RSS counts them", flush=True)
        print(f"idle replica on PostgreSQL: CPU {cpu:.3f} % over {IDLE} s, RSS {rss:.1f} MB", flush=True)
        late = latency(work, nginx, pg.create("latency"))
    finally:
        if nginx:
            nginx.stop()
        if pg:
            pg.stop()
        shutil.rmtree(work, ignore_errors=True)
    ok = lambda b: "ok" if b else "OVER"  # noqa: E731
    lines = [
        MARKER, "",
        f"Release build; {COUNT:,} alerts already due, to nginx (204) on 127.0.0.1; PostgreSQL 15 with default settings on the",
        f"same machine. Load average {os.getloadavg()[0]:.1f} when done (2 cores, shared). {time.strftime('%Y-%m-%d %H:%M')}.",
        "",
        "| store | measure | result | budget | verdict |",
        "|---|---|---:|---:|---|",
    ]
    for build, label, measure, rate in rows:
        budgeted = label == "PostgreSQL" and build == "this build"
        name = label if build == "this build" else f"{label}, baseline (`{BASELINE}`)"
        lines.append(f"| {name} | {measure} | {rate:,.0f}/s | {'5,000/s' if budgeted else ''} | {ok(rate >= 5000) if budgeted else ''} |")
    lines += [
        f"| PostgreSQL | idle `run`: CPU over {IDLE} s | {cpu:.3f} % | ≈ 0 | {ok(cpu < 0.5)} |",
        f"| PostgreSQL | idle `run`: RSS{'' if linked else ' (Swift libraries shared, not `make build`)'} | {rss:.1f} MB | 30 MB | {ok(rss <= 30)} |",
        f"| PostgreSQL | alert already due of an event added by another process, 3 idle replicas "
        f"(max of {len(late)}; median {statistics.median(late):.3f} s) | {max(late):.3f} s | 1 s | {ok(max(late) <= 1)} |",
    ]
    bench.write_section(MARKER, lines, path=os.path.join(ROOT, "bench", "results-postgresql.md"))
    print("\n".join(lines))


if __name__ == "__main__":
    if not bench.help_requested(__doc__):
        main()
