/// The WHEN forms `--at`, `--end`, `--until`, `snooze --until` and `--now` accept, one example each
/// with what it means: the one list the man page prints, README's table repeats (a test compares
/// them) and the parser's tests read one by one.
public enum WhenForms {
    public static let table: [(form: String, meaning: String)] = [
        ("2026-12-24 18:00", "a date and time, in the zone of --tz (else the config's timeZone, else the system's)"),
        ("2026-12-24T18:00+01:00", "with a UTC offset (also 2026-12-24T17:00Z)"),
        ("2026-12-24", "a date: an all-day event"),
        ("18:00", "today at 18:00"),
        ("6am", "today at 06:00 (add warns when that has passed)"),
        ("6:30 pm", "today at 18:30"),
        ("noon", "today at 12:00 (also midnight)"),
        ("today 18:00", "today, yesterday, tomorrow, with or without a time"),
        ("tomorrow", "tomorrow, all day"),
        ("tomorrow at 9am", "at is optional before a time; after it a bare hour reads (at 9)"),
        ("in 2 hours", "from now, in minutes, hours, days or weeks (in an hour, in 90m)"),
        ("in 3 days", "the same time of day, three calendar days on"),
        ("in 3 days at 9am", "that day, at 09:00"),
        ("+1h30m", "from now: w, d, h, m, s"),
        ("monday 10:00", "the coming Monday (today if it is Monday); mon, tue … or the locale's names"),
        ("next monday", "the first Monday after today"),
        ("next week", "Monday of next week, all day (next week 9:00 for a time)"),
        ("dec 24 18:00", "a month name and day: this year, or next year when it has passed"),
        ("Dec 24", "a month name and day, all day"),
        ("24 dec", "day and month name"),
        ("24 december 2027 9:30", "with a year"),
        ("12/24", "numeric, in the locale's order: month/day for en_US, day.month for de_DE (24.12.), day/month for en_GB"),
    ]
}
