#!/usr/bin/env python3
"""Occurrences of an .ics file as another program reads them (icalendar + recurring-ical-events).

usage: ics-occurrences.py FILE WINDOW_START WINDOW_END DEFAULT_TZ
  WINDOW_* are ISO 8601 instants (2026-01-01T00:00:00Z); floating times are read in DEFAULT_TZ.
Prints one line per occurrence, sorted: "SUMMARY<TAB>START<TAB>END", each time "D:YYYY-MM-DD"
for a date and "T:<epoch seconds>" otherwise; END is "-" without one. Exit 3 if a module is missing.
"""
import sys
from datetime import date, datetime, timezone

try:
    from zoneinfo import ZoneInfo
    import icalendar
    import recurring_ical_events
except ImportError as error:
    print(f"missing Python module: {error.name}", file=sys.stderr)
    sys.exit(3)


def instant(text):
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(timezone.utc)


def show(value, zone):
    if isinstance(value, datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=zone)
        return f"T:{int(value.timestamp())}"
    if isinstance(value, date):
        return f"D:{value.isoformat()}"
    return "-"


def main():
    path, start, end, default_tz = sys.argv[1:5]
    zone = ZoneInfo(default_tz)
    with open(path, "rb") as handle:
        calendar = icalendar.Calendar.from_ical(handle.read())
    lines = []
    for event in recurring_ical_events.of(calendar).between(instant(start), instant(end)):
        ends = event.get("DTEND")
        lines.append(f"{event.get('SUMMARY')}\t{show(event['DTSTART'].dt, zone)}\t{show(ends.dt, zone) if ends else '-'}")
    for line in sorted(lines):
        print(line)


if __name__ == "__main__":
    main()
