#!/usr/bin/env python3
"""Writes a large .ics file for the parse benchmark: generate.py OUT [COUNT=100000]."""
import sys

out = sys.argv[1]
count = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
zones = ["Europe/Berlin", "America/New_York", "Asia/Tokyo", "W. Europe Standard Time"]
with open(out, "w", newline="") as f:
    f.write("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//datebook//bench//EN\r\n")
    for i in range(count):
        day = 1 + i % 28
        month = 1 + (i // 28) % 12
        f.write("BEGIN:VEVENT\r\n")
        f.write(f"UID:bench-{i}@datebook\r\nDTSTAMP:20260101T000000Z\r\n")
        f.write(f"SUMMARY:Event number {i}\\, with some text\r\n")
        f.write(f"DESCRIPTION:Agenda for meeting {i}:\\n1. status\\n2. plans\\n3. questions about the roadmap\r\n")
        f.write(f"LOCATION:Room {i % 50}\r\n")
        f.write(f"DTSTART;TZID={zones[i % 4]}:2026{month:02d}{day:02d}T{9 + i % 8:02d}0000\r\n")
        f.write(f"DTEND;TZID={zones[i % 4]}:2026{month:02d}{day:02d}T{10 + i % 8:02d}0000\r\n")
        if i % 5 == 0:
            f.write("RRULE:FREQ=WEEKLY;COUNT=10\r\n")
        if i % 3 == 0:
            f.write("BEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:Reminder\r\nTRIGGER:-PT15M\r\nEND:VALARM\r\n")
        f.write("END:VEVENT\r\n")
    f.write("END:VCALENDAR\r\n")
