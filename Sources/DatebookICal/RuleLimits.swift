import CICal

/// Rule parts that libical 3.0 gets wrong, applied here to its walk of the rest of the rule:
///
/// - **BYSETPOS of a WEEKLY, DAILY or HOURLY rule**, and of a MONTHLY or YEARLY one with several
///   times a day. libical ignores it in the first (`WEEKLY;BYDAY=MO,FR;BYSETPOS=-1` gave every
///   Monday as well as every Friday) and picks whole days in the second (`MONTHLY;BYHOUR=9,17;
///   BYSETPOS=-1` gave both times). Here each year, month, week (from WKST), day or hour of the walk
///   is gathered and the positions are picked from it. So that the first period is whole, the walk
///   starts at that period's beginning, with what DTSTART implied (its month, day or weekday, its
///   time of day) written into the rule; what comes before DTSTART is then dropped.
/// - **A negative BYMONTHDAY of a DAILY or HOURLY rule**, where BYMONTHDAY only limits: libical gives
///   no occurrence at all for `DAILY;BYMONTHDAY=-2`, and leaves the last day out of `BYMONTHDAY=2,-1`.
///   Here the walk runs without BYMONTHDAY and its days are kept by their place in the month.
/// - **The INTERVAL of a WEEKLY rule** (one `DaySteps` does not step). libical misplaces the weeks
///   when DTSTART is not on the rule (`INTERVAL=2;BYDAY=SU` from Thursday 30 April 2026 gave 10 May,
///   not 3 May) and for a WKST from WE to SA. Here the walk runs every week, and a week is kept when
///   its distance in weeks from DTSTART's week (both begun on WKST) is a multiple of INTERVAL.
///
/// - **BYYEARDAY beside BYMONTH or BYMONTHDAY, and BYWEEKNO, of a YEARLY rule.** libical refuses
///   the first (`BYYEARDAY=100,200;BYMONTH=4,7`, 10 April and 19 July, kept only DTSTART, without a
///   word) and misplaces BYWEEKNO: without BYDAY it gave a day of no rule, out of order
///   (`BYWEEKNO=1,20` from Thursday 1 January 2026: 30 December, then 12 May, which the listing never
///   reached), and it missed weeks at the year's ends (`BYWEEKNO=-1;BYDAY=TH`: no 30 December 2027).
///   Here libical walks the rule without them (BYWEEKNO without BYDAY, BYYEARDAY or BYMONTHDAY on
///   DTSTART's weekday, as libical's own fix and lib-recur read it), and its days are kept by their
///   month, day of the month and week of the year (from WKST; week 1 has four days of the year or more).
///   A BYDAY with ordinals beside BYWEEKNO stays libical's.
///
/// libical gets the rest of MONTHLY and YEARLY rules right, and walks them alone, as it walks every
/// RSCALE rule (RFC 7529). `RuleLimitsTests` compares the occurrences with Python's dateutil, and
/// `RulePeerTests` seeded random rules with recurring-ical-events.
struct RuleLimits {
    enum Period { case year, month, week(firstWeekday: Int32), day, hour }

    /// The rule libical walks.
    let baseRule: ICalRuleText
    /// Where libical's walk starts: DTSTART, or the beginning of DTSTART's period.
    let baseStart: ICalLocalDateTime
    /// BYMONTHDAY, kept here when one of its days counts from the month's end, or beside BYYEARDAY.
    let monthDays: [Int]?
    /// BYMONTH, kept here beside BYYEARDAY or BYWEEKNO (YEARLY).
    let months: [Int]?
    /// BYWEEKNO, kept here (YEARLY): weeks of the year from its first, or (negative) its last.
    let weekNumbers: [Int]?
    /// WKST as libical counts weekdays (1: Sunday).
    let weekStart: Int32
    /// BYSETPOS, picked here from each period.
    let positions: [Int]?
    /// A WEEKLY rule's INTERVAL, kept here by the weeks from DTSTART's week (with its WKST).
    let weekInterval: Int?
    /// The first day of DTSTART's week (WEEKLY only).
    let firstWeek: ICalLocalDateTime
    let period: Period

