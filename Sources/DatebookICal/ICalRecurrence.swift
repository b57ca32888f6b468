import CICal
import Foundation

/// Expands RRULE/RDATE/EXDATE into occurrence starts with libical's `icalrecur_iterator`.
///
/// Expansion runs on wall-clock times in the event's own zone and converts each to an instant
/// afterwards, so a weekly 09:00 Europe/Berlin meeting stays at 09:00 local across DST changes.
/// Every loop is bounded: by the window end, by `cap`, and by ``maxIterations`` libical steps, so a
/// rule that never matches (`FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30`) cannot spin.
public enum ICalRecurrence {
    /// Upper bound on libical iterator steps per event and call.
    public static let maxIterations = 200_000

    /// Occurrence starts of one event that overlap `window` (start < window end and end > window
    /// start; a zero-length occurrence counts when it starts inside), sorted, at most `cap` of them.
    ///
    /// A refused rule (SECONDLY, MINUTELY, INTERVAL=0, no FREQ…) yields only DTSTART plus a warning.
    /// All-day starts are midnight in `timeZone`. Nothing throws today (bad rules become warnings);
    /// `throws` is kept so a future hard failure can be reported without changing the API.
    ///
    /// `exrules` (RFC 2445's EXRULE, as libical still reads it) remove the starts they give; a
    /// refused EXRULE removes nothing and is reported in the warning.
    public static func occurrences(
        rrule: String?, rdates: [ICalDateValue], exdates: [ICalDateValue], exrules: [String] = [], start: ICalDateValue,
        duration: TimeInterval, timeZone: TimeZone, window: DateInterval, cap: Int
    ) throws -> (starts: [Date], truncated: Bool, warning: String?) {
        try occurrences(rrule: rrule, rdates: rdates, exdates: exdates, exrules: exrules, start: start, duration: duration,
                        timeZone: timeZone, window: window, cap: cap, dayStepping: true)
    }

    /// `dayStepping: false` walks every rule with libical's iterator (tests compare the two).
    static func occurrences(
        rrule: String?, rdates: [ICalDateValue], exdates: [ICalDateValue], exrules: [String] = [], start: ICalDateValue,
        duration: TimeInterval, timeZone: TimeZone, window: DateInterval, cap: Int, dayStepping: Bool
    ) throws -> (starts: [Date], truncated: Bool, warning: String?) {
        let expansion = Expansion(start: start, duration: max(0, duration), timeZone: timeZone, window: window)
        var starts: [Date] = []
        var warning: String?
        var truncated = false
        if let rrule, !rrule.trimmingWhitespace().isEmpty {
            // A rule stored before import dropped them (`ICalParser`) reads the same.
            let written = ICalRuleText(rrule)
            let rule = written.withoutForbiddenOrdinals?.rule ?? written
            if let refusal = rule.refusal {
                warning = refusal
                starts = [expansion.startInstant]
            } else {
                // Room for the EXDATEs, so removing them cannot leave fewer than `cap` when more exist.
                let result = expansion.expand(rule, cap: max(0, cap) + exdates.count, dayStepping: dayStepping, startsFirst: true)
                starts = result.starts
                truncated = result.truncated
                warning = result.warning
            }
        } else {
            starts = [expansion.startInstant]
        }
        starts += rdates.map { $0.resolve(in: timeZone) }
        var excluded = Set(exdates.map { $0.resolve(in: timeZone) })
        for exrule in exrules {
            if let refusal = refusal(exrule: exrule) {
                warning = warning ?? refusal
                continue
            }
            let rule = ICalRuleText(exrule)
            // Only starts the RRULE gives can be removed, so the same bound on their number applies.
            let removed = expansion.expand(rule, cap: starts.count + 1, dayStepping: dayStepping, startsFirst: false)
            excluded.formUnion(removed.starts)
        }
        let excludedDays = Set(exdates.filter(\.isAllDay).map { $0.local(fallback: timeZone).dayOnly })
        var kept = Set<Date>()
        var result: [Date] = []
        for instant in starts.sorted() where expansion.overlaps(instant) && !kept.contains(instant) {
            if excluded.contains(instant) { continue }
            if !excludedDays.isEmpty,
               excludedDays.contains(ICalLocalDateTime.of(instant, in: timeZone).dayOnly) { continue }
            kept.insert(instant)
            result.append(instant)
        }
        if result.count > cap {
            result = Array(result.prefix(max(0, cap)))
            truncated = true
        }
        if truncated, warning == nil {
            warning = "more than \(cap) occurrences in the window; only the first \(cap) are kept"
        }
        return (result, truncated, warning)
    }
}

