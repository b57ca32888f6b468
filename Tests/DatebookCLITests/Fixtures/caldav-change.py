#!/usr/bin/env python3
"""Another device changes one item of a CalDAV calendar: the `caldav` library finds it by UID,
sets the properties given on its VEVENT or VTODO and saves it back (a PUT), as a phone would.

usage: caldav-change.py URL USERNAME CALENDAR UID NAME:VALUE…   (password on stdin)
  Each NAME:VALUE replaces every NAME line of the item's first component (`SUMMARY:Dentist`,
  `LAST-MODIFIED:20261130T080002Z`); `NAME:` alone removes them. Every other line stays.
Exit 3 if a module is missing, 4 if the calendar or the item is not found.
"""
import importlib.util
import os
import sys

# The login and the calendar as caldav-occurrences.py finds them (it exits 3 without its modules).
_spec = importlib.util.spec_from_file_location("caldav_occurrences", os.path.join(os.path.dirname(__file__), "caldav-occurrences.py"))
peer = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(peer)


def changed(text, properties):
    """`text` with each property of `properties` (name -> line, or None) set in its first VEVENT/VTODO."""
    lines = text.replace("\r\n", "\n").rstrip("\n").split("\n")
    out, inside, done = [], False, False
    for line in lines:
        name = line.split(":", 1)[0].split(";", 1)[0].upper()
        if not done and line in ("BEGIN:VEVENT", "BEGIN:VTODO"):
            inside = True
        elif inside and line in ("END:VEVENT", "END:VTODO"):
            out += [value for value in properties.values() if value]
            inside, done = False, True
        elif inside and name in properties:
            continue
        out.append(line)
    return "\r\n".join(out) + "\r\n"


def main():
    url, username, name, uid = sys.argv[1:5]
    properties = {}
    for argument in sys.argv[5:]:
        key, value = argument.split(":", 1)
        properties[key.upper()] = argument if value else None
    with peer.client(url, username) as client:
        calendar = peer.calendar(client, name)
        for item in calendar.events() + calendar.todos(include_completed=True):
            if str(item.icalendar_component.get("UID")) == uid:
                item.data = changed(item.data, properties)
                item.save()
                return
    print(f"no item with UID {uid}", file=sys.stderr)
    sys.exit(4)


if __name__ == "__main__":
    main()
