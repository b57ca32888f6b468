#!/usr/bin/env python3
"""datebook beside the tools people would use instead (issue 33); writes bench/results-peers.md.

Each row is a pair measured in one run, the two commands alternated, medians:

1. Fan-out: `datebook tick` with 10,000 due webhook alerts → a local nginx answering 204 (ledger
   recorded), beside `curl --parallel --parallel-max 32` sending the same number of POSTs with the
   same body size to the same nginx (one `next` per request in a generated config). Wall and CPU
   (user + system, from wait4) of each; the goal is datebook's rate ≥ 0.5× curl's, at any load.
   The pair is measured at each load in BENCH_LOADS (default "0,5": that many `yes` loops beside it).
2. Agenda: `list --period next7` + `list --period next30` on a generated planner (10% weekly),
   beside `calcurse -r30` on the same events (generate.py --calcurse), at BENCH_AGENDA_SIZES
   (default 100000,1000000). Goals: ≥ 50× calcurse at 100k, ≥ 100× at 1M.
3. Import peaks: `/usr/bin/time -f %M` of `import FILE.ics` into a fresh store (generate.py --ics:
   N VEVENTs and about 3N VTODOs), at BENCH_IMPORT_SIZES (default 100000,300000,1000000). Goals:
   ≤ 150 MB at 100k, ≤ 250 MB at 300k, ≤ 500 MB and ≤ 15 s at 1M.
4. `digest --format html` beside `list --period next30` on a 100k planner (10% weekly, half of it
   overdue): CPU, goal ≤ 2.5×.

BENCH_PARTS (default "fanout,agenda,import,digest") picks the parts that run; the table's rows of the
other parts are kept from the last run, each with the date and load it was measured at.

Needs the release build, nginx-light and calcurse (`make bench-peers` installs them). Figures are
only worth comparing on a quiet machine: the load average of each part is written beside its rows.
"""
import datetime as dt
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402
import scheduler  # noqa: E402  (its nginx sink)

ROOT = bench.ROOT
BIN = bench.BIN
GENERATE = os.path.join(ROOT, "bench", "generate.py")
RUNS = int(os.environ.get("BENCH_RUNS", "5"))
LOADS = [int(x) for x in os.environ.get("BENCH_LOADS", "0,5").split(",") if x]
PARTS = [x for x in os.environ.get("BENCH_PARTS", "fanout,agenda,import,digest").split(",") if x]
# How each part's rows start in the table (to keep the rows of the parts not run).
ROW_STARTS = {"fanout": "| `tick`", "agenda": "| 30-day agenda", "import": "| `import`", "digest": "| `digest"}
AGENDA_SIZES = [int(x) for x in os.environ.get("BENCH_AGENDA_SIZES", "100000,1000000").split(",") if x]
IMPORT_SIZES = [int(x) for x in os.environ.get("BENCH_IMPORT_SIZES", "100000,300000,1000000").split(",") if x]
ALERTS = int(os.environ.get("BENCH_ALERTS", "10000"))
# A second datebook binary for the fan-out part (say, the main branch's), alternated with BIN; printed only.
BASELINE = os.environ.get("BENCH_BASELINE")
# How long the peer may take on one agenda run (calcurse at 1M events can take many minutes).
PEER_LIMIT = int(os.environ.get("BENCH_PEER_LIMIT", "600"))
NOW = scheduler.NOW
ZONE = "Europe/Berlin"
AGENDA_GOALS = {100_000: 50, 1_000_000: 100}
IMPORT_GOALS = {100_000: 150, 300_000: 250, 1_000_000: 500}


