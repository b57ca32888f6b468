#!/usr/bin/env python3
"""A CalDAV calendar's to-dos as another device reads them: the `caldav` library fetches every
VTODO of the calendar (completed ones too), `icalendar` reads them.

usage: caldav-todos.py URL USERNAME CALENDAR   (password on stdin)
Prints one line per VTODO, sorted: "SUMMARY<TAB>DUE<TAB>PRIORITY<TAB>RELATED-TO<TAB>STATUS", DUE in
ISO 8601 (a date, or an instant in UTC), "-" for what the VTODO does not have. Exit 3 if a module is
missing, 4 if the calendar is not found.
"""
import sys
from datetime import datetime, timezone

try:
    import caldav
    import icalendar
except ImportError as error:
    print(f"missing Python module: {error.name}", file=sys.stderr)
    sys.exit(3)


def main():
    url, username, name = sys.argv[1:4]
    password = sys.stdin.readline().rstrip("\n")
    lines = []
    with caldav.DAVClient(url=url, username=username, password=password) as client:
        calendars = [c for c in client.principal().calendars() if c.get_display_name() == name]
        if not calendars:
            print(f"no calendar named {name}", file=sys.stderr)
            sys.exit(4)
        for item in calendars[0].todos(include_completed=True):
            for todo in icalendar.Calendar.from_ical(item.data).walk("VTODO"):
                due = todo.get("DUE")
                shown = "-"
                if due is not None:
                    value = due.dt
                    shown = value.astimezone(timezone.utc).isoformat() if isinstance(value, datetime) else value.isoformat()
                lines.append("\t".join([str(todo.get("SUMMARY")), shown, str(todo.get("PRIORITY", "-")),
                                        str(todo.get("RELATED-TO", "-")), str(todo.get("STATUS", "-"))]))
    for line in sorted(lines):
        print(line)


if __name__ == "__main__":
    main()
