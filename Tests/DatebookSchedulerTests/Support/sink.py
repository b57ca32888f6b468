#!/usr/bin/python3
"""Local HTTP sink for scheduler tests and benchmarks (stdlib only, 127.0.0.1 only).

Usage: sink.py RECORD_FILE
Prints its port as the first stdout line. Every request is appended to RECORD_FILE as one JSON
line {time, path, key} (key = the Idempotency-Key header, time = Unix seconds when the request
was read), flushed before the answer is sent, so a recorded request is one the client sent.
Query `?delay=S` waits S seconds before answering 204; `/status/<code>` answers <code>.
"""
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

LOCK = threading.Lock()
RECORD = open(sys.argv[1], "a", buffering=1)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def log_message(self, *args):
        pass

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        url = urlparse(self.path)
        with LOCK:
            RECORD.write(json.dumps({"time": time.time(), "path": url.path,
                                     "key": self.headers.get("Idempotency-Key", "")}) + "\n")
            RECORD.flush()
        delay = float(parse_qs(url.query).get("delay", ["0"])[0])
        if delay:
            time.sleep(delay)
        code = 204
        if url.path.startswith("/status/"):
            code = int(url.path.rsplit("/", 1)[1])
        self.send_response(code)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_PUT = do_POST


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print(server.server_address[1], flush=True)
server.serve_forever()
