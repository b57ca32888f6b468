import DatebookCore
import Foundation

/// The occurrences a recurring event contributes to a listing, however far they lie.
///
/// A bounded window (`Next 7 Days`, `Next 30 Days`, a month, an alert's span) lists every
/// occurrence in it. An open-ended period lists each series once instead of up to a cut-off
/// the user would meet as a horizon: **Future** (no end) shows each series' first occurrence at or
/// after its start, however many years ahead; **Past** (no start) shows every occurrence of the
/// `openEndedReach` before its end, and a series with none there by its last occurrence
/// before that, however long ago it ended. Such a row names its rule (`OccurrenceOf.series`).
///
/// The search steps with libical's skip, so a yearly event 100 years ahead costs a few steps;
/// backwards it doubles a window from the reach's start, and walks a dense rule forward inside the
/// first window that holds an occurrence.
public enum SeriesReach {
    /// How far before a missing start bound (Past) every occurrence of a series is listed (one year).
    public static let openEndedReach: Int64 = 366 * 86_400
    /// Keys past this (year 9892) are never expanded.
    static let latestKey: Int64 = 250_000_000_000
    /// Occurrences looked at per expansion when searching forwards.
    static let step = 64

    /// The first start at or after `from` of the event starting at `start` (in `timeZone`) that
    /// repeats by `recurrence`, read in `calendar`; nil when the series ends before.
    public static func first(start: EventStart, timeZone: String, recurrence: String, atOrAfter from: Date,
                             calendar: Calendar) -> Date? {
        // A series that begins at or after `from` first occurs at its start, when nothing in its
        // recurrence can remove that or come before it (`SeriesStart`).
        if let key = SeriesStart.certainFirstKey(start: start, timeZone: timeZone, recurrence: recurrence), key < latestKey {
            let found = EventStart(key: key, like: start).resolved(in: calendar)
            if found >= from { return found }
        }
        return expandedFirst(start: start, timeZone: timeZone, recurrence: recurrence, atOrAfter: from, calendar: calendar)
    }

    /// `first` by expansion alone: the plain path `SeriesStart` is tested against.
    static func expandedFirst(start: EventStart, timeZone: String, recurrence: String, atOrAfter from: Date,
                              calendar: Calendar) -> Date? {
        var lower = EventStart.lowestKey(from: from)
        // Each round passes `step` occurrences that all resolve before `from` (all-day and
        // floating keys lie up to 14 h from their instant): a few rounds at most for an hourly rule.
        for _ in 0..<16 {
            let keys = RecurrenceExpander.keys(start: start, timeZone: timeZone, recurrence: recurrence,
                                               window: lower..<latestKey, cap: step).keys
            for key in keys {
                let found = EventStart(key: key, like: start).resolved(in: calendar)
                if found >= from { return found }
            }
            guard keys.count >= step, let last = keys.last else { return nil }
            lower = last + 1
        }
        return nil
    }

    /// The last start before `limit` of a recurring event; nil when it has none.
    public static func last(start: EventStart, timeZone: String, recurrence: String, before limit: Date,
                            calendar: Calendar) -> Date? {
        let startKey = start.occurrenceKey
        let limitKey = EventStart.keyBound(to: limit)
        var upper = limitKey
        var span = openEndedReach
        // An RDATE may come before DTSTART: the last round reaches back to the earliest key.
        while upper > -62_000_000_000 {
            let lower = upper - span <= startKey - 2 * EventStart.allDayEarliest ? -62_000_000_000 : upper - span
            var keys = expand(start, timeZone, recurrence, lower..<upper)
            // A dense rule gives `cap` keys from the window's start: walk on to its last ones.
            while keys.count >= RecurrenceExpander.cap, let last = keys.last {
                let more = expand(start, timeZone, recurrence, last + 1 ..< upper)
                guard !more.isEmpty else { break }
                keys = more
            }
            for key in keys.reversed() {
                let found = EventStart(key: key, like: start).resolved(in: calendar)
                if found < limit { return found }
            }
            upper = lower
            span *= 4
        }
        return nil
    }

    private static func expand(_ start: EventStart, _ timeZone: String, _ recurrence: String, _ window: Range<Int64>) -> [Int64] {
        guard window.lowerBound < window.upperBound else { return [] }
        return RecurrenceExpander.keys(start: start, timeZone: timeZone, recurrence: recurrence, window: window).keys
    }

    /// What an event contributes to a listing of `[from, to)` beyond the window an open bound would
    /// otherwise expand: its first start at or after `from` when `to` is open; nil when both
    /// bounds are set (every occurrence in the window is listed then).
    static func once(start: EventStart, timeZone: String, recurrence: String, from: Date?, to: Date?,
                     calendar: Calendar) -> Date? {
        guard let from, to == nil else { return nil }
        return first(start: start, timeZone: timeZone, recurrence: recurrence, atOrAfter: from, calendar: calendar)
    }

    /// Where the every-occurrence part of a listing with an open start and end `to` begins.
    static func pastReachStart(_ to: Date) -> Date {
        to.addingTimeInterval(-TimeInterval(openEndedReach))
    }
}
