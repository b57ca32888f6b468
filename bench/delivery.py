#!/usr/bin/env python3
"""Delivery benchmark: datebook's libcurl layer vs `curl --parallel` vs Apprise, same sinks.

Starts nginx (answers 204 on 127.0.0.1) and an aiosmtpd server, then measures
  * 10,000 generic-webhook POSTs: datebook-bench (curl_multi, 32 connections), curl --parallel
    --parallel-max 32, and Apprise (json:// to the same nginx; fewer, rate extrapolated);
  * 200 emails: datebook-bench (libcurl SMTP), Python smtplib, Apprise (mailto://).
Appends a table to bench/results-delivery.md. Run by `make bench` (release build first).
"""
import json
import os
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import bench

ROOT = bench.ROOT
BENCH = os.path.join(ROOT, ".build", "release", "datebook-bench")
HTTP_COUNT = int(os.environ.get("BENCH_HTTP_COUNT", "10000"))
MAIL_COUNT = int(os.environ.get("BENCH_MAIL_COUNT", "200"))
APPRISE_HTTP_COUNT = int(os.environ.get("BENCH_APPRISE_HTTP_COUNT", "1000"))
# Apprise's mailto:// is slow (seconds per email on a loaded machine); 0 skips that row.
# Apprise needs ~4.5 s per mailto:// message here; 5 messages give its rate without a 7-minute wait.
APPRISE_MAIL_COUNT = int(os.environ.get("BENCH_APPRISE_MAIL_COUNT", "5"))
# Runs per datebook / curl / smtplib row; the row shows the median run (by rate).
REPEAT = max(1, int(os.environ.get("BENCH_REPEAT", "1")))


def median_run(measure):
    runs = sorted((measure() for _ in range(REPEAT)), key=lambda run: run[0])
    return runs[len(runs) // 2]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, timeout=10):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    sys.exit(f"nothing listens on {port}")


def start_nginx(workdir):
    port = free_port()
    conf = os.path.join(workdir, "nginx.conf")
    with open(conf, "w") as out:
        out.write(f"""
worker_processes 1; daemon off; pid {workdir}/nginx.pid; error_log {workdir}/error.log;
events {{ worker_connections 1024; }}
http {{
  access_log off; client_body_temp_path {workdir}; keepalive_requests 100000;
  server {{ listen 127.0.0.1:{port}; location / {{ return 204; }} }}
}}
""")
    proc = subprocess.Popen(["/usr/sbin/nginx", "-c", conf, "-p", workdir], stderr=subprocess.DEVNULL)
    wait_port(port)
    return proc, port


def start_smtp(workdir):
    script = os.path.join(ROOT, "Tests", "DatebookDeliveryTests", "Support", "smtp_sink.py")
    proc = subprocess.Popen(["/usr/bin/python3", script, os.path.join(workdir, "mail.jsonl")], stdout=subprocess.PIPE)
    port = int(proc.stdout.readline())
    return proc, port


def timed(cmd, **kwargs):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, **kwargs)
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return seconds, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def datebook(mode, url, count):
    out = subprocess.run([BENCH, mode, url, str(count)], check=True, capture_output=True, text=True).stdout
    result = json.loads(out)
    if result["ok"] != count:
        sys.exit(f"datebook-bench {mode}: only {result['ok']} of {count} accepted")
    return result["seconds"], result["cpu"]


def curl_parallel(url, count, workdir):
    config = os.path.join(workdir, "curl.cfg")
    body = os.path.join(workdir, "body.json")
    with open(body, "w") as out:
        json.dump({"schema": "datebook.v1", "kind": "alert", "title": "Standup in 10 minutes"}, out)
    entry = (f'url = "{url}"\nheader = "Content-Type: application/json"\n'
             f'data-binary = "@{body}"\noutput = "/dev/null"\n')
    with open(config, "w") as out:
        out.write("next\n".join([entry] * count))
    return timed(["curl", "--silent", "--parallel", "--parallel-max", "32", "-K", config])


def apprise_available():
    return subprocess.run([sys.executable, "-c", "import apprise"], capture_output=True).returncode == 0


def apprise_http(port, count):
    code = f"""
import apprise
a = apprise.Apprise()
for n in range({count}):
    a.add("json://127.0.0.1:{port}/")
assert a.notify(title="Standup", body="in 10 minutes")
"""
    return timed([sys.executable, "-c", code])


def apprise_mail(port, count):
    code = f"""
import apprise
a = apprise.Apprise()
a.add("mailto://bench@127.0.0.1:{port}?from=bench@example.org&to=me@example.org&secure=no")
for n in range({count}):
    assert a.notify(title=f"Standup #{{n}}", body="in 10 minutes")
"""
    return timed([sys.executable, "-c", code])