extension ICalLocalDateTime {
    /// The calendar day only (midnight), as a comparable key.
    var dayOnly: ICalLocalDateTime {
        ICalLocalDateTime(year: year, month: month, day: day)
    }
}

/// One expansion's fixed inputs and the libical walk.
private struct Expansion {
    let start: ICalDateValue
    let duration: TimeInterval
    let timeZone: TimeZone
    let window: DateInterval
    let startInstant: Date
    let startLocal: ICalLocalDateTime

    init(start: ICalDateValue, duration: TimeInterval, timeZone: TimeZone, window: DateInterval) {
        self.start = start
        self.duration = duration
        self.timeZone = timeZone
        self.window = window
        startInstant = start.resolve(in: timeZone)
        switch start {
        case let .date(year, month, day): startLocal = ICalLocalDateTime(year: year, month: month, day: day)
        case let .floating(local): startLocal = local
        case .zoned, .utc: startLocal = ICalLocalDateTime.of(startInstant, in: timeZone)
        }
    }

    func overlaps(_ instant: Date) -> Bool {
        guard instant < window.end else { return false }
        return instant >= window.start || instant.addingTimeInterval(duration) > window.start
    }

    /// `startsFirst`: DTSTART is the first occurrence even when the rule does not give it (RRULE);
    /// false for an EXRULE, which removes only what it gives itself.
    func expand(_ rule: ICalRuleText, cap: Int, dayStepping: Bool, startsFirst: Bool)
        -> (starts: [Date], truncated: Bool, warning: String?) {
        let untilLimit = rule.until.map(limit)
        let text = rule.without(["UNTIL"])
        let recurrence = icalrecurrencetype_from_string(text)
        guard recurrence.freq != ICAL_NO_RECURRENCE else {
            return ([startInstant], false, "RRULE '\(text)' could not be read by libical; only DTSTART is used")
        }
        // RRULE occurrences never come before DTSTART: a window that ends by then holds none, and
        // libical's iterator (about 30k instructions to make, 20k a step) is not needed. A rule
        // libical would reject is reported once a window reaches the event's start.
        guard startInstant < window.end else { return ([], false, nil) }
        // Plain HOURLY rules step in elapsed time (walked in UTC), so the hour repeated when clocks
        // go back is not skipped: New York 2026-11-01 01:00 EDT, 01:00 EST, 02:00 EST.
        let walkZone = rule.isPlainHourly && !start.isAllDay ? ICalCalendars.utc : timeZone
        let walkStart = walkZone == timeZone ? startLocal : ICalLocalDateTime.of(startInstant, in: walkZone)
        let isDate = start.isAllDay
        let first = Libical.floating(walkStart, isDate: isDate)
        // Wall-clock bounds with room for any zone's offset change, so the many steps of a dense
        // rule before the window (or after UNTIL) are passed over without a calendar conversion.
        let margin: TimeInterval = 3 * 3_600
        let pastUntil = untilLimit.map { ICalLocalDateTime.of($0.addingTimeInterval(margin), in: walkZone) }
        let count = rule["COUNT"].flatMap { Int($0) }
        var limited: LimitedSteps?
        let iterator: any OccurrenceSteps
        let canSkip: Bool
        if dayStepping, walkZone == timeZone, let days = DaySteps.days(rule, start: first) {
            iterator = DaySteps(start: first, days: days, count: count)
            canSkip = true
        } else {
            // COUNT is applied by `CountedSteps` (DTSTART counts even when off the rule), BYHOUR/
            // BYMINUTE/BYSECOND lists by `TimesOfDaySteps` (libical is slow with them after a skip),
            // and the BYSETPOS and BYMONTHDAY that libical gets wrong by `LimitedSteps`.
            let times = TimesOfDay(rule)
            let limits = RuleLimits(times?.baseRule ?? rule, start: walkStart, isDate: isDate)
            let base = (limits?.baseRule ?? times?.baseRule ?? rule).without(["UNTIL", "COUNT"])
            let baseStart = limits.map { Libical.floating($0.baseStart, isDate: isDate) } ?? first
            guard let made = LibicalRecurrenceIterator(icalrecurrencetype_from_string(base), start: baseStart)
            else { return ([startInstant], false, "RRULE '\(text)' was rejected by libical (it can never match "
                           + "or is inconsistent); only DTSTART is used") }
            var steps: any OccurrenceSteps = times.map { TimesOfDaySteps(made, times: $0, start: walkStart) } ?? made
            if let limits {
                let windowEnd = ICalLocalDateTime.of(window.end.addingTimeInterval(margin), in: walkZone)
                let limitedSteps = LimitedSteps(steps, limits: limits, start: walkStart, end: min(windowEnd, pastUntil ?? windowEnd),
                                                isDate: isDate)
                limited = limitedSteps
                steps = limitedSteps
            }
            iterator = CountedSteps(steps, start: startsFirst ? walkStart : nil, count: count)
            // Skip ahead when libical allows it: not with COUNT (counted from DTSTART), and not for
            // HOURLY with INTERVAL > 1, where libical 3.0's set_start loses the interval's phase.
            let interval = rule["INTERVAL"].flatMap { Int($0) } ?? 1
            canSkip = count == nil && (rule["FREQ"]?.uppercased() != "HOURLY" || interval == 1)
        }
        let earliest = window.start.addingTimeInterval(-duration - 2 * 86_400)
        let lowerLocal = ICalLocalDateTime.of(earliest, in: walkZone)
        if canSkip, earliest > startInstant {
            iterator.skip(to: Libical.floating(isDate ? lowerLocal.dayOnly : lowerLocal, isDate: isDate))
        }
        let nearLocal = max(lowerLocal, ICalLocalDateTime.of(window.start.addingTimeInterval(-duration - margin), in: walkZone))
        var starts: [Date] = []
        var steps = 0
        let ranOut = "RRULE '\(text)' needed more than \(ICalRecurrence.maxIterations) steps without reaching the window end; "
            + "expansion stopped early"
        while let local = iterator.next() {
            steps += 1
            if steps > ICalRecurrence.maxIterations { return (starts, true, ranOut) }
            if let pastUntil, local > pastUntil { break }
            if local < nearLocal { continue }
            let at = local.instant(in: walkZone)
            if let untilLimit, at > untilLimit { break }
            if at >= window.end { break }
            if overlaps(at) {
                starts.append(at)
                if starts.count > cap { return (starts, true, nil) }
            }
        }
        if limited?.ranOut == true { return (starts, true, ranOut) }
        return (starts, false, nil)
    }

