#!/usr/bin/env python3
"""Peer check: expand an .ics file with icalendar + recurring-ical-events.

usage: peer.py FILE WINDOW_START WINDOW_END DEFAULT_TZ
  WINDOW_* are ISO 8601 UTC instants (2026-01-01T00:00:00Z).
Prints one line per occurrence, sorted: "UID<TAB>START" where START is
"D:YYYY-MM-DD" for all-day occurrences and "T:<epoch seconds>" otherwise
(floating times are read in DEFAULT_TZ). Exit 3 if the modules are missing.
"""
import sys
from datetime import date, datetime, timezone

try:
    from zoneinfo import ZoneInfo
    import icalendar
    import recurring_ical_events
except ImportError as error:  # the Swift test skips on exit code 3
    print(f"missing Python module: {error.name}; run: python3 -m pip install icalendar recurring-ical-events",
          file=sys.stderr)
    sys.exit(3)


def parse_instant(text):
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(timezone.utc)


def main():
    path, start, end, default_tz = sys.argv[1:5]
    zone = ZoneInfo(default_tz)
    with open(path, "rb") as handle:
        calendar = icalendar.Calendar.from_ical(handle.read())
    lines = []
    for event in recurring_ical_events.of(calendar).between(parse_instant(start), parse_instant(end)):
        value = event["DTSTART"].dt
        if isinstance(value, datetime):
            if value.tzinfo is None:
                value = value.replace(tzinfo=zone)
            lines.append(f"{event['UID']}\tT:{int(value.timestamp())}")
        elif isinstance(value, date):
            lines.append(f"{event['UID']}\tD:{value.isoformat()}")
    for line in sorted(lines):
        print(line)


if __name__ == "__main__":
    main()
