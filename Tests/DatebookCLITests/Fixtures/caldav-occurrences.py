#!/usr/bin/env python3
"""A CalDAV calendar's occurrences as another device reads them: the `caldav` library fetches
every event of the calendar, `recurring-ical-events` expands them.

usage: caldav-occurrences.py URL USERNAME CALENDAR WINDOW_START WINDOW_END   (password on stdin)
  URL is the server's base URL; CALENDAR the calendar's display name; WINDOW_* ISO 8601 instants.
Prints one line per occurrence, sorted: "START<TAB>TZID<TAB>SUMMARY", START as ISO 8601 in the
occurrence's own zone (TZID its zone's name, "-" for a date or a floating time). Exit 3 if a module
is missing, 4 if the calendar is not found.
"""
import importlib.util
import os
import sys
from datetime import datetime

# icalendar, recurring-ical-events and instant() as the export's peer check has them (it exits 3 without them).
_spec = importlib.util.spec_from_file_location("ics_occurrences", os.path.join(os.path.dirname(__file__), "ics-occurrences.py"))
peer = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(peer)
try:
    import caldav
except ImportError as error:
    print(f"missing Python module: {error.name}", file=sys.stderr)
    sys.exit(3)


def calendar(client, name):
    """The calendar NAME (its display name) of the client's principal. Exits 4 without it."""
    calendars = [c for c in client.principal().calendars() if c.get_display_name() == name]
    if not calendars:
        print(f"no calendar named {name}", file=sys.stderr)
        sys.exit(4)
    return calendars[0]


def client(url, username):
    """A `caldav` client logged in as USERNAME; the password is read from stdin."""
    return caldav.DAVClient(url=url, username=username, password=sys.stdin.readline().rstrip("\n"))


def events(url, username, name):
    """The `caldav` items of calendar NAME (its display name); the password is read from stdin. Exits 4 without it."""
    with client(url, username) as logged_in:
        return calendar(logged_in, name).events()


def main():
    url, username, name, start, end = sys.argv[1:6]
    lines = []
    for item in events(url, username, name):
        calendar = peer.icalendar.Calendar.from_ical(item.data)
        for event in peer.recurring_ical_events.of(calendar).between(peer.instant(start), peer.instant(end)):
            value = event["DTSTART"].dt
            zone = "-"
            if isinstance(value, datetime) and value.tzinfo is not None:
                zone = str(getattr(value.tzinfo, "key", None) or event["DTSTART"].params.get("TZID") or value.tzname())
            lines.append(f"{value.isoformat()}\t{zone}\t{event.get('SUMMARY')}")
    for line in sorted(lines):
        print(line)


if __name__ == "__main__":
    main()