    /// UNTIL as the last allowed start instant (a date UNTIL allows that whole day).
    private func limit(_ until: ICalDateValue) -> Date {
        switch until {
        case let .date(year, month, day):
            let midnight = ICalLocalDateTime(year: year, month: month, day: day).instant(in: timeZone)
            let next = ICalCalendars.calendar(for: timeZone).date(byAdding: .day, value: 1, to: midnight)
            return (next ?? midnight.addingTimeInterval(86_400)).addingTimeInterval(-1)
        default:
            return until.resolve(in: timeZone)
        }
    }
}

/// Yields a rule's occurrences as wall-clock times, from DTSTART on.
protocol OccurrenceSteps: AnyObject {
    /// Continues from the first occurrence at or after `time` (or stays put if it is past that).
    func skip(to time: icaltimetype)
    func next() -> ICalLocalDateTime?
}

/// The occurrences of a rule that is a fixed number of days apart — DAILY, or WEEKLY on DTSTART's
/// own weekday, with nothing but INTERVAL, COUNT, UNTIL and WKST — stepped with libical's civil
/// time arithmetic (`icaltime_adjust`) instead of its iterator.
///
/// libical 3.0's iterator works through ICU calendars: about 20k instructions a step, which made
/// expansion half a second of a 100k-event import. These rules (most weekly meetings) need only
/// DTSTART's wall-clock time plus a multiple of the step, and `DayStepsTests` checks that the
/// two walks agree across DST changes, all-day starts, intervals, COUNT and UNTIL.
final class DaySteps: OccurrenceSteps {
    private let start: icaltimetype
    private let days: Int
    private let count: Int?
    /// The index of the occurrence `next()` yields (DTSTART is 0).
    private var index = 0
    private var current: icaltimetype

