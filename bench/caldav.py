#!/usr/bin/env python3
"""CalDAV sync benchmark (issue 18): the release datebook against a local Radicale.

Usage: python3 bench/caldav.py [EVENTS]   (default 10000; needs `pip install radicale`, as
scripts/setup.sh --test does, and `swift build -c release --product datebook`)

Fills a calendar with EVENTS events by writing Radicale's storage files directly (PUT one by one
would measure Radicale), then times `datebook caldav sync` twice: the first sync (everything
received) and a sync with nothing changed, whose requests are counted from Radicale's log.
Budgets: first sync of 10,000 events <= 10 s; nothing changed <= 100 ms, one request.
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


def request(method, url, body=b""):
    req = urllib.request.Request(url, data=body or None, method=method)
    req.add_header("Authorization", "Basic " + base64.b64encode(b"ann:pw").decode())
    with urllib.request.urlopen(req) as response:
        return response.status


def event(n):
    day = 1 + n % 28
    month = 1 + (n // 28) % 12
    return (
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//bench//EN\r\nBEGIN:VEVENT\r\n"
        f"UID:bench-{n}\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:2027{month:02d}{day:02d}T{n % 24:02d}0000Z\r\n"
        f"SUMMARY:Event {n}\r\nDESCRIPTION:Benchmark event number {n}\r\nX-BENCH:{n}\r\n"
        "END:VEVENT\r\nEND:VCALENDAR\r\n"
    )


def vdirsyncer(work, base):
    """Seconds vdirsyncer (PyPI, if installed) takes to sync the same calendar to a local folder; None without it."""
    if shutil.which("vdirsyncer") is None:
        return None
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


def main():
    count = int(next((a for a in sys.argv[1:] if a.isdigit()), "10000"))
    work = tempfile.mkdtemp(prefix="datebook-caldav-bench-")
    users = os.path.join(work, "users")
    with open(users, "w") as f:
        f.write("ann:pw\n")
    port = free_port()
    log = open(os.path.join(work, "radicale.log"), "w")
    server = subprocess.Popen(
        [sys.executable, "-m", "radicale", "--storage-filesystem-folder=" + os.path.join(work, "collections"),
         f"--server-hosts=127.0.0.1:{port}", "--auth-type=htpasswd", "--auth-htpasswd-filename=" + users,
         "--auth-htpasswd-encryption=plain", "--auth-delay=0", "--logging-level=info"],
        stdout=log, stderr=log)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                urllib.request.urlopen(base + "/.well-known/caldav")
                break
            except urllib.error.HTTPError:
                break
            except OSError:
                time.sleep(0.1)
        request("MKCALENDAR", base + "/ann/bench/")
        folder = os.path.join(work, "collections", "collection-root", "ann", "bench")
        for n in range(count):
            with open(os.path.join(folder, f"event-{n}.ics"), "w", newline="") as f:
                f.write(event(n))
        # Radicale builds its item cache on first read; do that before timing datebook.
        request("PROPFIND", base + "/ann/bench/", b"")
        env = dict(os.environ, DAV_PASSWORD="pw")
        store = ["--store", os.path.join(work, "store.sqlite3"), "--tz", "UTC"]
        subprocess.run([DATEBOOK, *store, "caldav", "add", "bench", base + "/", "--username", "ann",
                        "--password-env", "DAV_PASSWORD"], env=env, check=True, capture_output=True)
        start = time.monotonic()
        first = subprocess.run([DATEBOOK, *store, "caldav", "sync"], env=env, check=True, capture_output=True, text=True)
        first_time = time.monotonic() - start
        vdirsyncer_time = vdirsyncer(work, base)
        log.flush()
        before = open(log.name).read().count(" request for ")
        runs = []
        for _ in range(5):
            start = time.monotonic()
            subprocess.run([DATEBOOK, *store, "caldav", "sync"], env=env, check=True, capture_output=True)
            runs.append(time.monotonic() - start)
        after = open(log.name).read().count(" request for ")
        unchanged = sorted(runs)[len(runs) // 2]
        # The server's own share: the same sync-collection REPORT with the stored token, from Python.
        import sqlite3
        token = sqlite3.connect(os.path.join(work, "store.sqlite3")).execute(
            "SELECT sync_token FROM caldav_calendars").fetchone()[0]
        body = ('<?xml version="1.0" encoding="utf-8"?><D:sync-collection xmlns:D="DAV:"><D:sync-token>'
                f"{token}</D:sync-token><D:sync-level>1</D:sync-level><D:prop><D:getetag/></D:prop></D:sync-collection>")
        server_runs = []
        for _ in range(5):
            start = time.monotonic()
            request("REPORT", base + "/ann/bench/", body.encode())
            server_runs.append(time.monotonic() - start)
        server_time = sorted(server_runs)[len(server_runs) // 2]
        # datebook's own share: the same sync with the server gone (start, store, digest, a refused connect).
        server.kill()
        server.wait()
        local_runs = []
        for _ in range(5):
            start = time.monotonic()
            subprocess.run([DATEBOOK, *store, "caldav", "sync"], env=env, capture_output=True)
            local_runs.append(time.monotonic() - start)
        local_time = sorted(local_runs)[len(local_runs) // 2]
        table = (
            "| sync | budget | measured |\n|---|---|---|\n"
            f"| first sync of {count:,} events (`{first.stdout.strip()}`) | <= 10 s | {first_time:.2f} s |\n"
            f"| nothing changed (median of 5, whole process) | <= 100 ms, 1 request | {unchanged * 1000:.0f} ms, "
            f"{(after - before) / len(runs):g} request(s) |\n"
            f"| of which Radicale answering that one REPORT (median of 5, from Python) | | {server_time * 1000:.0f} ms |\n"
            + (f"| vdirsyncer {subprocess.run(['vdirsyncer', '--version'], capture_output=True, text=True).stdout.split()[-1]} "
               f"syncing the same calendar to a local folder | datebook at least 2x faster | {vdirsyncer_time:.2f} s "
               f"(datebook {vdirsyncer_time / first_time:.1f}x faster) |\n" if vdirsyncer_time else "")
            + f"| datebook's own share (the same sync with the server stopped, median of 5) | | {local_time * 1000:.0f} ms |\n"
        )
        print(table)
        if "--write" in sys.argv:
            with open(os.path.join(ROOT, "bench", "results-caldav.md"), "w") as f:
                f.write("# CalDAV sync benchmark\n\n`python3 bench/caldav.py --write` (release build, local Radicale "
                        "on 127.0.0.1, events written into its storage folder first).\n\n" + table)
    finally:
        server.kill()
        server.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