    init?(_ rule: ICalRuleText, start: ICalLocalDateTime, isDate: Bool) {
        // Months and their lengths here are Gregorian; an RSCALE rule's stay libical's (ICU calendars).
        guard rule["RSCALE"] == nil else { return nil }
        let period: Period
        let weekStart = Int32((Libical.weekdays.firstIndex(of: rule["WKST"]?.uppercased() ?? "MO") ?? 1) + 1)
        switch rule["FREQ"]?.uppercased() {
        case "WEEKLY": period = .week(firstWeekday: weekStart)
        case "DAILY": period = .day
        case "HOURLY": period = .hour
        case "MONTHLY": period = .month
        case "YEARLY": period = .year
        default: return nil
        }
        let days = rule.numbers("BYMONTHDAY")
        var monthDays: [Int]?
        var months: [Int]?
        var weekNumbers: [Int]?
        let positions: [Int]?
        switch period {
        case .year, .month:
            // libical picks whole days there: right unless a day holds several times, or a part is kept here.
            let timeLists = ["BYHOUR", "BYMINUTE", "BYSECOND"].contains { (rule.numbers($0)?.count ?? 0) > 1 }
            if case .year = period {
                let yearDays = rule["BYYEARDAY"] != nil
                let ordinals = rule["BYDAY"]?.contains { $0.isNumber } == true
                weekNumbers = ordinals ? nil : rule.numbers("BYWEEKNO")
                // Beside BYMONTHDAY alone, libical walks BYMONTH itself (every month where there is none).
                months = yearDays || (weekNumbers != nil && days == nil) ? rule.numbers("BYMONTH") : nil
                monthDays = yearDays ? days : nil
            }
            positions = timeLists || months != nil || monthDays != nil || weekNumbers != nil ? rule.numbers("BYSETPOS") : nil
        case .week, .day, .hour:
            monthDays = days?.contains { $0 < 0 } == true ? days : nil
            positions = rule.numbers("BYSETPOS")
        }
        let interval = rule.numbers("INTERVAL")?.first ?? 1
        var weeks: Int?
        if case .week = period, interval > 1 { weeks = interval }
        guard monthDays != nil || months != nil || weekNumbers != nil || positions != nil || weeks != nil else { return nil }
        let from = Self.periodStart(start, period)
        self.monthDays = monthDays
        self.months = months
        self.weekNumbers = weekNumbers
        self.weekStart = weekStart
        self.positions = positions
        self.weekInterval = weeks
        self.firstWeek = from
        self.period = period
        var base = rule
        base.parts.removeAll { part in
            part.key == "BYSETPOS" || (monthDays != nil && part.key == "BYMONTHDAY") || (months != nil && part.key == "BYMONTH")
                || (weekNumbers != nil && part.key == "BYWEEKNO") || (weeks != nil && (part.key == "INTERVAL" || part.key == "WKST"))
        }
        let startWeekday = Libical.weekdays[Int(icaltime_day_of_week(Libical.floating(start, isDate: true))) - 1]
        if weekNumbers != nil, base["BYYEARDAY"] == nil {
            // The days of those weeks: BYMONTHDAY's in every month (or BYMONTH's), else BYDAY's or DTSTART's weekday.
            if base["BYMONTHDAY"] != nil {
                if base["BYMONTH"] == nil { base.parts.append(("BYMONTH", (1...12).map(String.init).joined(separator: ","))) }
            } else if base["BYDAY"] == nil {
                base.parts.append(("BYDAY", startWeekday))
            }
        }
        var baseStart = start
        if positions != nil {
            func imply(_ key: String, _ value: String) {
                if base[key] == nil { base.parts.append((key, value)) }
            }
            let atStartTime = ICalLocalDateTime(year: from.year, month: from.month, day: from.day, hour: start.hour,
                                                minute: start.minute, second: start.second)
            let dayParts = ["BYDAY", "BYMONTHDAY", "BYYEARDAY", "BYWEEKNO"].filter { base[$0] != nil }
            switch period {
            case .year:
                // libical takes the month from DTSTART unless BYDAY alone, BYWEEKNO or BYYEARDAY spans the year.
                if base["BYWEEKNO"] == nil, base["BYYEARDAY"] == nil, base["BYMONTHDAY"] != nil || base["BYDAY"] == nil {
                    imply("BYMONTH", String(start.month))
                }
                if dayParts.isEmpty { imply("BYMONTHDAY", String(start.day)) }
                baseStart = atStartTime
            case .month:
                if dayParts.isEmpty { imply("BYMONTHDAY", String(start.day)) }
                baseStart = atStartTime
            case .week:
                imply("BYDAY", startWeekday)
                baseStart = atStartTime
            case .day, .hour:
                if !isDate {
                    if case .day = period { imply("BYHOUR", String(start.hour)) }
                    imply("BYMINUTE", String(start.minute))
                    imply("BYSECOND", String(start.second))
                    baseStart = from
                }
            }
        }
        baseRule = base
        self.baseStart = baseStart
    }