def smtplib_mail(port, count):
    code = f"""
import smtplib
from email.message import EmailMessage
for n in range({count}):
    m = EmailMessage(); m["From"] = "bench@example.org"; m["To"] = "me@example.org"; m["Subject"] = f"Standup #{{n}}"
    m.set_content("in 10 minutes")
    with smtplib.SMTP("127.0.0.1", {port}) as s:
        s.send_message(m)
"""
    return timed(["/usr/bin/python3", "-c", code])


def smtplib_mail_alternative(port, count):
    """smtplib sending what datebook sends: multipart/alternative, quoted-printable text and
    HTML parts, Date and Message-ID; the sink's parsing cost depends on the message shape."""
    code = f"""
import smtplib
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
for n in range({count}):
    m = EmailMessage(); m["From"] = '"bench" <bench@example.org>'; m["To"] = "<me@example.org>"
    m["Subject"] = f"Standup #{{n}} in 10 minutes"; m["Date"] = formatdate(); m["Message-ID"] = make_msgid(domain="bench")
    m["Auto-Submitted"] = "auto-generated"
    m.set_content(f"Standup #{{n}}\\r\\nTue 2026-12-01 09:00 (Europe/Berlin)", cte="quoted-printable")
    m.add_alternative(f"<p><strong>Standup #{{n}}</strong></p>", subtype="html", cte="quoted-printable")
    with smtplib.SMTP("127.0.0.1", {port}) as s:
        s.send_message(m)
"""
    return timed(["/usr/bin/python3", "-c", code])


def main():
    workdir = tempfile.mkdtemp(prefix="datebook-bench-")
    nginx, http_port = start_nginx(workdir)
    smtp, smtp_port = start_smtp(workdir)
    url = f"http://127.0.0.1:{http_port}/hook"
    rows = []
    try:
        datebook("http", url, 500)  # warm-up
        seconds, cpu = median_run(lambda: datebook("http", url, HTTP_COUNT))
        rows.append(("webhook POST → nginx 204", "datebook (libcurl multi, 32 conns)", HTTP_COUNT, seconds, cpu)); print(rows[-1], flush=True)
        if shutil.which("curl"):
            seconds, cpu = median_run(lambda: curl_parallel(url, HTTP_COUNT, workdir))
            rows.append(("webhook POST → nginx 204", "curl --parallel --parallel-max 32", HTTP_COUNT, seconds, cpu)); print(rows[-1], flush=True)
        if apprise_available():
            seconds, cpu = apprise_http(http_port, APPRISE_HTTP_COUNT)
            rows.append(("webhook POST → nginx 204", "Apprise json://", APPRISE_HTTP_COUNT, seconds, cpu)); print(rows[-1], flush=True)
        seconds, cpu = median_run(lambda: datebook("smtp", f"smtp://127.0.0.1:{smtp_port}", MAIL_COUNT))
        rows.append(("email → aiosmtpd", "datebook (libcurl SMTP)", MAIL_COUNT, seconds, cpu)); print(rows[-1], flush=True)
        seconds, cpu = median_run(lambda: smtplib_mail(smtp_port, MAIL_COUNT))
        rows.append(("email → aiosmtpd", "Python smtplib", MAIL_COUNT, seconds, cpu)); print(rows[-1], flush=True)
        seconds, cpu = median_run(lambda: smtplib_mail_alternative(smtp_port, MAIL_COUNT))
        rows.append(("email → aiosmtpd", "Python smtplib, datebook's MIME shape", MAIL_COUNT, seconds, cpu)); print(rows[-1], flush=True)
        if apprise_available() and APPRISE_MAIL_COUNT > 0:
            seconds, cpu = apprise_mail(smtp_port, APPRISE_MAIL_COUNT)
            rows.append(("email → aiosmtpd", "Apprise mailto://", APPRISE_MAIL_COUNT, seconds, cpu)); print(rows[-1], flush=True)
    finally:
        nginx.terminate()
        smtp.terminate()
        shutil.rmtree(workdir, ignore_errors=True)
    lines = ["# Delivery benchmark", "",
             f"Release build, loopback only, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}, "
             f"median of {REPEAT} run(s) per datebook/curl/smtplib row. Budgets: webhooks ≥ 25,000/s and ≤ 50 µs client CPU each; "
             "email ≥ 200/s.", "",
             "| workload | client | n | seconds | per second | client CPU µs/delivery |", "|---|---|---:|---:|---:|---:|"]
    for workload, client, n, seconds, cpu in rows:
        rate = n / seconds
        shown = f"{rate:,.0f}" if rate >= 10 else f"{rate:.2f}"
        lines.append(f"| {workload} | {client} | {n:,} | {seconds:.3f} | {shown} | {cpu / n * 1e6:.1f} |")
        print(f"{workload:28} {client:38} {n:>6} {seconds:8.3f}s {shown:>10}/s {cpu / n * 1e6:8.1f} µs")
    with open(os.path.join(ROOT, "bench", "results-delivery.md"), "w", encoding="utf-8") as out:
        out.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    if not bench.help_requested(__doc__):
        main()