def rusage_run(argv, env=None, ok=(0,)):
    """Runs argv with output to /dev/null; returns (wall s, CPU s, peak RSS MB) from wait4."""
    # stderr to a file: `tick` logs a line per alert, more than a pipe holds while nobody reads it.
    with open(os.devnull, "wb") as null, tempfile.TemporaryFile() as log:
        started = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=null, stderr=log, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
        code = os.waitstatus_to_exitcode(status)
        if code not in ok:
            log.seek(0)
            sys.exit(f"{' '.join(argv[:4])} … exited {code}: {log.read().decode(errors='replace')[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


class Load:
    """`count` busy loops (`yes > /dev/null`) for the length of a with-block."""

    def __init__(self, count):
        self.count = count
        self.procs = []

    def __enter__(self):
        self.procs = [subprocess.Popen(["yes"], stdout=subprocess.DEVNULL) for _ in range(self.count)]
        return self

    def __exit__(self, *exc):
        for proc in self.procs:
            proc.kill()
            proc.wait()


# 1. Fan-out ----------------------------------------------------------------------------------

class BodySizeNginx(scheduler.Nginx):
    """The scheduler benchmark's nginx (204 for everything), logging each request's body size."""

    def __init__(self, directory):
        super().__init__(directory, log_format="$msec $content_length")

    def body_sizes(self):
        sizes = []
        if os.path.exists(self.log):
            with open(self.log) as f:
                for line in f:
                    parts = line.split()
                    if len(parts) == 2 and parts[1].isdigit():
                        sizes.append(int(parts[1]))
        return sizes


def fanout_store(directory, port):
    """A store with ALERTS alerts due at NOW, imported once; each run gets a copy."""
    events = [{"id": f"{i:016x}", "title": f"Due {i}", "start": scheduler.iso(NOW + dt.timedelta(hours=1)),
               "allDay": False, "end": None, "timeZone": "UTC", "symbol": "star.fill", "color": "primary",
               "notes": "", "alerts": ["1h"], "recurrence": None, "tasks": []} for i in range(ALERTS)]
    planner = os.path.join(directory, "due.json")
    with open(planner, "w") as out:
        json.dump({"datebook": 1, "events": events}, out)
    store = os.path.join(directory, "due.sqlite3")
    config = scheduler.write_config(directory, port)
    subprocess.run([BIN, "import", planner], env=scheduler.env(store, config), stdout=subprocess.DEVNULL, check=True)
    return store, config


def curl_config(directory, port, body_size):
    body = os.path.join(directory, "body.json")
    with open(body, "w") as out:
        text = '{"text":"' + "x" * max(0, body_size - 11) + '"}'
        out.write(text[:max(body_size, 11)])
    path = os.path.join(directory, "curl.cfg")
    with open(path, "w") as out:
        request = (f'url = "http://127.0.0.1:{port}/hook"\ndata-binary = "@{body}"\n'
                   'header = "Content-Type: application/json"\noutput = "/dev/null"\n')
        out.write("next\n".join([request] * ALERTS))
    return path


def fanout(directory):
    nginx = BodySizeNginx(directory)
    rows = []
    try:
        store, config = fanout_store(directory, nginx.port)
        # One datebook tick first, to learn the body size datebook sends (and to warm the caches).
        trial = os.path.join(directory, "trial.sqlite3")
        shutil.copy(store, trial)
        rusage_run([BIN, "--now", scheduler.iso(NOW), "tick"], scheduler.env(trial, config), ok=(0, 75))
        time.sleep(0.3)  # nginx's log buffer flushes every 100 ms
        sizes = nginx.body_sizes()
        body_size = int(statistics.median(sizes)) if sizes else 300
        cfg = curl_config(directory, nginx.port, body_size)
        for load in LOADS:
            ours, theirs, before = [], [], []
            with Load(load):
                for run in range(RUNS):
                    # BENCH_BASELINE (another build's binary) goes first in each turn, for before/after figures.
                    for binary, figures in ([(BASELINE, before)] if BASELINE else []) + [(BIN, ours)]:
                        copy = os.path.join(directory, f"run-{load}-{run}.sqlite3")
                        shutil.copy(store, copy)
                        figures.append(rusage_run([binary, "--now", scheduler.iso(NOW), "tick"], scheduler.env(copy, config),
                                                  ok=(0, 75)))
                        os.remove(copy)
                    theirs.append(rusage_run(["curl", "--silent", "--parallel", "--parallel-max", "32", "-K", cfg]))
            if before:
                wall_b = statistics.median(s[0] for s in before)
                cpu_b = statistics.median(s[1] for s in before)
                print(f"fan-out at load {load}: BENCH_BASELINE {wall_b:.2f} s wall {cpu_b:.2f} s CPU "
                      f"({cpu_b / ALERTS * 1e6:.0f} µs/alert); ratio {statistics.median(s[0] for s in theirs) / wall_b:.2f}")
            wall_d = statistics.median(s[0] for s in ours)
            cpu_d = statistics.median(s[1] for s in ours)
            wall_c = statistics.median(s[0] for s in theirs)
            cpu_c = statistics.median(s[1] for s in theirs)
            rows.append((load, body_size, wall_d, cpu_d, wall_c, cpu_c))
            print(f"fan-out at load {load}: datebook {wall_d:.2f} s wall {cpu_d:.2f} s CPU ({cpu_d / ALERTS * 1e6:.0f} µs/alert); "
                  f"curl {wall_c:.2f} s wall {cpu_c:.2f} s CPU; ratio {wall_c / wall_d:.2f}")
    finally:
        nginx.stop()
    return rows


# 2. Agenda -----------------------------------------------------------------------------------

def limited_run(argv, env, limit):
    """Wall seconds of argv (output to /dev/null), or None when it ran past `limit` seconds (then killed)."""
    started = time.perf_counter()
    try:
        subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=limit, check=True)
    except subprocess.TimeoutExpired:
        return None
    return time.perf_counter() - started


