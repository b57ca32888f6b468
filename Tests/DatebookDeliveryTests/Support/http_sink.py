#!/usr/bin/python3
"""Scriptable local HTTP sink for DatebookDelivery tests (stdlib only).

Usage: http_sink.py RECORD_FILE [CERT_PEM KEY_PEM]
With a certificate and key the sink speaks HTTPS.
Binds 127.0.0.1 on a free port and prints the port as the first stdout line.
Every request is appended to RECORD_FILE as one JSON line
{time, method, path, client_port, headers, body (base64)}, written and flushed before the answer
is sent (time = Unix seconds when the request was read), so a recorded request is one the client sent.

Paths:
  /status/<code>[?retry_after=N]  answer <code> (Retry-After header when given)
  /discord429?retry_after=F       429 with Discord's JSON body {"retry_after": F}
  /slow?seconds=N                 drip one byte per second for N seconds
  /hang                           read the request, never answer
  /reset                          close the connection without answering
  /redirect-file                  302 to file:///etc/passwd
  /redirect-to/<path>             302 to /<path> on this sink
  /big?bytes=N                    answer N bytes
  /feed?file=PATH[&type=T]        serve a local file with ETag/Last-Modified; 304 when
                                  If-None-Match matches (feeds). When PATH.mode exists, its
                                  content names another path to answer instead (status/500,
                                  html, endless, redirect-file, redirect-to/…), so a feed can start failing
  /html                           200 text/html login page (a feed URL that went wrong)
  /multistatus?body=XML           207 application/xml with XML as the body (WebDAV answers, broken ones too)
  /cut-multistatus?body=XML&once=PATH
                                  207 whose Content-Length promises XML, but the connection closes after
                                  half of it; once PATH exists (the first cut answer creates it), the whole XML
  /endless                        200 text/calendar that never ends (size caps)
  /fail-nth/<n>[/…]               the n-th request to this path answers 500, every other one 204
                                  (a message sent in parts whose part n fails once)
  anything else[?delay=S]         204 No Content (after S seconds)
"""
import base64
import json
import ssl
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

LOCK = threading.Lock()
SEEN = {}  # requests per path, for /fail-nth
RECORD = open(sys.argv[1], "a", buffering=1)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def log_message(self, *args):
        pass

    def answer(self, code, body=b"", headers=()):
        self.send_response(code)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if body:
            self.wfile.write(body)

    def handle_any(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        url = urlparse(self.path)
        query = parse_qs(url.query)
        with LOCK:
            RECORD.write(json.dumps({
                "time": time.time(),
                "method": self.command,
                "path": self.path,
                "client_port": self.client_address[1],
                "headers": [[k, v] for k, v in self.headers.items()],
                "body": base64.b64encode(body).decode(),
            }) + "\n")
        path = url.path
        if path.startswith("/fail-nth/"):
            with LOCK:
                SEEN[path] = SEEN.get(path, 0) + 1
                seen = SEEN[path]
            return self.answer(500 if seen == int(path.split("/")[2]) else 204)
        if path == "/feed":
            try:
                with open(query["file"][0] + ".mode") as mode:
                    path = "/" + mode.read().strip()
            except OSError:
                pass
        if path.startswith("/status/"):
            code = int(path.split("/")[2])
            headers = []
            if "retry_after" in query:
                headers.append(("Retry-After", query["retry_after"][0]))
            self.answer(code, b'{"ok":false}' if code >= 400 else b"ok", headers)
        elif path == "/discord429":
            after = float(query.get("retry_after", ["1.5"])[0])
            body = json.dumps({"message": "You are being rate limited.",
                               "retry_after": after, "global": False}).encode()
            self.answer(429, body, [("Content-Type", "application/json")])
        elif path == "/slow":
            seconds = int(query.get("seconds", ["5"])[0])
            self.send_response(200)
            self.send_header("Content-Length", str(seconds))
            self.end_headers()
            for _ in range(seconds):
                self.wfile.write(b".")
                self.wfile.flush()
                time.sleep(1)
        elif path == "/hang":
            time.sleep(3600)
        elif path == "/reset":
            self.close_connection = True
            self.connection.close()
        elif path == "/redirect-file":
            self.answer(302, b"", [("Location", "file:///etc/passwd")])
        elif path.startswith("/redirect-to/"):
            self.answer(302, b"", [("Location", path[len("/redirect-to"):])])
        elif path == "/big":
            size = int(query.get("bytes", ["1000"])[0])
            self.answer(200, b"x" * size)
        elif path == "/feed":
            self.serve_file(query["file"][0], query.get("type", ["text/calendar; charset=utf-8"])[0])
        elif path == "/html":
            self.answer(200, b"<!DOCTYPE html><html><head><title>Sign in</title></head><body>Sign in</body></html>",
                        [("Content-Type", "text/html; charset=utf-8")])
        elif path == "/multistatus":
            self.answer(207, query["body"][0].encode(), [("Content-Type", "application/xml; charset=utf-8")])
        elif path == "/cut-multistatus":
            import os
            body = query["body"][0].encode()
            flag = query["once"][0]
            if os.path.exists(flag):
                self.answer(207, body, [("Content-Type", "application/xml; charset=utf-8")])
                return
            open(flag, "w").close()
            self.send_response(207)
            self.send_header("Content-Type", "application/xml; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body[:len(body) // 2])
            self.wfile.flush()
            self.close_connection = True
            self.connection.close()
        elif path == "/endless":
            self.send_response(200)
            self.send_header("Content-Type", "text/calendar")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            chunk = b"BEGIN:VCALENDAR\r\n" + b"X-PAD:" + b"x" * 65000 + b"\r\n"
            try:
                while True:
                    self.wfile.write(chunk)
            except OSError:
                pass
        else:
            delay = float(query.get("delay", ["0"])[0])
            if delay:
                time.sleep(delay)
            self.answer(204)

    def serve_file(self, name, content_type):
        import os
        with open(name, "rb") as handle:
            body = handle.read()
        info = os.stat(name)
        etag = '"%x-%x"' % (info.st_size, info.st_mtime_ns)
        modified = time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(info.st_mtime))
        headers = [("ETag", etag), ("Last-Modified", modified), ("Content-Type", content_type)]
        if self.headers.get("If-None-Match") == etag:
            self.answer(304, b"", headers[:2])
        else:
            self.answer(200, body, headers)

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_PROPFIND = do_REPORT = handle_any


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256

    def handle_error(self, request, client_address):
        # Clients that hang up early (timeouts, size caps, refused TLS) are part of the tests:
        # no traceback for them; anything else is still printed.
        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError, ssl.SSLError)):
            return
        super().handle_error(request, client_address)


def main():
    server = Server(("127.0.0.1", 0), Handler)
    if len(sys.argv) >= 4:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(sys.argv[2], sys.argv[3])
        server.socket = context.wrap_socket(server.socket, server_side=True)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
