import Foundation

/// A calendar date without a time, used for all-day events.
public struct CalendarDate: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var year: Int
    public var month: Int
    public var day: Int

    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// Parses `YYYY-MM-DD`; returns nil for anything else or an impossible date (month 13, Feb 30).
    /// Whether the year is one datebook keeps is for the caller (`EventValidation`, `WhenParser`),
    /// which can then say so.
    public init?(iso text: some StringProtocol) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]),
              (1...12).contains(m), d >= 1, d <= CivilDate.daysInMonth(year: y, month: m)
        else { return nil }
        self.init(year: y, month: m, day: d)
    }

    public var description: String {
        CivilDate.pad4(year) + "-" + CivilDate.pad2(month) + "-" + CivilDate.pad2(day)
    }

    /// Days since 1970-01-01.
    public var dayNumber: Int { CivilDate.days(year: year, month: month, day: day) }

    public init(dayNumber: Int) {
        let c = CivilDate.civil(fromDays: dayNumber)
        self.init(year: c.year, month: c.month, day: c.day)
    }

    /// The instant this date starts in `timeZone` (midnight, or the first valid time on a DST day).
    public func start(in calendar: Calendar) -> Date {
        let utcMidnight = Date(timeIntervalSince1970: TimeInterval(dayNumber * 86_400))
        let zone = calendar.timeZone
        var offset = zone.secondsFromGMT(for: utcMidnight)
        for _ in 0..<2 {
            let candidate = utcMidnight.addingTimeInterval(TimeInterval(-offset))
            let actual = zone.secondsFromGMT(for: candidate)
            if actual == offset { return candidate }
            offset = actual
        }
        // Midnight falls in a DST gap in this zone: let Foundation pick the first valid time.
        return calendar.date(from: DateComponents(year: year, month: month, day: day)) ?? utcMidnight
    }

    /// The date `instant` falls on in `timeZone`.
    public init(_ instant: Date, in timeZone: TimeZone) {
        let local = LocalTime(instant, in: timeZone)
        self.init(year: local.year, month: local.month, day: local.day)
    }

    /// `Mon` … `Sun`.
    public var weekdayName: String { LocalTime.weekdayNames[CivilDate.weekday(days: dayNumber)] }

    public static func < (a: CalendarDate, b: CalendarDate) -> Bool {
        (a.year, a.month, a.day) < (b.year, b.month, b.day)
    }
}

/// When an event starts: an exact instant, a whole day in the user's zone, or a wall-clock time
/// read in the user's zone (a floating time of an imported calendar).
public enum EventStart: Sendable, Hashable {
    case instant(Date)
    case allDay(CalendarDate)
    case floating(FloatingTime)

    public var isAllDay: Bool {
        if case .allDay = self { return true }
        return false
    }

    public var isInstant: Bool {
        if case .instant = self { return true }
        return false
    }

    public var isFloating: Bool {
        if case .floating = self { return true }
        return false
    }

    /// The instant used for periods and sorting: all-day events start at midnight in `calendar`'s
    /// zone, floating times at their wall-clock time there.
    public func resolved(in calendar: Calendar) -> Date {
        switch self {
        case .instant(let date): return date
        case .allDay(let day): return day.start(in: calendar)
        case .floating(let time): return time.resolved(in: calendar)
        }
    }

    /// The store's sort and occurrence key (`occurrences.start_key`, `events.start_key`, the keys
    /// `RecurrenceExpander` gives): an instant's Unix seconds (rounded down), an all-day date's
    /// midnight UTC, a floating time's wall clock read as UTC. Zone-free, so a key names the same
    /// occurrence whichever zone reads it; keys of all-day and floating starts lie up to 14 h from
    /// their instant in the user's zone.
    public var occurrenceKey: Int64 {
        switch self {
        case .instant(let date): Int64(date.timeIntervalSince1970.rounded(.down))
        case .allDay(let day): Int64(day.dayNumber) * 86_400
        case .floating(let time): time.wallSeconds
        }
    }
}

/// The state of one checklist item.
public enum TaskStatus: String, Sendable, Hashable, CaseIterable {
    case todo, doing, done

    public var isOpen: Bool { self != .done }
}

/// One checklist item of an event, or one to-do of a to-do list (`Event.isTaskList`).
public struct EventTask: Sendable, Hashable {
    public var id: String
    public var text: String
    public var status: TaskStatus
    /// When it is due (a to-do's DUE): a to-do of a list shows in the period of this date.
    public var due: EventStart?
    /// RFC 5545 PRIORITY: 1 (highest) … 9 (lowest); 0 when none is given.
    public var priority: Int
    /// The id of the task of the same event it is a part of (a to-do's RELATED-TO naming another to-do).
    public var parent: String?

    public init(id: String, text: String, status: TaskStatus = .todo, due: EventStart? = nil, priority: Int = 0,
                parent: String? = nil) {
        self.id = id
        self.text = text
        self.status = status
        self.due = due
        self.priority = priority
        self.parent = parent
    }

    /// A new task's id: 8 random hex digits (the system's generator).
    public static func newID() -> String {
        var generator = SystemRandomNumberGenerator()
        return String(EventID.random(using: &generator).prefix(8))
    }
}