    /// The first instant of the week (from WKST), day or hour that holds `local`.
    static func periodStart(_ local: ICalLocalDateTime, _ period: Period) -> ICalLocalDateTime {
        switch period {
        case .year:
            return ICalLocalDateTime(year: local.year, month: 1, day: 1)
        case .month:
            return ICalLocalDateTime(year: local.year, month: local.month, day: 1)
        case let .week(firstWeekday):
            var time = Libical.floating(local, isDate: true)
            let back = (icaltime_day_of_week(time) - firstWeekday + 7) % 7
            icaltime_adjust(&time, -back, 0, 0, 0)
            return Libical.local(time)
        case .day:
            return ICalLocalDateTime(year: local.year, month: local.month, day: local.day)
        case .hour:
            return ICalLocalDateTime(year: local.year, month: local.month, day: local.day, hour: local.hour)
        }
    }

    /// Whether the month-day limit and the week interval keep `local`.
    func keeps(_ local: ICalLocalDateTime) -> Bool {
        if let weekInterval {
            // Floating dates as seconds count whole days exactly: no zone, no DST.
            let seconds = icaltime_as_timet(Libical.floating(Self.periodStart(local, period), isDate: true))
                - icaltime_as_timet(Libical.floating(firstWeek, isDate: true))
            guard (Int(seconds) / (7 * 86_400)) % weekInterval == 0 else { return false }
        }
        if let months, !months.contains(local.month) { return false }
        if let weekNumbers {
            let week = Self.week(of: local, firstWeekday: weekStart)
            guard weekNumbers.contains(week.number) || weekNumbers.contains(week.fromEnd) else { return false }
        }
        guard let monthDays else { return true }
        let length = Int(icaltime_days_in_month(Int32(local.month), Int32(local.year)))
        return monthDays.contains { $0 == local.day || $0 == local.day - length - 1 }
    }

    /// The week of its year that holds `local` (weeks begin on `firstWeekday`, 1: Sunday; week 1 is
    /// the first with four days of the year or more), counted from the first and (negative) from
    /// the last. A day before week 1 is in the last week of the year before, one after the last
    /// week in week 1 of the next (31 December 2029 is in week 1 of 2030).
    static func week(of local: ICalLocalDateTime, firstWeekday: Int32) -> (number: Int, fromEnd: Int) {
        func day(_ date: ICalLocalDateTime) -> Int { Int(icaltime_as_timet(Libical.floating(date, isDate: true)) / 86_400) }
        func firstWeek(_ year: Int) -> Int {
            let january = ICalLocalDateTime(year: year, month: 1, day: 1)
            let before = Int((icaltime_day_of_week(Libical.floating(january, isDate: true)) - firstWeekday + 7) % 7)
            return before <= 3 ? day(january) - before : day(january) + 7 - before
        }
        let today = day(ICalLocalDateTime(year: local.year, month: local.month, day: local.day))
        var year = local.year
        if today < firstWeek(year) { year -= 1 } else if today >= firstWeek(year + 1) { year += 1 }
        let number = (today - firstWeek(year)) / 7 + 1
        return (number, number - (firstWeek(year + 1) - firstWeek(year)) / 7 - 1)
    }

