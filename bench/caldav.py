#!/usr/bin/env python3
"""CalDAV sync benchmark (issue 18): the release datebook against a local Radicale.

Usage: python3 bench/caldav.py [EVENTS]   (default 10000; needs `pip install radicale`, as
scripts/setup.sh --test does, and `swift build -c release --product datebook`)

Fills a calendar with EVENTS events (and one VTODO of the first) by writing Radicale's storage
files directly (PUT one by one would measure Radicale), then:
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
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import base64

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
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


def vdirsyncer(work, base, run=0):
    """Seconds vdirsyncer (PyPI, if installed) takes to sync the same calendar to a new local folder; None without it."""
    if shutil.which("vdirsyncer") is None:
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
url = "{base}/ann/bench/"
username = "ann"
password = "pw"

[storage bench_local]
type = "filesystem"
path = "{work}/vlocal/"
fileext = ".ics"
""")
    subprocess.run(["vdirsyncer", "-c", config, "discover", "bench"], capture_output=True, input=b"y\n" * 4)
    start = time.monotonic()
    done = subprocess.run(["vdirsyncer", "-c", config, "sync"], capture_output=True, input=b"y\n" * 4, text=False)
    if done.returncode != 0:
        sys.exit("vdirsyncer failed:\n" + done.stderr.decode()[-2000:])
    return time.monotonic() - start


class Server:
    """Radicale on a free port with its own folder, a calendar /ann/bench/ of `count` events and one VTODO."""

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
        for _ in range(300):
            try:
                urllib.request.urlopen(self.base + "/.well-known/caldav")
                break
            except urllib.error.HTTPError:
                break
            except OSError:
                time.sleep(0.1)
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
    token = sqlite3.connect(datebook.path).execute("SELECT sync_token FROM caldav_calendars").fetchone()[0]
    ctag = timed(lambda: request("PROPFIND", server.calendar, GETCTAG.encode(), depth="0"))
    report = timed(lambda: request("REPORT", server.calendar, SYNC_COLLECTION.format(token).encode(), depth="0"))
    return whole, requests, ctag, report


def own_share(datebook):
    """The nothing-changed sync with the server gone: start, store, the count of local changes, a refused connect."""
    return timed(lambda: datebook.sync(check=False))


def main():
    count = int(next((a for a in sys.argv[1:] if a.isdigit()), "10000"))
    work = tempfile.mkdtemp(prefix="datebook-caldav-bench-")
    rows = []
    servers = []
    try:
        os.makedirs(os.path.join(work, "main"))
        server = Server(os.path.join(work, "main"), count)
        servers.append(server)
        firsts, others, outputs, answers = [], [], [], []
        for run in range(3):
            # Radicale's own time for the first sync's one request, to the last byte of its answer.
            answers.append(timed(lambda: request("REPORT", server.calendar, SYNC_COLLECTION.format("").encode(), depth="0"), runs=1))
            datebook = Datebook(server.work, f"store-{run}", server)
            start = time.monotonic()
            outputs.append(datebook.sync().stdout.strip())
            firsts.append(time.monotonic() - start)
            other = vdirsyncer(server.work, server.base, run)
            if other is not None:
                others.append(other)
        first = median(firsts)
        rows.append(f"| first sync of {count:,} events (`{outputs[-1]}`; median of 3) | <= 10 s | {first:.2f} s "
                    f"({', '.join(f'{t:.2f}' for t in firsts)}) |")
        answer = median(answers)
        rows.append(f"| … of which Radicale answering its one sync-collection REPORT (from Python, to the last byte; median of 3) | | "
                    f"{answer:.2f} s ({', '.join(f'{t:.2f}' for t in answers)}) |")
        owns = [first_run - answer_run for first_run, answer_run in zip(firsts, answers)]
        rows.append(f"| … datebook's own share (the first sync less Radicale's answer, run by run; median) | | "
                    f"{median(owns):.2f} s ({', '.join(f'{t:.2f}' for t in owns)}) |")
        if others:
            version = subprocess.run(["vdirsyncer", "--version"], capture_output=True, text=True).stdout.split()[-1]
            rows.append(f"| vdirsyncer {version} syncing the same calendar to a local folder, side by side (median of 3) "
                        f"| datebook at least 2x faster | {median(others):.2f} s ({', '.join(f'{t:.2f}' for t in others)}); "
                        f"datebook {median(others) / first:.1f}x faster |")
        # One task marked done in datebook: what its sync sends.
        before = len(server.requests())
        datebook.run("task", "done", "Event 0", "1")
        sent = datebook.sync().stdout.strip()
        methods = server.requests()[before:]
        puts = methods.count("PUT")
        rows.append(f"| one task marked done, then `caldav sync` (`{sent.splitlines()[0]}`) | one PUT | "
                    f"{puts} PUT; all requests: {', '.join(methods)} |")
        results = {count: (unchanged(server, datebook), datebook)}
        for size in [100, 1000]:
            if size >= count:
                continue
            os.makedirs(os.path.join(work, f"size-{size}"))
            small = Server(os.path.join(work, f"size-{size}"), size)
            servers.append(small)
            small_datebook = Datebook(small.work, "store", small)
            small_datebook.sync()
            results[size] = (unchanged(small, small_datebook), small_datebook)
        for other in servers:
            other.stop()
        for size in sorted(results):
            (whole, requests, ctag, report), store = results[size]
            local = own_share(store)
            budget = "<= 100 ms, 1 request"
            rows.append(f"| nothing changed, {size:,} events: the whole process (median of 5) | {budget} | "
                        f"{whole * 1000:.0f} ms, {requests:g} request(s) |")
            rows.append(f"| … of which Radicale answering that getctag PROPFIND (from Python) | | {ctag * 1000:.0f} ms |")
            rows.append(f"| … datebook's own share (the same sync with the server stopped) | | {local * 1000:.0f} ms |")
            rows.append(f"| … for comparison: Radicale answering an unchanged sync-collection | | {report * 1000:.0f} ms |")
        table = "| sync | budget | measured |\n|---|---|---|\n" + "\n".join(rows) + "\n"
        print(table)
        if "--write" in sys.argv:
            with open(os.path.join(ROOT, "bench", "results-caldav.md"), "w") as f:
                f.write("# CalDAV sync benchmark\n\n`python3 bench/caldav.py --write` (release build, local Radicale "
                        "on 127.0.0.1, events written into its storage folder first).\n\n" + table)
    finally:
        for other in servers:
            other.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
