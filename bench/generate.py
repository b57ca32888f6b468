#!/usr/bin/env python3
"""Deterministic synthetic planners for the benchmarks.

Writes planner JSON documents (the `datebook export` shape) with N events, 0–6 tasks each,
starts spread from a year before to two years after the anchor (2026-12-01T09:00Z), about 10%
of them all-day. The same N and seed always give the same bytes.

    generate.py N OUT_PREFIX [--chunk 100000] [--seed 7] [--recurring 0.1] [--overdue 0.5] [--hostile K] [--ics] [--calcurse]

writes OUT_PREFIX-000.json, OUT_PREFIX-001.json, … (one file per chunk). `--recurring F` makes that
fraction of events weekly-recurring (`FREQ=WEEKLY`); `--overdue F` moves that fraction into the 90 days
before the anchor, timed, each with at least one open task (the digest's Overdue section); `--ics` writes one OUT_PREFIX.ics with N
VEVENTs instead (TZID starts, VALARMs, tasks as VTODOs with RELATED-TO). `--hostile K` makes the
first K events recur on every second of the year (the 743-byte RRULE of issue 13, `HOSTILE_RULE`).
`--calcurse` writes one OUT_PREFIX.apts instead: the same events in calcurse's appointment format
(wall-clock times in Europe/Berlin, the zone the benchmarks run calcurse in; a timed event lasts an
hour; weekly events as `{1W}`), for the agenda beside calcurse (bench/peers.py). Tasks have no
place there and are left out.
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
# BYMONTH × BYMONTHDAY × BYHOUR × BYMINUTE × BYSECOND: 29M occurrences a year (issue 13).
HOSTILE_RULE = ("FREQ=YEARLY;BYMONTH=" + ",".join(map(str, range(1, 13)))
                + ";BYMONTHDAY=" + ",".join(map(str, range(1, 29)))
                + ";BYHOUR=" + ",".join(map(str, range(24)))
                + ";BYMINUTE=" + ",".join(map(str, range(60)))
                + ";BYSECOND=" + ",".join(map(str, range(60))))


def event(rng: random.Random, n: int, recurring: float = 0.0, overdue: float = 0.0) -> dict:
    offset = rng.randint(-365 * 86400, 2 * 365 * 86400)
    # Drawn only when asked for, so the planners without --overdue keep their bytes.
    late = overdue > 0 and rng.random() < overdue
    if late:
        offset = rng.randint(-90 * 86400, -3600)
    start = ANCHOR + dt.timedelta(seconds=offset - offset % 900)
    all_day = rng.random() < 0.1 and not late
    tasks = [{"id": f"{n:08x}"[-4:] + f"{k:04x}", "text": f"{rng.choice(WORDS)} {rng.choice(WORDS).lower()} {k + 1}",
              "status": rng.choice(STATUSES)} for k in range(rng.randint(0, 6))]
    if late and not any(task["status"] != "done" for task in tasks):
        tasks.append({"id": f"{n:08x}"[-4:] + "ffff", "text": "Follow up", "status": "todo"})
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
        "recurrence": "FREQ=WEEKLY" if recurring > 0 and rng.random() < recurring else None,
        "tasks": tasks,
    }


def ics_text(value: str) -> str:
    return value.replace("\\", "\\\\").replace(";", "\\;").replace(",", "\\,").replace("\n", "\\n")


def write_ics(path: str, events) -> None:
    """One VCALENDAR; zoned starts use TZID with local wall-clock time."""
    from zoneinfo import ZoneInfo
    with open(path, "w", encoding="utf-8", newline="") as out:
        out.write("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//datebook//bench//EN\r\n")
        for e in events:
            uid = e["id"] + "@bench.example.org"
            lines = ["BEGIN:VEVENT", "UID:" + uid, "DTSTAMP:20260101T000000Z", "SUMMARY:" + ics_text(e["title"])]
            if e["allDay"]:
                lines.append("DTSTART;VALUE=DATE:" + e["start"].replace("-", ""))
            else:
                start = dt.datetime.strptime(e["start"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=dt.timezone.utc)
                if e["timeZone"] == "UTC":
                    lines.append("DTSTART:" + start.strftime("%Y%m%dT%H%M%SZ"))
                else:
                    local = start.astimezone(ZoneInfo(e["timeZone"]))
                    lines.append(f"DTSTART;TZID={e['timeZone']}:" + local.strftime("%Y%m%dT%H%M%S"))
                lines.append("DURATION:PT1H")
            if e["recurrence"]:
                lines.append("RRULE:" + e["recurrence"])
            for lead in e["alerts"]:
                lines += ["BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:Reminder", "TRIGGER:" + ("-P" + lead.upper() if lead.endswith("d") else "-PT" + lead.upper()), "END:VALARM"]
            lines.append("END:VEVENT")
            for task in e["tasks"]:
                status = {"todo": "NEEDS-ACTION", "doing": "IN-PROCESS", "done": "COMPLETED"}[task["status"]]
                lines += ["BEGIN:VTODO", "UID:" + task["id"] + "." + uid, "DTSTAMP:20260101T000000Z",
                          "SUMMARY:" + ics_text(task["text"]), "STATUS:" + status, "RELATED-TO:" + uid, "END:VTODO"]
            out.write("\r\n".join(lines) + "\r\n")
        out.write("END:VCALENDAR\r\n")


CALCURSE_ZONE = "Europe/Berlin"


def write_calcurse(path: str, events: list) -> None:
    """calcurse's `apts` file: `MM/DD/YYYY @ HH:MM -> MM/DD/YYYY @ HH:MM [{1W}] |title` for a timed
    event, `MM/DD/YYYY [1] [{1W}] title` for an all-day one (calcurse(1), FILES)."""
    from zoneinfo import ZoneInfo
    zone = ZoneInfo(CALCURSE_ZONE)
    lines = []
    for e in events:
        weekly = "{1W} " if e["recurrence"] else ""
        if e["allDay"]:
            day = dt.datetime.strptime(e["start"], "%Y-%m-%d")
            lines.append((day.strftime("%Y-%m-%d"), f"{day:%m/%d/%Y} [1] {weekly}{e['title']}"))
            continue
        start = dt.datetime.strptime(e["start"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=dt.timezone.utc).astimezone(zone)
        end = start + dt.timedelta(hours=1)
        lines.append((start.strftime("%Y-%m-%d %H:%M"), f"{start:%m/%d/%Y @ %H:%M} -> {end:%m/%d/%Y @ %H:%M} {weekly}|{e['title']}"))
    # In date order, as calcurse saves it: it keeps appointments in sorted lists, and reading an
    # unsorted file of 100k costs it minutes instead of seconds.
    lines.sort(key=lambda pair: pair[0])
    with open(path, "w", encoding="utf-8") as out:
        out.write("".join(line + "\n" for _, line in lines))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("count", type=int)
    parser.add_argument("prefix")
    parser.add_argument("--chunk", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--recurring", type=float, default=0.0, help="fraction of weekly-recurring events")
    parser.add_argument("--overdue", type=float, default=0.0,
                        help="fraction of events in the 90 days before the anchor with open tasks")
    parser.add_argument("--ics", action="store_true", help="write one PREFIX.ics instead of JSON chunks")
    parser.add_argument("--hostile", type=int, default=0, help="events (the first ones) with HOSTILE_RULE")
    parser.add_argument("--calcurse", action="store_true", help="write one PREFIX.apts (calcurse) instead of JSON chunks")
    args = parser.parse_args()
    rng = random.Random(args.seed)

    def made(n):
        e = event(rng, n, args.recurring, args.overdue)
        if n < args.hostile:
            # Started before the anchor, so every window the benchmarks use is inside its range.
            start = ANCHOR - dt.timedelta(days=30)
            e.update(recurrence=HOSTILE_RULE, allDay=False, start=start.strftime("%Y-%m-%dT%H:%M:%SZ"))
        return e

    if args.ics or args.calcurse:
        # The iCalendar file is written as the events are made: a list of 1M events held 2 GB.
        events = (made(i) for i in range(args.count))
        if args.ics:
            write_ics(args.prefix + ".ics", events)
        else:
            write_calcurse(args.prefix + ".apts", list(events))
        print(1)
        return
    written = 0
    part = 0
    while written < args.count:
        size = min(args.chunk, args.count - written)
        events = [made(written + i) for i in range(size)]
        with open(f"{args.prefix}-{part:03d}.json", "w", encoding="utf-8") as out:
            json.dump({"datebook": 1, "events": events}, out, ensure_ascii=False, separators=(",", ":"))
        written += size
        part += 1
    print(part)


if __name__ == "__main__":
    main()