/// Something on a date, with a checklist of tasks.
public struct Event: EventListing, Identifiable {
    public var id: String
    public var title: String
    public var start: EventStart
    public var end: EventStart?
    /// IANA identifier of the zone the event was written in.
    public var timeZone: String
    public var symbol: Symbol
    public var color: EventColor
    public var notes: String
    /// Where it happens, one line of text; empty when unknown.
    public var location: String
    /// A link for it (a video call, a ticket page): http, https, mailto or tel (`EventURL`); empty when none.
    public var url: String
    public var tasks: [EventTask]
    public var alerts: [LeadTime]
    /// An RFC 5545 RRULE value, stored as written.
    public var recurrence: String?
    /// A to-do list (a calendar's stand-alone to-dos, "Tasks"), not something on a date: no period
    /// holds it, its start is only the day it was made; its dated tasks show in their due periods.
    public var isTaskList: Bool

    public init(
        id: String, title: String, start: EventStart, end: EventStart? = nil,
        timeZone: String, symbol: Symbol, color: EventColor, notes: String = "", location: String = "", url: String = "",
        tasks: [EventTask] = [], alerts: [LeadTime] = [], recurrence: String? = nil, isTaskList: Bool = false
    ) {
        self.id = id
        self.title = title
        self.start = start
        self.end = end
        self.timeZone = timeZone
        self.symbol = symbol
        self.color = color
        self.notes = notes
        self.location = location
        self.url = url
        self.tasks = tasks
        self.alerts = alerts
        self.recurrence = recurrence
        self.isTaskList = isTaskList
    }

    /// Tasks that are not done; shown as the event's badge.
    public var badge: Int { tasks.reduce(0) { $0 + ($1.status.isOpen ? 1 : 0) } }

    /// An event is complete when it has tasks and all of them are done.
    public var isComplete: Bool { !tasks.isEmpty && badge == 0 }
}

/// How many tasks an event has and how many are still open.
public struct TaskCounts: Sendable, Hashable {
    public var total: Int
    public var open: Int

    public init(total: Int, open: Int) {
        self.total = total
        self.open = open
    }
}

/// Event id generation and formatting.
public enum EventID {
    public static let shortLength = 8
    public static let minimumPrefix = 4

    /// A new random id: 16 lowercase hex digits.
    public static func random(using generator: inout some RandomNumberGenerator) -> String {
        hex(UInt64.random(in: .min ... .max, using: &generator))
    }

    /// A stable id derived from text (FNV-1a), used for the sample planner so runs are reproducible.
    public static func stable(_ text: String) -> String {
        // Over the contiguous bytes: iterating a String's UTF-8 view costs ~25 instructions a byte.
        var text = text
        return hex(text.withUTF8 { fnv1a($0) })
    }

    /// The number a `stable` id spells: `stable(a + b)` is `hex(stableKey(b, after: stableKey(a)))`.
    public static func stableKey(_ text: String, after hash: UInt64 = fnv1aBasis) -> UInt64 {
        var text = text
        return text.withUTF8 { fnv1a($0, from: hash) }
    }

    public static let fnv1aBasis: UInt64 = 0xcbf2_9ce4_8422_2325

    /// 64-bit FNV-1a of `bytes` (continuing `hash`): stable ids, and cheap hashing of ids in listings.
    @inlinable
    public static func fnv1a(_ bytes: some Sequence<UInt8>, from hash: UInt64 = 0xcbf2_9ce4_8422_2325) -> UInt64 {
        var hash = hash
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    /// The first `digits` (at most 16) of the 16 lower-case hex digits `value` spells.
    public static func hex(_ value: UInt64, digits: Int = 16) -> String {
        String(unsafeUninitializedCapacity: digits) { buffer in
            for i in 0..<digits {
                let digit = UInt8(truncatingIfNeeded: value >> (60 - 4 * i)) & 0xF
                buffer[i] = digit < 10 ? 0x30 + digit : 0x57 + digit
            }
            return digits
        }
    }
}

extension Event {
    /// The end as iCalendar's DTEND means it (exclusive): an all-day event's `end` is its last day,
    /// inclusive (as `show` prints it), and DTEND;VALUE=DATE is the day after; nil when the event
    /// has no end or ends as it starts (a one-day event, or no length), so no zero-length DTEND is
    /// written.
    public var exclusiveEnd: EventStart? {
        guard let end, end != start else { return nil }
        if case .allDay(let day) = end { return .allDay(CalendarDate(dayNumber: day.dayNumber + 1)) }
        return end
    }

    /// The inclusive `end` of an event starting at `start` from iCalendar's exclusive DTEND: a
    /// DATE DTEND is the day after the last day; a DATE-TIME DTEND of an all-day event (some
    /// programs write one) keeps its length, as the day that holds its last second in `zone`; nil
    /// when nothing is left after the start.
    public static func inclusiveEnd(_ end: EventStart?, start: EventStart, zone: TimeZone) -> EventStart? {
        guard let end, end != start else { return nil }
        guard case .allDay(let first) = start else { return end }
        let last: Int
        switch end {
        case .allDay(let day): last = day.dayNumber - 1
        case .instant(let date): last = CalendarDate(date.addingTimeInterval(-1), in: zone).dayNumber
        case .floating(let time): last = CalendarDate(dayNumber: Int((time.wallSeconds - 1).floorDivided(by: 86_400))).dayNumber
        }
        return last > first.dayNumber ? .allDay(CalendarDate(dayNumber: last)) : nil
    }
}

private extension Int64 {
    func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return self % divisor < 0 ? quotient - 1 : quotient
    }
}
