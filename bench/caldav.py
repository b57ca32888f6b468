#!/usr/bin/env python3
"""CalDAV sync benchmark (issue 18): the release datebook against a local Radicale.

Usage: python3 bench/caldav.py [EVENTS] [--radicale] [--xandikos] [--write]   (default 10000 events, both
servers; `make bench-caldav` runs it with the Python of .build/bench-venv, where it installs radicale,
xandikos and vdirsyncer, after `swift build -c release --product datebook`)

For each server, fills a calendar with EVENTS events (and one VTODO of the first) by writing the
server's storage directly (Radicale's files; one git commit in Xandikos's calendar repository): PUT
one by one would measure the server. Then:
- the first sync, datebook and vdirsyncer (PyPI, to a local folder) side by side, 3 runs each,
  alternating, medians; before each, Radicale's own time for the first sync's one request (the
  sync-collection REPORT from Python, to the last byte of the answer), and datebook's own share
  (its first sync less that);
- a sync with nothing changed (median of 5), its requests counted from Radicale's log, beside
  Radicale's own time to answer that request and an unchanged sync-collection (from Python), and
  datebook's own share (the same sync with the server stopped); at 100 and 1,000 events too;
- one task marked done in datebook, then a sync: the requests it sends, by method.
Budgets: first sync of 10,000 events <= 10 s and at least 2x faster than vdirsyncer; nothing
changed <= 100 ms, one request; one changed task reaches the server in one PUT.
Prints a Markdown table; writes it to bench/results-caldav.md when run with --write.
"""
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import base64
import bench

ROOT = bench.ROOT
DATEBOOK = os.path.join(ROOT, ".build", "release", "datebook")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def request(method, url, body=b"", depth=None):
    req = urllib.request.Request(url, data=body or None, method=method)
    req.add_header("Authorization", "Basic " + base64.b64encode(b"ann:pw").decode())
    if depth is not None:
        req.add_header("Depth", depth)
    if body:
        req.add_header("Content-Type", "application/xml; charset=utf-8")  # Xandikos refuses a body without one
    with urllib.request.urlopen(req) as response:
        response.read()
        return response.status