def agenda(directory):
    rows = []
    for n in AGENDA_SIZES:
        store, _ = bench.prepare(n, "planner-weekly", ["--recurring", "0.1"])
        apts_prefix = os.path.join(bench.DATA, f"planner-weekly-{n}")
        if not os.path.exists(apts_prefix + ".apts"):
            subprocess.run([sys.executable, GENERATE, str(n), apts_prefix, "--recurring", "0.1", "--calcurse"],
                           check=True, stdout=subprocess.DEVNULL)
        calcurse_dir = os.path.join(directory, f"calcurse-{n}")
        os.makedirs(calcurse_dir, exist_ok=True)
        open(os.path.join(calcurse_dir, "todo"), "w").close()
        env = dict(os.environ, DATEBOOK_STORE=store, NO_COLOR="1", TZ=ZONE)
        ours_args = [[BIN, "--now", bench.NOW, "--tz", ZONE, "list", "--period", p] for p in ("next7", "next30")]
        theirs_args = ["calcurse", "-c", apts_prefix + ".apts", "-C", calcurse_dir,
                       "-s" + dt.datetime(2026, 12, 1).strftime("%m/%d/%Y"), "-r30"]
        for argv in ours_args:
            rusage_run(argv, env)  # warm the page cache (calcurse's file was just written or read)
        # calcurse takes minutes at 1M: one run there.
        runs = RUNS if n <= 100_000 else 1
        ours, theirs = [], []
        for _ in range(runs):
            ours.append(sum(rusage_run(argv, env)[0] for argv in ours_args))
            theirs.append(limited_run(theirs_args, env, PEER_LIMIT))
            if theirs[-1] is None:
                break
        d = statistics.median(ours)
        c = None if None in theirs else statistics.median(theirs)
        rows.append((n, d, c))
        print(f"agenda {n:,}: datebook {d * 1000:.0f} ms, calcurse "
              + (f"{c * 1000:.0f} ms, {c / d:.0f}×" if c else f"> {PEER_LIMIT} s (stopped), > {PEER_LIMIT / d:.0f}×"))
    return rows


# 3. Import peaks -----------------------------------------------------------------------------

