#!/usr/bin/python3
"""Local SMTP sink for DatebookDelivery tests, using Debian's python3-aiosmtpd.

Usage: smtp_sink.py RECORD_FILE [--mode plain|starttls|smtps] [--cert PEM --key PEM]
                    [--auth USER:PASS]
Binds 127.0.0.1 on a free port, prints the port on the first stdout line, and appends
one JSON line per accepted message (a recipient starting with "reject" is refused with 550,
"later" with 451, "once" with 451 the first time only; a message to a recipient starting with "spam" is refused at its end with 554): envelope, raw bytes (base64), and the message as
parsed by Python's `email` package (decoded headers and parts).
A recipient slowN@… makes the server record the message, then wait N seconds before its
250 to the message's end (a server that accepts after the client gave up).
"""
import argparse
import asyncio
import base64
import email
import json
import logging
import ssl
import warnings
from email import policy

from aiosmtpd.smtp import SMTP, AuthResult, LoginPassword


def quiet():
    """Clients that fail TLS on purpose or hang up early are part of the tests: no tracebacks."""
    logging.getLogger("mail.log").setLevel(logging.CRITICAL)
    logging.getLogger("asyncio").setLevel(logging.CRITICAL)
    warnings.filterwarnings("ignore", category=DeprecationWarning)


def main():
    quiet()
    parser = argparse.ArgumentParser()
    parser.add_argument("record")
    parser.add_argument("--mode", default="plain")
    parser.add_argument("--cert")
    parser.add_argument("--key")
    parser.add_argument("--auth")
    args = parser.parse_args()
    record = open(args.record, "a", buffering=1)
    refused_once = set()

    class Handler:
        async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
            if address.startswith("reject"):
                return "550 5.1.1 no such user"
            if address.startswith("later"):
                return "451 4.3.0 try again later"
            if address.startswith("once") and address not in refused_once:
                refused_once.add(address)
                return "451 4.3.0 try again later"
            envelope.rcpt_tos.append(address)
            return "250 OK"

        async def handle_DATA(self, server, session, envelope):
            if any(address.startswith("spam") for address in envelope.rcpt_tos):
                return "554 5.7.1 Message refused: looks like spam"
            raw = envelope.original_content or envelope.content
            message = email.message_from_bytes(raw, policy=policy.default)
            parts = []
            for part in message.walk():
                if part.is_multipart():
                    continue
                parts.append({
                    "content_type": part.get_content_type(),
                    "charset": part.get_content_charset(),
                    "transfer_encoding": part.get("Content-Transfer-Encoding"),
                    "content": part.get_content(),
                })
            record.write(json.dumps({
                "mail_from": envelope.mail_from,
                "rcpt_tos": envelope.rcpt_tos,
                "raw": base64.b64encode(raw).decode(),
                "tls": session.ssl is not None
                or server.transport.get_extra_info("ssl_object") is not None,
                "authenticated": bool(session.authenticated),
                "client_port": session.peer[1] if session.peer else None,
                "header_names": [name for name, _ in message.items()],
                "subject": str(message["subject"]),
                "from": str(message["from"]),
                "to": str(message["to"]),
                "date": str(message["date"]),
                "message_id": str(message["message-id"]),
                "content_type": message.get_content_type(),
                "defects": [type(d).__name__ for d in message.defects],
                "parts": parts,
            }) + "\n")
            slow = [a for a in envelope.rcpt_tos if a.startswith("slow")]
            if slow:
                await asyncio.sleep(float(slow[0][4:].split("@")[0] or "1"))
            return "250 OK accepted"

    def authenticator(server, session, envelope, mechanism, auth_data):
        if args.auth and isinstance(auth_data, LoginPassword):
            user, password = args.auth.split(":", 1)
            if auth_data.login == user.encode() and auth_data.password == password.encode():
                return AuthResult(success=True)
        return AuthResult(success=False, handled=False)

    context = None
    if args.cert:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(args.cert, args.key)

    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    options = {"hostname": "localhost", "loop": loop}
    if args.auth:
        options.update(authenticator=authenticator, auth_required=True,
                       auth_require_tls=args.mode == "starttls")
    if args.mode == "starttls":
        options.update(tls_context=context, require_starttls=True)

    def factory():
        return SMTP(Handler(), **options)

    server = loop.run_until_complete(loop.create_server(
        factory, "127.0.0.1", 0, ssl=context if args.mode == "smtps" else None))
    print(server.sockets[0].getsockname()[1], flush=True)
    loop.run_forever()


if __name__ == "__main__":
    main()