def median(values):
    return sorted(values)[len(values) // 2]


def timed(function, runs=5):
    """The median of `runs` timings of function(), in seconds."""
    times = []
    for _ in range(runs):
        start = time.monotonic()
        function()
        times.append(time.monotonic() - start)
    return median(times)


TODO = ("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//bench//EN\r\nBEGIN:VTODO\r\nUID:bench-task-0\r\n"
        "DTSTAMP:20260101T000000Z\r\nSUMMARY:Bench task\r\nRELATED-TO:bench-0\r\nSTATUS:NEEDS-ACTION\r\n"
        "X-BENCH:keep\r\nEND:VTODO\r\nEND:VCALENDAR\r\n")


def event(n):
    day = 1 + n % 28
    month = 1 + (n // 28) % 12
    return (
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//bench//EN\r\nBEGIN:VEVENT\r\n"
        f"UID:bench-{n}\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:2027{month:02d}{day:02d}T{n % 24:02d}0000Z\r\n"
        f"SUMMARY:Event {n}\r\nDESCRIPTION:Benchmark event number {n}\r\nX-BENCH:{n}\r\n"
        "END:VEVENT\r\nEND:VCALENDAR\r\n"
    )


def vdirsyncer_program():
    """vdirsyncer beside this Python (the bench's virtual environment), else on PATH; None without it."""
    beside = os.path.join(os.path.dirname(sys.executable), "vdirsyncer")
    return beside if os.access(beside, os.X_OK) else shutil.which("vdirsyncer")


def vdirsyncer(work, calendar, run=0):
    """Seconds vdirsyncer (PyPI, if installed) takes to sync the same calendar to a new local folder; None without it."""
    program = vdirsyncer_program()
    if program is None:
        return None
    work = os.path.join(work, f"vdirsyncer-{run}")
    os.makedirs(os.path.join(work, "vlocal"))
    config = os.path.join(work, "vdirsyncer.conf")
    with open(config, "w") as f:
        f.write(f"""[general]
status_path = "{work}/vstatus/"

[pair bench]
a = "bench_remote"
b = "bench_local"
collections = null
conflict_resolution = "a wins"

[storage bench_remote]
type = "caldav"
url = "{calendar}"
username = "ann"
password = "pw"

[storage bench_local]
type = "filesystem"
path = "{work}/vlocal/"
fileext = ".ics"
""")
    subprocess.run([program, "-c", config, "discover", "bench"], capture_output=True, input=b"y\n" * 4)
    start = time.monotonic()
    done = subprocess.run([program, "-c", config, "sync"], capture_output=True, input=b"y\n" * 4, text=False)
    if done.returncode != 0:
        sys.exit("vdirsyncer failed:\n" + done.stderr.decode()[-2000:])
    return time.monotonic() - start


def wait_for(url):
    """Waits (30 s at most) until a server answers url, whatever the status."""
    for _ in range(300):
        try:
            urllib.request.urlopen(url)
            return
        except urllib.error.HTTPError:
            return
        except OSError:
            time.sleep(0.1)
    sys.exit(f"no answer from {url}")


class Radicale:
    """Radicale on a free port with its own folder, a calendar /ann/bench/ of `count` events and one VTODO."""

    name = "Radicale"

    def __init__(self, work, count):
        self.work = work
        users = os.path.join(work, "users")
        with open(users, "w") as f:
            f.write("ann:pw\n")
        port = free_port()
        self.log = os.path.join(work, "radicale.log")
        log = open(self.log, "w")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "radicale", "--storage-filesystem-folder=" + os.path.join(work, "collections"),
             f"--server-hosts=127.0.0.1:{port}", "--auth-type=htpasswd", "--auth-htpasswd-filename=" + users,
             "--auth-htpasswd-encryption=plain", "--auth-delay=0", "--logging-level=info"],
            stdout=log, stderr=log)
        self.base = f"http://127.0.0.1:{port}"
        self.calendar = self.base + "/ann/bench/"
        wait_for(self.base + "/.well-known/caldav")
        request("MKCALENDAR", self.calendar)
        folder = os.path.join(work, "collections", "collection-root", "ann", "bench")
        for n in range(count):
            with open(os.path.join(folder, f"event-{n}.ics"), "w", newline="") as f:
                f.write(event(n))
        with open(os.path.join(folder, "task-0.ics"), "w", newline="") as f:
            f.write(TODO)
        # Radicale builds its item cache on first read; do that before timing anything.
        request("PROPFIND", self.calendar, depth="1")

    def requests(self):
        """The requests logged so far, as 'METHOD' strings."""
        with open(self.log) as f:
            return [line.split("[INFO] ", 1)[1].split(" request for ", 1)[0]
                    for line in f if "[INFO] " in line and " request for " in line]

    def stop(self):
        self.process.kill()
        self.process.wait()


class Xandikos:
    """Xandikos on a free port with its own folder, a calendar /ann/calendars/bench/ of `count` events and one
    VTODO, committed to the calendar's git repository in one commit (its storage) before it starts."""

    name = "Xandikos"

    def __init__(self, work, count):
        self.work = work
        self.port = free_port()
        self.data = os.path.join(work, "xandikos")
        self.log = os.path.join(work, "xandikos.log")
        self.base = f"http://127.0.0.1:{self.port}"
        self.calendar = self.base + "/ann/calendars/bench/"
        self.start()
        request("MKCALENDAR", self.calendar)
        self.stop()
        folder = os.path.join(self.data, "ann", "calendars", "bench")
        for n in range(count):
            with open(os.path.join(folder, f"event-{n}.ics"), "w", newline="") as f:
                f.write(event(n))
        with open(os.path.join(folder, "task-0.ics"), "w", newline="") as f:
            f.write(TODO)
        git = ["git", "-C", folder, "-c", "user.name=bench", "-c", "user.email=bench@localhost"]
        subprocess.run([*git, "add", "-A", "."], check=True)
        subprocess.run([*git, "commit", "-q", "-m", "bench events"], check=True)
        self.start()
        request("PROPFIND", self.calendar, depth="1")

    def start(self):
        log = open(self.log, "a")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "xandikos", "serve", "-d", self.data, "--autocreate", "--current-user-principal", "/ann/",
             "-l", "127.0.0.1", "-p", str(self.port), "--no-detect-systemd"], stdout=log, stderr=log)
        wait_for(self.base + "/")

    def requests(self):
        """The requests answered so far, as 'METHOD' strings, from aiohttp's access log (a marker request
        first: a line is written just after its answer)."""
        marker = "/bench-marker-" + str(time.monotonic_ns())
        try:
            request("GET", self.base + marker)
        except urllib.error.HTTPError:
            pass
        for _ in range(100):
            with open(self.log) as f:
                lines = [line.split('] "', 1)[1].split(" ", 2) for line in f if '] "' in line and " HTTP/" in line]
            if any(parts[1] == marker for parts in lines if len(parts) > 1):
                break
            time.sleep(0.05)
        return [parts[0] for parts in lines if len(parts) > 1 and not parts[1].startswith("/bench-marker-")]

    def stop(self):
        self.process.kill()
        self.process.wait()


