#!/usr/bin/env python3
"""Validates Microsoft Teams webhook payloads against the Adaptive Card 1.5 JSON schema (pip jsonschema).

Reads a JSON array of payloads on stdin. Each must be a `message` with one attachment of type
`application/vnd.microsoft.card.adaptive` whose card validates against
`adaptive-card-1.5/adaptive-card.json` (Microsoft's schema, MIT; see the README there), uses no
element or property newer than the card's own `version` (Teams would show the fallback instead),
and is not empty (a body whose first TextBlock has text). `msteams` is Teams' own key beside the
card's (`{"width": "Full"}`), not in the card schema: it is checked here and left out of the rest.
Prints one line per problem ("PAYLOAD: path: message") and exits 1 when there is any.
"""
import json
import os
import sys

import jsonschema

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA = json.load(open(os.path.join(HERE, "adaptive-card-1.5", "adaptive-card.json"), encoding="utf-8"))
DEFINITIONS = SCHEMA["definitions"]


def version(text):
    return tuple(int(part) for part in str(text).split("."))


def newer_parts(node, card_version, path):
    """Elements and properties whose schema `version` is newer than the card's."""
    if isinstance(node, list):
        for index, item in enumerate(node):
            yield from newer_parts(item, card_version, f"{path}[{index}]")
        return
    if not isinstance(node, dict):
        return
    definition = DEFINITIONS.get(node.get("type"), {}) if isinstance(node.get("type"), str) else {}
    if "version" in definition and version(definition["version"]) > card_version:
        yield f"{path}: {node['type']} needs Adaptive Cards {definition['version']}"
    properties = definition.get("properties", {})
    for key, value in node.items():
        wanted = properties.get(key, {}).get("version") if isinstance(properties.get(key), dict) else None
        if wanted and version(wanted) > card_version:
            yield f"{path}.{key}: needs Adaptive Cards {wanted}"
        yield from newer_parts(value, card_version, f"{path}.{key}")


def problems(payload):
    if payload.get("type") != "message":
        yield "type: not a message"
    attachments = payload.get("attachments")
    if not isinstance(attachments, list) or len(attachments) != 1:
        yield "attachments: expected exactly one"
        return
    attachment = attachments[0]
    if attachment.get("contentType") != "application/vnd.microsoft.card.adaptive":
        yield "attachments[0].contentType: not an Adaptive Card"
    card = dict(attachment.get("content") or {})
    host = card.pop("msteams", {})
    if not isinstance(host, dict) or set(host) - {"width"} or host.get("width", "Full") != "Full":
        yield f"content.msteams: unexpected {host!r}"
    for error in jsonschema.Draft6Validator(SCHEMA).iter_errors(card):
        where = "content" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
        yield f"{where}: {error.message[:300]}"
    card_version = version(card.get("version", "1.0"))
    if card_version > (1, 5):
        yield f"content.version: {card['version']} is newer than the schema"
    yield from newer_parts(card.get("body", []), card_version, "content.body")
    yield from newer_parts(card.get("actions", []), card_version, "content.actions")
    body = card.get("body") or []
    first = body[0] if body and isinstance(body[0], dict) else {}
    if first.get("type") != "TextBlock" or not str(first.get("text", "")).strip():
        yield "content.body[0]: an empty card (no title TextBlock)"


def main():
    found = []
    for index, payload in enumerate(json.load(sys.stdin)):
        found += [f"{index}: {problem}" for problem in problems(payload)]
    for line in found:
        print(line)
    sys.exit(1 if found else 0)


if __name__ == "__main__":
    main()