def imports(directory):
    rows = []
    for n in IMPORT_SIZES:
        ics = os.path.join(bench.DATA, f"planner-{n}.ics")
        if not os.path.exists(ics):
            subprocess.run([sys.executable, GENERATE, str(n), ics[:-4], "--ics"], check=True, stdout=subprocess.DEVNULL)
        store = os.path.join(directory, f"import-{n}.sqlite3")
        env = dict(os.environ, DATEBOOK_STORE=store, NO_COLOR="1")
        report = os.path.join(directory, "time.txt")
        rusage_run(["/usr/bin/time", "-o", report, "-f", "%e %M", BIN, "import", ics], env)
        wall, peak_kb = open(report).read().split()[-2:]
        size = os.path.getsize(ics) / 1e6
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(store + suffix):
                os.remove(store + suffix)
        rows.append((n, size, float(wall), int(peak_kb) / 1024))
        print(f"import {n:,} ({size:.0f} MB): {float(wall):.1f} s, peak {int(peak_kb) / 1024:.0f} MB")
    return rows


# 4. Digest beside list -----------------------------------------------------------------------

def digest_ratio():
    store, _ = bench.prepare(100_000, "planner-weekly-overdue", ["--recurring", "0.1", "--overdue", "0.5"])
    env = dict(os.environ, DATEBOOK_STORE=store, NO_COLOR="1")
    base = [BIN, "--now", bench.NOW, "--tz", ZONE]
    digest_args, list_args = base + ["digest", "--format", "html"], base + ["list", "--period", "next30"]
    rusage_run(digest_args, env)
    rusage_run(list_args, env)
    digests, lists = [], []
    for _ in range(max(RUNS, 7)):
        digests.append(rusage_run(digest_args, env)[1])
        lists.append(rusage_run(list_args, env)[1])
    d, l = statistics.median(digests), statistics.median(lists)
    print(f"digest html {d * 1000:.0f} ms CPU, list next30 {l * 1000:.0f} ms CPU: {d / l:.2f}×")
    return d, l


class Measured:
    """The date and load average (1 min) around one part's measurement, for its rows."""

    def __init__(self):
        self.load_before = os.getloadavg()[0]

    def done(self):
        self.when = time.strftime("%Y-%m-%d %H:%M")
        self.load_after = os.getloadavg()[0]
        return self

    def __str__(self):
        return f"{self.when}, load {self.load_before:.1f} → {self.load_after:.1f}"


def kept_rows(path, parts):
    """The table rows of `parts` from the last results-peers.md (rows of the parts not run now)."""
    if not os.path.exists(path):
        return {}
    starts = {ROW_STARTS[part]: part for part in parts}
    kept = {part: [] for part in parts}
    for line in open(path, encoding="utf-8"):
        for start, part in starts.items():
            if line.startswith(start):
                kept[part].append(line.rstrip("\n"))
    return kept


PROFILES = "## Profiles"


def kept_sections(path):
    """The hand-written part of results-peers.md (from PROFILES on: the fan-out's perf profiles), kept."""
    if not os.path.exists(path):
        return ""
    text = open(path, encoding="utf-8").read()
    at = text.find(PROFILES)
    return "" if at < 0 else "\n" + text[at:]


def verdict(ok):
    return "ok" if ok else "OVER"


