#!/usr/bin/env python3
"""Deterministic synthetic planners for the benchmarks.

Writes planner JSON documents (the `datebook export` shape) with N events, 0–6 tasks each,
starts spread from a year before to two years after the anchor (2026-12-01T09:00Z), about 10%
of them all-day. The same N and seed always give the same bytes.

    generate.py N OUT_PREFIX [--chunk 100000] [--seed 7]

writes OUT_PREFIX-000.json, OUT_PREFIX-001.json, … (one file per chunk).
"""
import argparse
import datetime as dt
import json
import random

ANCHOR = dt.datetime(2026, 12, 1, 9, 0, tzinfo=dt.timezone.utc)
SYMBOLS = ["house.fill", "ticket.fill", "gamecontroller.fill", "theatermasks.fill", "gift.fill", "leaf.fill",
           "briefcase.fill", "airplane", "car.fill", "book.fill", "star.fill", "bell.fill", "heart.fill"]
COLORS = ["primary", "gray", "red", "orange", "yellow", "green", "mint", "cyan", "indigo", "purple"]
ZONES = ["Europe/Berlin", "America/New_York", "Asia/Tokyo", "UTC"]
WORDS = ["Team", "sync", "Dentist", "Birthday", "Trip", "Review", "Lunch", "Call", "Concert", "Launch",
         "Meeting", "Party", "Workshop", "Flight", "Dinner", "Run", "Class", "Visit"]
STATUSES = ["todo", "todo", "todo", "doing", "done", "done"]


def event(rng: random.Random, n: int) -> dict:
    offset = rng.randint(-365 * 86400, 2 * 365 * 86400)
    start = ANCHOR + dt.timedelta(seconds=offset - offset % 900)
    all_day = rng.random() < 0.1
    tasks = [{"id": f"{n:08x}"[-4:] + f"{k:04x}", "text": f"{rng.choice(WORDS)} {rng.choice(WORDS).lower()} {k + 1}",
              "status": rng.choice(STATUSES)} for k in range(rng.randint(0, 6))]
    return {
        "id": f"{rng.getrandbits(64):016x}",
        "title": f"{rng.choice(WORDS)} {rng.choice(WORDS).lower()} #{n}",
        "start": start.strftime("%Y-%m-%d") if all_day else start.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "allDay": all_day,
        "end": None,
        "timeZone": rng.choice(ZONES),
        "symbol": rng.choice(SYMBOLS),
        "color": rng.choice(COLORS),
        "notes": "",
        "alerts": rng.choice([[], ["1d"], ["1h"], ["1d", "1h"]]),
        "recurrence": None,
        "tasks": tasks,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("count", type=int)
    parser.add_argument("prefix")
    parser.add_argument("--chunk", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    written = 0
    part = 0
    while written < args.count:
        size = min(args.chunk, args.count - written)
        events = [event(rng, written + i) for i in range(size)]
        with open(f"{args.prefix}-{part:03d}.json", "w", encoding="utf-8") as out:
            json.dump({"datebook": 1, "events": events}, out, ensure_ascii=False, separators=(",", ":"))
        written += size
        part += 1
    print(part)


if __name__ == "__main__":
    main()