class Datebook:
    """A store with the account `bench` added (`caldav add`), and its syncs."""

    def __init__(self, work, name, server):
        self.env = dict(os.environ, DAV_PASSWORD="pw")
        self.path = os.path.join(work, name + ".sqlite3")
        self.store = ["--store", self.path, "--tz", "UTC"]
        self.run("caldav", "add", "bench", server.base + "/", "--username", "ann", "--password-env", "DAV_PASSWORD")

    def run(self, *arguments, check=True):
        return subprocess.run([DATEBOOK, *self.store, *arguments], env=self.env, check=check, capture_output=True, text=True)

    def sync(self, check=True):
        return self.run("caldav", "sync", check=check)


SYNC_COLLECTION = ('<?xml version="1.0" encoding="utf-8"?><D:sync-collection xmlns:D="DAV:" '
                   'xmlns:C="urn:ietf:params:xml:ns:caldav"><D:sync-token>{}</D:sync-token><D:sync-level>1</D:sync-level>'
                   '<D:prop><D:getetag/><C:calendar-data/></D:prop></D:sync-collection>')
GETCTAG = ('<?xml version="1.0" encoding="utf-8"?><D:propfind xmlns:D="DAV:" xmlns:S="http://calendarserver.org/ns/">'
           '<D:prop><S:getctag/></D:prop></D:propfind>')


def unchanged(server, datebook):
    """Nothing changed, after the first incremental sync learnt the getctag: the whole process, its
    requests, Radicale's time for the getctag PROPFIND and for an unchanged sync-collection."""
    datebook.sync()
    before = len(server.requests())
    whole = timed(datebook.sync)
    requests = (len(server.requests()) - before) / 5
    import sqlite3
    token = sqlite3.connect(datebook.path).execute(
        "SELECT sync_token FROM caldav_calendars WHERE url LIKE '%/bench/'").fetchone()[0]
    ctag = timed(lambda: request("PROPFIND", server.calendar, GETCTAG.encode(), depth="0"))
    report = timed(lambda: request("REPORT", server.calendar, SYNC_COLLECTION.format(token).encode(), depth="0")) if token else None
    return whole, requests, ctag, report


def own_share(datebook):
    """The nothing-changed sync with the server gone: start, store, the count of local changes, a refused connect."""
    return timed(lambda: datebook.sync(check=False))


def first_sync_rows(server, count):
    """The first sync, datebook and vdirsyncer alternating (3 runs each), and one changed task's sync;
    for Radicale also its own time for the first sync's one request and datebook's share. The rows,
    and the last run's store."""
    rows = []
    firsts, others, outputs, answers = [], [], [], []
    for run in range(3):
        if isinstance(server, Radicale):
            # Radicale's own time for the first sync's one request, to the last byte of its answer.
            answers.append(timed(lambda: request("REPORT", server.calendar, SYNC_COLLECTION.format("").encode(), depth="0"), runs=1))
        datebook = Datebook(server.work, f"store-{run}", server)
        start = time.monotonic()
        outputs.append(datebook.sync().stdout.strip())
        firsts.append(time.monotonic() - start)
        other = vdirsyncer(server.work, server.calendar, run)
        if other is not None:
            others.append(other)
    first = median(firsts)
    rows.append(f"| {server.name}: first sync of {count:,} events (`{outputs[-1]}`; median of 3) | <= 10 s | {first:.2f} s "
                f"({', '.join(f'{t:.2f}' for t in firsts)}) |")
    if answers:
        answer = median(answers)
        rows.append(f"| … of which Radicale answering its one sync-collection REPORT (from Python, to the last byte; median of 3) | | "
                    f"{answer:.2f} s ({', '.join(f'{t:.2f}' for t in answers)}) |")
        owns = [first_run - answer_run for first_run, answer_run in zip(firsts, answers)]
        rows.append(f"| … datebook's own share (the first sync less Radicale's answer, run by run; median) | | "
                    f"{median(owns):.2f} s ({', '.join(f'{t:.2f}' for t in owns)}) |")
    if others:
        version = subprocess.run([vdirsyncer_program(), "--version"], capture_output=True, text=True).stdout.split()[-1]
        rows.append(f"| {server.name}: vdirsyncer {version} syncing the same calendar to a local folder, side by side (median of 3) "
                    f"| datebook at least 2x faster | {median(others):.2f} s ({', '.join(f'{t:.2f}' for t in others)}); "
                    f"datebook {median(others) / first:.1f}x faster |")
    else:
        rows.append(f"| {server.name}: vdirsyncer | datebook at least 2x faster | not installed (`make bench-caldav` installs it) |")
    # One task marked done in datebook: what its sync sends.
    before = len(server.requests())
    datebook.run("task", "done", "Event 0", "1")
    sent = datebook.sync().stdout.strip()
    methods = server.requests()[before:]
    rows.append(f"| {server.name}: one task marked done, then `caldav sync` (`{sent.splitlines()[0]}`) | one PUT | "
                f"{methods.count('PUT')} PUT; all requests: {', '.join(methods)} |")
    return rows, datebook


