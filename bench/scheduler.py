#!/usr/bin/env python3
"""Scheduler benchmarks (issue 5 budgets); appends a section to bench/results.md.

1. `datebook tick` with nothing due on the 100k-event planner: median wall time (≤ 40 ms).
2. `datebook run` idle for BENCH_IDLE_SECONDS (default 60): CPU from /proc/PID/stat, RSS (≤ 30 MB).
3. Alert lateness under the daemon: nginx's $msec for each request minus the due time (≤ 1 s).
4. `datebook tick` with 10,000 alerts due to a local nginx answering 204: deliveries per second
   including the ledger (≥ 5,000/s).
nginx-light comes from `scripts/setup.sh --bench`; it runs on 127.0.0.1 from a temp directory.
"""
import datetime as dt
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402  (prepare() builds the 100k planner)

ROOT = bench.ROOT
BIN = bench.BIN
RUNS = int(os.environ.get("BENCH_RUNS", "15"))
IDLE = int(os.environ.get("BENCH_IDLE_SECONDS", "60"))
NOW = dt.datetime(2026, 12, 1, 9, 0, tzinfo=dt.timezone.utc)
HZ = os.sysconf("SC_CLK_TCK")


def iso(t):
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Nginx:
    def __init__(self, directory, log_format="$msec $http_idempotency_key"):
        self.port = free_port()
        self.log = os.path.join(directory, "access.log")
        conf = os.path.join(directory, "nginx.conf")
        with open(conf, "w") as out:
            out.write(f"""
daemon off; worker_processes 1; pid {directory}/nginx.pid; error_log {directory}/error.log;
events {{ worker_connections 1024; }}
http {{
  log_format bench '{log_format}';
  access_log {self.log} bench buffer=64k flush=100ms;
  client_body_temp_path {directory}; proxy_temp_path {directory}; fastcgi_temp_path {directory};
  uwsgi_temp_path {directory}; scgi_temp_path {directory};
  keepalive_requests 1000000;
  server {{ listen 127.0.0.1:{self.port}; location / {{ return 204; }} }}
}}
""")
        self.proc = subprocess.Popen(["/usr/sbin/nginx", "-c", conf, "-p", directory], stderr=subprocess.DEVNULL)
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.1).close()
                return
            except OSError:
                time.sleep(0.05)
        sys.exit("nginx did not start")

    def requests(self):
        if not os.path.exists(self.log):
            return []
        with open(self.log) as f:
            return [(float(t), k) for t, k in (line.split(" ", 1) for line in f.read().split("\n") if " " in line)]

    def stop(self):
        self.proc.terminate()
        self.proc.wait()


def write_config(directory, port, lead="1h"):
    path = os.path.join(directory, "config.json5")
    with open(path, "w") as out:
        out.write(f'{{ timeZone: "Europe/Berlin", channels: {{ hook: {{ type: "webhook", url: "http://127.0.0.1:{port}/hook" }} }},'
                  f' alerts: {{ before: ["{lead}"], channels: ["hook"], lateness: "6h" }} }}\n')
    return path


def env(store, config):
    return dict(os.environ, DATEBOOK_STORE=store, DATEBOOK_CONFIG=config, DATEBOOK_TZ="Europe/Berlin", NO_COLOR="1")


def timed(args, environment):
    start = time.perf_counter()
    proc = subprocess.run([BIN] + args, env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 75):
        sys.exit(f"datebook {' '.join(args)} exited {proc.returncode}")
    return elapsed


def tick_nothing_due(directory, port):
    source, _ = bench.prepare(100_000)
    store = os.path.join(directory, "planner-100k.sqlite3")
    shutil.copy(source, store)
    e = env(store, write_config(directory, port))
    timed(["--now", iso(NOW), "tick"], e)  # migrates and settles whatever is due at NOW
    samples = [timed(["--now", iso(NOW + dt.timedelta(seconds=i + 1)), "tick"], e) * 1000 for i in range(RUNS)]
    return statistics.median(samples), min(samples), store, e


def proc_stat(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12])
    with open(f"/proc/{pid}/status") as f:
        rss = next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
    return ticks, rss / 1024


def idle_usage(pid, seconds):
    """CPU % over `seconds` (after 3 s to settle) and peak RSS in MB of a process left alone."""
    time.sleep(3)
    ticks0, _ = proc_stat(pid)
    peak = 0.0
    start = time.time()
    while time.time() - start < seconds:
        time.sleep(1)
        peak = max(peak, proc_stat(pid)[1])
    ticks1, rss = proc_stat(pid)
    return (ticks1 - ticks0) / HZ / seconds * 100, max(peak, rss)