    /// The members of one period's set (in order) that BYSETPOS names, in order.
    func pick(_ set: [ICalLocalDateTime]) -> [ICalLocalDateTime] {
        guard let positions else { return set }
        let indices = Set(positions.compactMap { position -> Int? in
            let index = position > 0 ? position - 1 : set.count + position
            return set.indices.contains(index) ? index : nil
        })
        return indices.sorted().map { set[$0] }
    }
}

/// `inner`'s steps with `RuleLimits` applied, none before `start` and none of a period that begins
/// after `end` (the expansion's last wall-clock time: a position that never matches would otherwise
/// walk the rule for as long as the step bound allows).
final class LimitedSteps: OccurrenceSteps {
    private let inner: any OccurrenceSteps
    private let limits: RuleLimits
    private let start: ICalLocalDateTime
    private let end: ICalLocalDateTime
    private let isDate: Bool
    /// The picks of the last period read, and how many of them were yielded.
    private var ready: [ICalLocalDateTime] = []
    private var yielded = 0
    /// The first step of the next period, read while the last one was gathered.
    private var held: ICalLocalDateTime?
    /// libical steps passed over, bounded like the expansion's own (a limit may never match).
    private var steps = 0
    /// Whether the walk stopped at that bound rather than at its end or `end`.
    private(set) var ranOut = false
    /// The walk reached its end, or a period after `end`.
    private var finished = false

    init(_ inner: any OccurrenceSteps, limits: RuleLimits, start: ICalLocalDateTime, end: ICalLocalDateTime, isDate: Bool) {
        self.inner = inner
        self.limits = limits
        self.start = start
        self.end = end
        self.isDate = isDate
    }

    func skip(to time: icaltimetype) {
        // From the start of the period that holds `time`, so that period is gathered whole.
        let from = RuleLimits.periodStart(Libical.local(time), limits.period)
        inner.skip(to: Libical.floating(from, isDate: isDate))
        ready = []
        yielded = 0
        held = nil
        finished = false
    }

    func next() -> ICalLocalDateTime? {
        while yielded == ready.count {
            guard let set = gather() else { return nil }
            ready = limits.pick(set).filter { $0 >= start }
            yielded = 0
        }
        yielded += 1
        return ready[yielded - 1]
    }

    /// The kept steps of the next period (one step at a time without BYSETPOS); nil at the end.
    private func gather() -> [ICalLocalDateTime]? {
        var set: [ICalLocalDateTime] = []
        var period: ICalLocalDateTime?
        while !finished {
            guard steps < ICalRecurrence.maxIterations else {
                // The last period may not be whole: none of it is picked.
                ranOut = true
                return nil
            }
            let step: ICalLocalDateTime
            if let waiting = held {
                step = waiting
                held = nil
            } else if let walked = inner.next() {
                step = walked
                steps += 1
            } else {
                finished = true
                break
            }
            let stepPeriod = RuleLimits.periodStart(step, limits.period)
            if stepPeriod > end {
                finished = true
                break
            }
            guard limits.keeps(step) else { continue }
            guard limits.positions != nil else { return [step] }
            if let period, stepPeriod != period {
                held = step
                return set
            }
            period = stepPeriod
            set.append(step)
        }
        return set.isEmpty ? nil : set
    }
}
