#!/usr/bin/env python3
"""A CalDAV calendar's alarms as another device reads them: the `caldav` library fetches every
event of the calendar, `icalendar` reads each VALARM's TRIGGER.

usage: caldav-alarms.py URL USERNAME CALENDAR   (password on stdin)
Prints one line per VALARM, sorted: "SUMMARY<TAB>RELATED<TAB>TRIGGER<TAB>DESCRIPTION", RELATED
`START`, `END` or `ABSOLUTE`, TRIGGER the offset in seconds (negative: before) or the instant in
ISO 8601 (UTC). Exit 3 if a module is missing, 4 if the calendar is not found.
"""
import importlib.util
import os
import sys
from datetime import datetime, timezone

# The calendar's items as caldav-occurrences.py fetches them (it exits 3 without its modules).
_spec = importlib.util.spec_from_file_location("caldav_occurrences", os.path.join(os.path.dirname(__file__), "caldav-occurrences.py"))
peer = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(peer)


def main():
    url, username, name = sys.argv[1:4]
    lines = []
    for item in peer.events(url, username, name):
        for event in peer.peer.icalendar.Calendar.from_ical(item.data).walk("VEVENT"):
            for alarm in event.walk("VALARM"):
                trigger = alarm["TRIGGER"]
                value = trigger.dt
                if isinstance(value, datetime):
                    related, shown = "ABSOLUTE", value.astimezone(timezone.utc).isoformat()
                else:
                    related, shown = trigger.params.get("RELATED", "START"), str(int(value.total_seconds()))
                lines.append(f"{event.get('SUMMARY')}\t{related}\t{shown}\t{alarm.get('DESCRIPTION')}")
    for line in sorted(lines):
        print(line)


if __name__ == "__main__":
    main()
