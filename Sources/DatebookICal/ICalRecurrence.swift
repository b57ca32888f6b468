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
    public static func occurrences(
        rrule: String?, rdates: [ICalDateValue], exdates: [ICalDateValue], start: ICalDateValue,
        duration: TimeInterval, timeZone: TimeZone, window: DateInterval, cap: Int
    ) throws -> (starts: [Date], truncated: Bool, warning: String?) {
        let expansion = Expansion(start: start, duration: max(0, duration), timeZone: timeZone, window: window)
        var starts: [Date] = []
        var warning: String?
        var truncated = false
        if let rrule, !rrule.trimmingWhitespace().isEmpty {
            let rule = ICalRuleText(rrule)
            if let refusal = rule.refusal {
                warning = refusal
                starts = [expansion.startInstant]
            } else {
                // Room for the EXDATEs, so removing them cannot leave fewer than `cap` when more exist.
                let result = expansion.expand(rule, cap: max(0, cap) + exdates.count)
                starts = result.starts
                truncated = result.truncated
                warning = result.warning
            }
        } else {
            starts = [expansion.startInstant]
        }
        starts += rdates.map { $0.resolve(in: timeZone) }
        let excluded = Set(exdates.map { $0.resolve(in: timeZone) })
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

    func instant(_ local: ICalLocalDateTime) -> Date { local.instant(in: timeZone) }

    func expand(_ rule: ICalRuleText, cap: Int) -> (starts: [Date], truncated: Bool, warning: String?) {
        let untilLimit = rule.until.map(limit)
        let text = rule.withoutUntil
        let recurrence = icalrecurrencetype_from_string(text)
        guard recurrence.freq != ICAL_NO_RECURRENCE else {
            return ([startInstant], false, "RRULE '\(text)' could not be read by libical; only DTSTART is used")
        }
        // RRULE occurrences never come before DTSTART: a window that ends by then holds none, and
        // libical's iterator (about 30k instructions to make, 20k a step) is not needed. A rule
        // libical would reject is reported once a window reaches the event's start.
        guard startInstant < window.end else { return ([], false, nil) }
        let isDate = start.isAllDay
        guard let iterator = LibicalRecurrenceIterator(recurrence, start: Libical.floating(startLocal, isDate: isDate))
        else { return ([startInstant], false, "RRULE '\(text)' was rejected by libical (it can never match "
                       + "or is inconsistent); only DTSTART is used") }
        // Skip ahead when libical allows it: not with COUNT (counted from DTSTART), and not for
        // HOURLY with INTERVAL > 1, where libical 3.0's set_start loses the interval's phase.
        let earliest = window.start.addingTimeInterval(-duration - 2 * 86_400)
        let lowerLocal = ICalLocalDateTime.of(earliest, in: timeZone)
        let interval = rule["INTERVAL"].flatMap { Int($0) } ?? 1
        let canSkip = rule["COUNT"] == nil && (rule["FREQ"]?.uppercased() != "HOURLY" || interval == 1)
        if canSkip, earliest > startInstant {
            iterator.skip(to: Libical.floating(isDate ? lowerLocal.dayOnly : lowerLocal, isDate: isDate))
        }
        var starts: [Date] = []
        var steps = 0
        while let local = iterator.next() {
            steps += 1
            if steps > ICalRecurrence.maxIterations {
                return (starts, true, "RRULE '\(text)' needed more than \(ICalRecurrence.maxIterations) "
                        + "steps without reaching the window end; expansion stopped early")
            }
            if local < lowerLocal && untilLimit == nil { continue }
            let at = instant(local)
            if let untilLimit, at > untilLimit { break }
            if local < lowerLocal { continue }
            if at >= window.end { break }
            if overlaps(at) {
                starts.append(at)
                if starts.count > cap { return (starts, true, nil) }
            }
        }
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

/// Owns a libical `icalrecur_iterator` and frees it in `deinit`.
private final class LibicalRecurrenceIterator {
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
