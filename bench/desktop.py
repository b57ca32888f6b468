#!/usr/bin/python3
"""Desktop notification buttons (issue 20 budget); replaces its section of bench/results.md.

While a notification with Done and Snooze buttons is on screen, what stays is notify-send (under
`stdbuf -oL`) and what waits for its answer. Measured on the release build, against a private
`dbus-daemon --session` with the scripted server of
Tests/DatebookDeliveryTests/Support/notification_server.py (python3-dbus, from scripts/setup.sh):
the sum of VmRSS (/proc/PID/status) of every process that stays, and their CPU over
BENCH_DESKTOP_SECONDS (default 10), for
1. the C waiter `datebook-notify-wait` next to the binary (budget ≤ 10 MB, ≈ 0 % CPU), and
2. for comparison, a copy of the binary without the waiter beside it, where a whole datebook waits.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import bench

ROOT = bench.ROOT
RELEASE = os.path.join(ROOT, ".build", "release")
SERVER = os.path.join(ROOT, "Tests", "DatebookDeliveryTests", "Support", "notification_server.py")
SECONDS = int(os.environ.get("BENCH_DESKTOP_SECONDS", "10"))
HZ = os.sysconf("SC_CLK_TCK")
MARKER = "## Desktop notification buttons (bench/desktop.py)"


def status_kb(pid, key="VmRSS:"):
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(key))


def cpu_ticks(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def name(pid):
    return os.path.basename(os.readlink(f"/proc/{pid}/exe"))


def pids():
    return [int(entry) for entry in os.listdir("/proc") if entry.isdigit()]


def mentioning(text):
    found = []
    for pid in pids():
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if text.encode() in f.read():
                    found.append(pid)
        except OSError:
            pass
    return found


def writers_to_stdin(pid):
    """notify-send: the process whose stdout is the pipe on the waiter's stdin."""
    pipe = os.readlink(f"/proc/{pid}/fd/0")
    found = []
    for other in pids():
        try:
            if other != pid and os.readlink(f"/proc/{other}/fd/1") == pipe:
                found.append(other)
        except OSError:
            pass
    return found


class Bus:
    def __init__(self, directory):
        self.record = os.path.join(directory, "notifications.jsonl")
        open(self.record, "w").close()
        self.process = subprocess.Popen(["/usr/bin/python3", SERVER, self.record, directory], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.address = self.process.stdout.readline().strip()
        if not self.address.startswith("unix:path="):
            sys.exit("bench/desktop.py: the notification server did not start (python3-dbus installed?)")

    def notifications(self):
        with open(self.record, encoding="utf-8") as f:
            return [json.loads(line) for line in f if line.strip()]

    def close(self, notification_id):
        self.process.stdin.write(f"close {notification_id} 2\n")
        self.process.stdin.flush()
        self.process.stdout.readline()

    def stop(self):
        self.process.stdin.close()
        self.process.wait(timeout=10)


def measure(binary, bus, directory, label):
    """Ticks one alert with buttons; returns (names, kB resident, CPU %) of what waits for the click."""
    store = os.path.join(directory, label + ".sqlite3")
    config = os.path.join(directory, "config.json5")
    with open(config, "w") as out:
        out.write('{ channels: { desk: { type: "desktop", actions: true } }, alerts: { channels: ["desk"], lateness: "6h" } }\n')
    environment = {"HOME": directory, "PATH": "/usr/bin:/bin", "DBUS_SESSION_BUS_ADDRESS": bus.address}
    common = [binary, "--store", store, "--config", config, "--now", "2026-11-30T08:00Z", "--tz", "Europe/Berlin"]
    subprocess.run(common + ["add", "Dentist", "--at", "2026-11-30 10:00", "--alert", "1h", "--task", "Card"],
                   env=environment, check=True, stdout=subprocess.DEVNULL)
    seen = len(bus.notifications())
    subprocess.run(common + ["tick"], env=environment, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 10
    while len(bus.notifications()) <= seen and time.time() < deadline:
        time.sleep(0.02)
    notification = bus.notifications()[seen]
    time.sleep(0.5)  # settled: notify-send has its answer pending, the waiter blocks on read
    waiting = mentioning(store)
    staying = waiting + [writer for pid in waiting for writer in writers_to_stdin(pid)]
    names = [name(pid) for pid in staying]
    kilobytes = sum(status_kb(pid) for pid in staying)
    before = sum(cpu_ticks(pid) for pid in staying)
    time.sleep(SECONDS)
    cpu = (sum(cpu_ticks(pid) for pid in staying) - before) / HZ / SECONDS * 100
    bus.close(notification["id"])
    deadline = time.time() + 10
    while mentioning(store) and time.time() < deadline:
        time.sleep(0.05)
    return names, kilobytes, cpu


def main():
    binary = os.path.join(RELEASE, "datebook")
    waiter = os.path.join(RELEASE, "datebook-notify-wait")
    for path in (binary, waiter):
        if not os.access(path, os.X_OK):
            sys.exit(f"bench/desktop.py: {path} missing; run `make build` (it builds both)")
    directory = tempfile.mkdtemp(prefix="datebook-bench-desktop-")
    bus = Bus(directory)
    try:
        alone = os.path.join(directory, "alone")
        os.mkdir(alone)
        shutil.copy(binary, alone)
        rows = [("C waiter `datebook-notify-wait` (the binary's own directory)", *measure(binary, bus, directory, "waiter")),
                ("whole datebook (a copy of the binary without the waiter beside it)",
                 *measure(os.path.join(alone, "datebook"), bus, directory, "datebook"))]
    finally:
        bus.stop()
        shutil.rmtree(directory, ignore_errors=True)
    lines = ["", MARKER, "",
             f"An alert with Done and Snooze on screen, release build; CPU over {SECONDS} s.", "",
             "| what waits for the click | processes that stay | RSS (sum) | CPU | budget | verdict |",
             "|---|---|---:|---:|---|---|"]
    for index, (label, names, kilobytes, cpu) in enumerate(rows):
        budget = "≤ 10 MB, ≈ 0 %" if index == 0 else ""
        verdict = ("ok" if kilobytes <= 10 * 1024 and cpu < 0.5 else "OVER") if index == 0 else ""
        print(f"{label}: {' + '.join(names)}: {kilobytes / 1024:.1f} MB, CPU {cpu:.3f} %")
        lines.append(f"| {label} | {' + '.join(names)} | {kilobytes / 1024:.1f} MB | {cpu:.3f} % | {budget} | {verdict} |")
    bench.write_section(MARKER, lines)


if __name__ == "__main__":
    if not bench.help_requested(__doc__):
        main()