def run_idle(store, e):
    # Idle means nothing to send: the planner's alerts are anchored around 2026-12-01, so on the real
    # clock they would keep coming due. A config without channels leaves the daemon truly idle.
    e = dict(e)
    e.pop("DATEBOOK_NOW", None)
    idle_config = os.path.join(os.path.dirname(store), "idle.json5")
    with open(idle_config, "w") as out:
        out.write("{ timeZone: \"Europe/Berlin\" }\n")
    e["DATEBOOK_CONFIG"] = idle_config
    proc = subprocess.Popen([BIN, "run"], env=e, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    cpu, rss = idle_usage(proc.pid, IDLE)
    with open(f"/proc/{proc.pid}/smaps_rollup") as f:
        rollup = {line.split(":")[0]: int(line.split()[1]) / 1024 for line in f if line.split()[-1] == "kB"}
    with open(f"/proc/{proc.pid}/status") as f:
        anon = next(int(line.split()[1]) for line in f if line.startswith("RssAnon:")) / 1024
    proc.terminate()
    code = proc.wait()
    return cpu, rss, code, anon, rollup.get("Pss", 0), rollup.get("Shared_Clean", 0)


def daemon_lateness(directory, nginx):
    store = os.path.join(directory, "lateness.sqlite3")
    config = write_config(directory, nginx.port, lead="10m")
    e = env(store, config)
    base = int(time.time()) + 3
    dues = {}
    for i in range(5):
        due = base + 2 * i
        start = dt.datetime.fromtimestamp(due + 600, dt.timezone.utc)
        subprocess.run([BIN, "add", f"Lateness {i}", "--at", iso(start)], env=e, stdout=subprocess.PIPE, check=True)
    proc = subprocess.Popen([BIN, "run"], env=e, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(base + 10 - time.time() + 1)
    rss_after = proc_stat(proc.pid)[1]  # idle again, after five deliveries: libcurl and TLS initialised
    proc.terminate()
    proc.wait()
    time.sleep(0.3)
    for t, key in nginx.requests():
        if ":10m:" in key:
            start = dt.datetime.strptime(key.split(":", 2)[2].rsplit(":", 2)[0], "%Y-%m-%dT%H:%M:%SZ")
            dues[key] = t - (start.replace(tzinfo=dt.timezone.utc).timestamp() - 600)
    return sorted(dues.values()), rss_after


def many_due(directory, port, count=10_000):
    prefix = os.path.join(directory, "many")
    events = [{"id": f"{i:016x}", "title": f"Due {i}", "start": iso(NOW + dt.timedelta(hours=1)), "allDay": False,
               "end": None, "timeZone": "UTC", "symbol": "star.fill", "color": "primary", "notes": "",
               "alerts": ["1h"], "recurrence": None, "tasks": []} for i in range(count)]
    with open(prefix + ".json", "w") as out:
        json.dump({"datebook": 1, "events": events}, out)
    store = os.path.join(directory, "many.sqlite3")
    e = env(store, write_config(directory, port))
    subprocess.run([BIN, "import", prefix + ".json"], env=e, stdout=subprocess.DEVNULL, check=True)
    elapsed = timed(["--now", iso(NOW), "tick"], e)
    out = subprocess.run(["sqlite3", store, "SELECT state, count(*) FROM deliveries GROUP BY state"],
                         capture_output=True, text=True).stdout.strip() if shutil.which("sqlite3") else "?"
    return count / elapsed, elapsed, out


def main():
    directory = tempfile.mkdtemp(prefix="datebook-bench-")
    nginx = Nginx(directory)
    try:
        median, fastest, store, e = tick_nothing_due(directory, nginx.port)
        print(f"tick, nothing due, 100k planner: median {median:.1f} ms, min {fastest:.1f} ms (≤ 40)")
        rate, elapsed, states = many_due(directory, nginx.port)
        print(f"tick with 10,000 alerts due: {elapsed:.2f} s, {rate:,.0f} deliveries/s (≥ 5,000); ledger: {states}")
        late, rss_after = daemon_lateness(directory, nginx)
        print("daemon lateness (s): " + ", ".join(f"{x:.3f}" for x in late) + " (≤ 1)")
        print(f"run RSS after delivering {len(late)} alerts: {rss_after:.1f} MB")
        cpu, rss, code, anon, pss, shared = run_idle(store, e)
        print(f"run idle {IDLE} s on the 100k planner: CPU {cpu:.3f} %, RSS {rss:.1f} MB (≤ 30; anon {anon:.1f} MB, "
              f"PSS {pss:.1f} MB, shared library pages {shared:.1f} MB), exit on SIGTERM {code}")
    finally:
        nginx.stop()
        shutil.rmtree(directory, ignore_errors=True)
    ok = lambda b: "ok" if b else "OVER"  # noqa: E731
    lines = [
        "", "## Scheduler (bench/scheduler.py)", "",
        "| measure | result | budget | verdict |", "|---|---:|---:|---|",
        f"| `tick`, nothing due, 100k planner (median of {RUNS}) | {median:.1f} ms | 40 ms | {ok(median <= 40)} |",
        f"| `tick`, 10,000 alerts due to local nginx (204), incl. ledger | {rate:,.0f}/s | 5,000/s | {ok(rate >= 5000)} |",
        f"| `run` alert lateness (max of {len(late)}) | {max(late) if late else float('nan'):.3f} s | 1 s | {ok(bool(late) and max(late) <= 1)} |",
        f"| `run` idle CPU over {IDLE} s | {cpu:.3f} % | ≈ 0 | {ok(cpu < 0.5)} |",
        f"| `run` idle RSS (anon {anon:.1f} MB, PSS {pss:.1f} MB, shared clean library pages {shared:.1f} MB) "
        f"| {rss:.1f} MB | 30 MB | {ok(rss <= 30)} |",
        f"| `run` RSS, idle again after delivering {len(late)} alerts (curl and TLS initialised) "
        f"| {rss_after:.1f} MB | 30 MB | {ok(rss_after <= 30)} |",
    ]
    bench.write_section("## Scheduler (bench/scheduler.py)", lines)


if __name__ == "__main__":
    if not bench.help_requested(__doc__):
        main()
