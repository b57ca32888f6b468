import CICal
import Foundation

/// The times of day a rule's BYHOUR/BYMINUTE/BYSECOND lists give each day (each hour, for HOURLY),
/// expanded here instead of by libical.
///
/// libical 3.0 recomputes these lists on every step once `icalrecur_iterator_set_start` has moved
/// the iterator: `FREQ=YEARLY;BYMONTH=1,…,12;BYMONTHDAY=1,…,28;BYHOUR=0,…,23;BYMINUTE=0,…,59;
/// BYSECOND=0,…,59` cost 14 ms a step, so 1,000 occurrences took 14 s in every listing. Without the
/// lists libical steps over days (hours) cheaply, and each of its steps is multiplied out here.
/// Not used with BYSETPOS, which picks from the whole expanded set.
struct TimesOfDay {
    let hours: [Int]?
    let minutes: [Int]?
    let seconds: [Int]?
    /// The rule libical walks: the original without the lists expanded here.
    let baseRule: ICalRuleText

    init?(_ rule: ICalRuleText) {
        guard rule["BYSETPOS"] == nil, let freq = rule["FREQ"]?.uppercased() else { return nil }
        let keys: [String]
        switch freq {
        case "DAILY", "WEEKLY", "MONTHLY", "YEARLY": keys = ["BYHOUR", "BYMINUTE", "BYSECOND"]
        case "HOURLY": keys = ["BYMINUTE", "BYSECOND"]
        default: return nil
        }
        func values(_ key: String) -> [Int]? {
            guard keys.contains(key), let text = rule[key] else { return nil }
            let numbers = text.split(separator: ",").compactMap { Int($0.trimmingWhitespace()) }
            return numbers.isEmpty ? nil : Array(Set(numbers)).sorted()
        }
        hours = values("BYHOUR")
        minutes = values("BYMINUTE")
        seconds = values("BYSECOND")
        // A single value each is libical's cheap case; only lists are taken over.
        guard [hours, minutes, seconds].contains(where: { ($0?.count ?? 0) > 1 }) else { return nil }
        var base = rule
        base.parts.removeAll { keys.contains($0.key) }
        baseRule = base
    }
}

/// Multiplies each step of `inner` out by the times of day, in order, from `start` on.
final class TimesOfDaySteps: OccurrenceSteps {
    private let inner: any OccurrenceSteps
    private let times: TimesOfDay
    private var base: ICalLocalDateTime?
    /// Positions in the hour, minute and second lists (an odometer).
    private var position = (0, 0, 0)
    private var earliest: ICalLocalDateTime

    init(_ inner: any OccurrenceSteps, times: TimesOfDay, start: ICalLocalDateTime) {
        self.inner = inner
        self.times = times
        earliest = start
    }

    func skip(to time: icaltimetype) {
        let target = Libical.local(time)
        guard target > earliest else { return }
        earliest = target
        // The day's (hour's) base step may sit after times the lists give that day: start at its top.
        inner.skip(to: Libical.floating(ICalLocalDateTime(year: target.year, month: target.month, day: target.day,
                                                          hour: times.hours == nil ? target.hour : 0),
                                        isDate: false))
        base = nil
    }

    func next() -> ICalLocalDateTime? {
        while true {
            if base == nil {
                guard let step = inner.next() else { return nil }
                base = step
                position = (0, 0, 0)
            }
            guard let day = base, let time = current(day) else {
                base = nil
                continue
            }
            advance()
            // At most one day's (hour's) list is passed over here, with no libical call.
            if time >= earliest { return time }
        }
    }

    private func list(_ values: [Int]?, _ fallback: Int) -> [Int] { values ?? [fallback] }

    private func current(_ day: ICalLocalDateTime) -> ICalLocalDateTime? {
        let hours = list(times.hours, day.hour)
        guard position.0 < hours.count else { return nil }
        return ICalLocalDateTime(year: day.year, month: day.month, day: day.day, hour: hours[position.0],
                                 minute: list(times.minutes, day.minute)[position.1],
                                 second: list(times.seconds, day.second)[position.2])
    }

    private func advance() {
        guard let day = base else { return }
        position.2 += 1
        guard position.2 == list(times.seconds, day.second).count else { return }
        position.2 = 0
        position.1 += 1
        guard position.1 == list(times.minutes, day.minute).count else { return }
        position.1 = 0
        position.0 += 1
    }
}

/// A rule's occurrences as RFC 5545 counts them: DTSTART is always the first, even when the rule
/// itself would not give it (`WEEKLY;BYDAY=MO` from a Tuesday, as libical 3.1, Google and Outlook
/// have it), and COUNT includes it.
final class CountedSteps: OccurrenceSteps {
    private let inner: any OccurrenceSteps
    private let start: ICalLocalDateTime?
    private let count: Int?
    private var yielded = 0
    /// The rule's own next occurrence, held while DTSTART is yielded before it.
    private var pending: ICalLocalDateTime?
    private var begun = false

    /// `start`: DTSTART, yielded first if the rule does not give it; nil to yield only the rule's own.
    init(_ inner: any OccurrenceSteps, start: ICalLocalDateTime?, count: Int?) {
        self.inner = inner
        self.start = start
        self.count = count
    }

    /// Only used without COUNT, past DTSTART.
    func skip(to time: icaltimetype) {
        begun = true
        inner.skip(to: time)
    }

    func next() -> ICalLocalDateTime? {
        if let count, yielded >= count { return nil }
        let local: ICalLocalDateTime?
        if !begun {
            begun = true
            let first = inner.next()
            if let start, first != start {
                pending = first
                local = start
            } else {
                local = first
            }
        } else if let held = pending {
            pending = nil
            local = held
        } else {
            local = inner.next()
        }
        if local != nil { yielded += 1 }
        return local
    }
}