    init(start: icaltimetype, days: Int, count: Int?) {
        self.start = start
        self.days = days
        self.count = count
        current = start
    }

    /// Days between occurrences when `rule` steps by whole days from `start`; nil otherwise.
    static func days(_ rule: ICalRuleText, start: icaltimetype) -> Int? {
        var seen = Set<String>()
        var step = 0
        var interval = 1
        var byDay: String?
        for (key, value) in rule.parts {
            guard seen.insert(key).inserted else { return nil }
            switch key {
            case "FREQ":
                switch value.uppercased() {
                case "DAILY": step = 1
                case "WEEKLY": step = 7
                default: return nil
                }
            case "INTERVAL":
                // Bounded so that index × step stays far from overflow.
                guard let number = Int(value), (1...1_000).contains(number) else { return nil }
                interval = number
            case "BYDAY": byDay = value.uppercased()
            case "COUNT", "UNTIL", "WKST": continue
            default: return nil
            }
        }
        if let byDay {
            // One weekday, DTSTART's own: the same days as no BYDAY at all.
            let weekday = Int(icaltime_day_of_week(start)) - 1
            guard step == 7, Libical.weekdays.indices.contains(weekday), byDay == Libical.weekdays[weekday] else { return nil }
        }
        return step == 0 ? nil : step * interval
    }

    func skip(to time: icaltimetype) {
        // Floating times as seconds count whole days exactly: no zone, no DST.
        let ahead = Int(icaltime_as_timet(time)) - Int(icaltime_as_timet(start))
        let stepSeconds = days * 86_400
        guard ahead > 0 else { return }
        let target = (ahead + stepSeconds - 1) / stepSeconds
        guard target > index else { return }
        index = target
        current = start
        icaltime_adjust(&current, Int32(index * days), 0, 0, 0)
    }

    func next() -> ICalLocalDateTime? {
        if let count, index >= count { return nil }
        let local = Libical.local(current)
        index += 1
        icaltime_adjust(&current, Int32(days), 0, 0, 0)
        return local
    }
}

/// Owns a libical `icalrecur_iterator` and frees it in `deinit`.
private final class LibicalRecurrenceIterator: OccurrenceSteps {
    private let pointer: OpaquePointer

    init?(_ rule: icalrecurrencetype, start: icaltimetype) {
        guard let made = icalrecur_iterator_new(rule, start) else { return nil }
        pointer = made
    }

    deinit { icalrecur_iterator_free(pointer) }

    func skip(to time: icaltimetype) {
        _ = icalrecur_iterator_set_start(pointer, time)
    }

    func next() -> ICalLocalDateTime? {
        let time = icalrecur_iterator_next(pointer)
        guard icaltime_is_null_time(time) == 0 else { return nil }
        return Libical.local(time)
    }
}