def main():
    if not os.path.exists(BIN):
        sys.exit("bench: build the release binary first (make build)")
    for tool in ("calcurse", "curl", "/usr/sbin/nginx"):
        if not shutil.which(tool):
            sys.exit(f"bench: {tool} is missing (make bench-peers installs it)")
    unknown = [part for part in PARTS if part not in ROW_STARTS]
    if unknown:
        sys.exit(f"bench: unknown BENCH_PARTS {', '.join(unknown)} (known: {', '.join(ROW_STARTS)})")
    path = os.path.join(ROOT, "bench", "results-peers.md")
    rows = kept_rows(path, [part for part in ROW_STARTS if part not in PARTS])
    directory = tempfile.mkdtemp(prefix="datebook-bench-peers-")
    try:
        # Each part's rows, formatted with the load around it (`done` is evaluated after the measurement).
        # The agenda first: its data are built on first use; the fan-out is the most load-sensitive.
        runs = {"agenda": lambda m: agenda_lines(agenda(directory), m.done()),
                "digest": lambda m: digest_lines(*digest_ratio(), m.done()),
                "fanout": lambda m: fanout_lines(fanout(directory), m.done()),
                "import": lambda m: import_lines(imports(directory), m.done())}
        for part, run in runs.items():
            if part in PARTS:
                rows[part] = run(Measured())
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    lines = [
        "# datebook beside its peers (bench/peers.py)", "",
        f"Release build; each pair measured in one run, the two alternated, median of {RUNS}. Machine: "
        f"{os.cpu_count()} cores, shared; each row says when it was measured and the load average (1 min) "
        f"before → after its part (the loads named in the fan-out rows are busy loops added to it). Generated "
        f"by `make bench-peers` (BENCH_PARTS picks the parts; the others' rows are kept). A peer's agenda run "
        f"is stopped after {PEER_LIMIT} s.", "",
        "| workload | datebook | peer | ratio | goal | verdict |", "|---|---|---|---:|---|---|",
    ]
    for part in ("fanout", "agenda", "import", "digest"):
        lines += rows.get(part, [])
    kept = kept_sections(path)
    with open(path, "w", encoding="utf-8") as out:
        out.write("\n".join(lines) + "\n" + kept)


def fanout_lines(fanout_rows, measured):
    lines = []
    for load, body, wall_d, cpu_d, wall_c, cpu_c in fanout_rows:
        ratio = wall_c / wall_d
        lines.append(f"| `tick`, {ALERTS:,} due webhook alerts → nginx 204, ledger recorded; load +{load} ({measured}) "
                     f"| {wall_d:.2f} s wall, {cpu_d:.2f} s CPU ({cpu_d / ALERTS * 1e6:.0f} µs/alert) "
                     f"| `curl --parallel --parallel-max 32`, {body} B bodies: {wall_c:.2f} s wall, {cpu_c:.2f} s CPU "
                     f"| {ratio:.2f}× curl's rate | ≥ 0.5× | {verdict(ratio >= 0.5)} |")
    return lines


def agenda_lines(agenda_rows, measured):
    lines = []
    for n, d, c in agenda_rows:
        goal = AGENDA_GOALS.get(n)
        ratio = (c or PEER_LIMIT) / d
        peer = f"{c * 1000:,.0f} ms" if c else f"stopped after {PEER_LIMIT} s"
        lines.append(f"| 30-day agenda (`list --period next7` + `next30`), {n:,} events, 10% weekly ({measured}) "
                     f"| {d * 1000:.0f} ms | `calcurse -r30`: {peer} | {'' if c else '> '}{ratio:,.0f}× "
                     f"| {'≥ %d×' % goal if goal else ''} | {verdict(ratio >= goal) if goal else ''} |")
    return lines


def import_lines(import_rows, measured):
    lines = []
    for n, size, wall, peak in import_rows:
        goal = IMPORT_GOALS.get(n)
        ok = goal is None or (peak <= goal and (n < 1_000_000 or wall <= 15))
        budget = f"≤ {goal} MB peak" + (", ≤ 15 s" if n >= 1_000_000 else "") if goal else ""
        lines.append(f"| `import` {n:,} VEVENT + ~{3 * n:,} VTODO ({size:,.0f} MB; {measured}) "
                     f"| {wall:.1f} s, {peak:,.0f} MB peak | — | — | {budget} | {verdict(ok) if goal else ''} |")
    return lines


def digest_lines(digest_cpu, list_cpu, measured):
    ratio = digest_cpu / list_cpu
    return [f"| `digest --format html`, 100k (10% weekly, half overdue; {measured}) | {digest_cpu * 1000:.0f} ms CPU "
            f"| `list --period next30`: {list_cpu * 1000:.0f} ms CPU | {ratio:.2f}× | ≤ 2.5× | {verdict(ratio <= 2.5)} |"]


if __name__ == "__main__":
    if not bench.help_requested(__doc__):
        main()