def unchanged_rows(server, size, datebook):
    """Nothing changed: the whole process (its requests counted from the server's log), the server's own
    time for the request(s) it answers, datebook's share (measured later, with the server stopped)."""
    whole, requests, ctag, report = unchanged(server, datebook)
    rows = [f"| {server.name}: nothing changed, {size:,} events: the whole process (median of 5) | <= 100 ms, 1 request | "
            f"{whole * 1000:.0f} ms, {requests:g} request(s) |",
            f"| … of which {server.name} answering that getctag PROPFIND (from Python) | | {ctag * 1000:.0f} ms |"]
    if report is not None:
        rows.append(f"| … for comparison: {server.name} answering an unchanged sync-collection | | {report * 1000:.0f} ms |")
    return rows


def main():
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("bench: terminated"))  # so `finally` stops the servers
    count = int(next((a for a in sys.argv[1:] if a.isdigit()), "10000"))
    kinds = [kind for kind in (Radicale, Xandikos) if f"--{kind.name.lower()}" in sys.argv] or [Radicale, Xandikos]
    work = tempfile.mkdtemp(prefix="datebook-caldav-bench-")
    rows = []
    servers = []
    stores = []  # (row index where datebook's own share goes, store)
    try:
        for kind in kinds:
            folder = os.path.join(work, kind.name)
            os.makedirs(folder)
            server = kind(folder, count)
            servers.append(server)
            first, datebook = first_sync_rows(server, count)
            rows += first
            sizes = [(count, server, datebook)]
            if kind is Radicale:
                for size in [100, 1000]:
                    if size >= count:
                        continue
                    os.makedirs(os.path.join(work, f"size-{size}"))
                    small = Radicale(os.path.join(work, f"size-{size}"), size)
                    servers.append(small)
                    small_datebook = Datebook(small.work, "store", small)
                    small_datebook.sync()
                    sizes.append((size, small, small_datebook))
            for size, where, store in sorted(sizes, key=lambda entry: entry[0]):
                rows += unchanged_rows(where, size, store)
                stores.append((len(rows), store))
                rows.append(None)
        for other in servers:
            other.stop()
        for index, store in stores:
            rows[index] = f"| … datebook's own share (the same sync with the server stopped) | | {own_share(store) * 1000:.0f} ms |"
        table = "| sync | budget | measured |\n|---|---|---|\n" + "\n".join(rows) + "\n"
        print(table)
        if "--write" in sys.argv:
            load = open("/proc/loadavg").read().split()[:3]
            commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
            with open(os.path.join(ROOT, "bench", "results-caldav.md")) as f:
                kept = f.read().split("\n## ", 1)
            with open(os.path.join(ROOT, "bench", "results-caldav.md"), "w") as f:
                f.write("# CalDAV sync benchmark\n\n`make bench-caldav` (`bench/caldav.py --write`: release build, local Radicale and "
                        "Xandikos on 127.0.0.1, events written into their storage first; vdirsyncer from the bench's virtual "
                        f"environment). Commit {commit}, load average {' / '.join(load)} at the end of the run.\n\n" + table
                        + ("\n## " + kept[1] if len(kept) > 1 else ""))
    finally:
        for other in servers:
            other.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    if not bench.help_requested(__doc__):
        main()
