#!/usr/bin/env python3
"""Validates Slack incoming-webhook payloads with slack_sdk's Block Kit models (pip slack-sdk).

Reads a JSON array of payloads on stdin. Each block is parsed by slack_sdk and checked with its
own validate_json (text lengths, element counts, required fields); a block slack_sdk cannot
parse, a key it drops, more than 50 blocks or an empty fallback `text` is a problem too.
Prints one line per problem ("PAYLOAD.blocks[N]: message") and exits 1 when there is any.
"""
import json
import sys

from slack_sdk.errors import SlackObjectFormationError
from slack_sdk.models.blocks import Block


def dropped(raw, parsed, path=""):
    """Keys of `raw` that slack_sdk's model does not carry (an unknown field Slack would refuse)."""
    if isinstance(raw, dict) and isinstance(parsed, dict):
        for key, value in raw.items():
            if key not in parsed:
                yield f"{path}.{key}"
            else:
                yield from dropped(value, parsed[key], f"{path}.{key}")
    elif isinstance(raw, list) and isinstance(parsed, list):
        for index, (a, b) in enumerate(zip(raw, parsed)):
            yield from dropped(a, b, f"{path}[{index}]")


def main():
    problems = []
    for index, payload in enumerate(json.load(sys.stdin)):
        blocks = payload.get("blocks", [])
        if len(blocks) > 50:
            problems.append(f"{index}: {len(blocks)} blocks (Slack takes at most 50)")
        if not isinstance(payload.get("text"), str) or not payload["text"].strip():
            problems.append(f"{index}: no fallback text")
        for number, raw in enumerate(blocks):
            where = f"{index}.blocks[{number}]"
            try:
                block = Block.parse(raw)
                if block is None:
                    problems.append(f"{where}: not a block slack_sdk knows: {raw.get('type')}")
                    continue
                block.validate_json()
                for key in dropped(raw, block.to_dict()):
                    problems.append(f"{where}: unknown key {key}")
            except (SlackObjectFormationError, KeyError, TypeError, ValueError) as error:
                problems.append(f"{where}: {error}")
    for problem in problems:
        print(problem)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
