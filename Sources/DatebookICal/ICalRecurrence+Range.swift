import Foundation

/// One half of a series split by a `RECURRENCE-ID;RANGE=THISANDFUTURE` override.
public struct ICalSeriesPart: Sendable, Equatable {
    public var rrule: String?
    public var rdates: [ICalDateValue]
    public var exdates: [ICalDateValue]

    public init(rrule: String?, rdates: [ICalDateValue], exdates: [ICalDateValue]) {
        self.rrule = rrule
        self.rdates = rdates
        self.exdates = exdates
    }
}

extension ICalRecurrence {
    /// Splits a series at the instance `recurrenceID`: the instances before it stay with the master
    /// (`before`, nil when there are none), the instance and all later ones move by `shift` seconds
    /// and belong to the override (`after`, starting at `recurrenceID + shift`).
    ///
    /// Returns nil when the moved instances cannot be written as a rule from the new start: a rule
    /// with BYxxx parts (their days and times do not move with the start) and a shift other than 0.
    /// The caller then applies the override to that one instance and says so.
    public static func split(rrule: String?, rdates: [ICalDateValue], exdates: [ICalDateValue], start: ICalDateValue,
                             at recurrenceID: Date, shift: TimeInterval, timeZone: TimeZone)
        -> (before: ICalSeriesPart?, after: ICalSeriesPart)? {
        let moved = { (values: [ICalDateValue]) in values.filter { $0.resolve(in: timeZone) >= recurrenceID }.map { shifted($0, by: shift) } }
        let kept = { (values: [ICalDateValue]) in values.filter { $0.resolve(in: timeZone) < recurrenceID } }
        guard let rrule else {
            let before = kept(rdates)
            return (before: ICalSeriesPart(rrule: nil, rdates: before, exdates: kept(exdates)),
                    after: ICalSeriesPart(rrule: nil, rdates: moved(rdates), exdates: moved(exdates)))
        }
        let rule = ICalRuleText(rrule)
        let derivedFromStart = rule.parts.allSatisfy { ["FREQ", "INTERVAL", "COUNT", "UNTIL", "WKST"].contains($0.key) }
        guard shift == 0 || derivedFromStart, rule.refusal == nil else { return nil }
        var beforeRule: String?
        var afterRule = rule
        if let count = rule["COUNT"].flatMap({ Int($0) }) {
            // COUNT counts from DTSTART, before EXDATEs: the instances before the split keep theirs.
            let startInstant = start.resolve(in: timeZone)
            let earlier = recurrenceID > startInstant
                ? (try? occurrences(rrule: rrule, rdates: [], exdates: [], start: start, duration: 0, timeZone: timeZone,
                                    window: DateInterval(start: startInstant, end: recurrenceID), cap: count))?.starts.count ?? 0
                : 0
            if earlier > 0 { beforeRule = rule.replacing("COUNT", with: String(earlier)) }
            guard count - earlier > 0 else { return nil }
            afterRule = ICalRuleText(rule.replacing("COUNT", with: String(count - earlier)))
        } else {
            let cut = recurrenceID.addingTimeInterval(-1)
            let until = rule.until.map { $0.resolve(in: timeZone) }
            if cut >= start.resolve(in: timeZone) {
                beforeRule = rule.replacing("UNTIL", with: ICalFormat.utc(min(cut, until ?? cut)))
            }
            if let until {
                guard until >= recurrenceID else { return nil }
                afterRule = ICalRuleText(rule.replacing("UNTIL", with: ICalFormat.utc(until.addingTimeInterval(shift))))
            }
        }
        let before = beforeRule == nil && kept(rdates).isEmpty ? nil
            : ICalSeriesPart(rrule: beforeRule, rdates: kept(rdates), exdates: kept(exdates))
        return (before, ICalSeriesPart(rrule: afterRule.without([]), rdates: moved(rdates), exdates: moved(exdates)))
    }

    /// A part of a series that a RANGE=THISANDFUTURE override split off: the original instance it
    /// took over from, its own start (where that instance moved to) and its instances.
    public struct Tail: Sendable {
        public var from: Date
        public var start: ICalDateValue
        public var part: ICalSeriesPart

        public init(from: Date, start: ICalDateValue, part: ICalSeriesPart) {
            self.from = from
            self.start = start
            self.part = part
        }
    }

    /// The inverse of `split`: the one series whose instances are the master's (`master` from
    /// `start`) and each tail's moved back to where its override took it from, so the tails can be
    /// written as RANGE=THISANDFUTURE overrides without rules of their own, as other programs
    /// (recurring-ical-events) read them: they move the master's later instances, they add none.
    /// Nil when no one rule gives exactly those instances (checked by expanding both ways, up to
    /// 800 days past the last tail or 5,000 instances).
    public static func join(master: ICalSeriesPart, start: ICalDateValue, tails: [Tail], timeZone: TimeZone) -> ICalSeriesPart? {
        guard let masterRule = master.rrule, let last = tails.max(by: { $0.from < $1.from }) else { return nil }
        let rule = ICalRuleText(masterRule)
        let bounds: Set<String> = ["COUNT", "UNTIL"]
        let shape = rule.without(bounds)
        guard rule.refusal == nil, tails.allSatisfy({ $0.part.rrule.map { ICalRuleText($0).without(bounds) } == shape }),
              let lastRule = last.part.rrule.map(ICalRuleText.init) else { return nil }
        let startInstant = start.resolve(in: timeZone)
        func shift(_ tail: Tail) -> TimeInterval { wallClock(tail.start.resolve(in: timeZone), timeZone) - wallClock(tail.from, timeZone) }
        let joined: String
        if lastRule["COUNT"] != nil {
            let counts = ([rule] + tails.compactMap { $0.part.rrule.map(ICalRuleText.init) }).map { $0["COUNT"].flatMap { Int($0) } }
            guard counts.allSatisfy({ $0 != nil }) else { return nil }
            joined = rule.replacing("COUNT", with: String(counts.reduce(0) { $0 + ($1 ?? 0) }))
        } else if let until = lastRule.until {
            let back = movedBack(until.resolve(in: timeZone), by: shift(last), timeZone)
            joined = ICalRuleText(shape).replacing("UNTIL", with: ICalFormat.utc(back))
        } else {
            joined = shape
        }
        func back(_ values: [ICalDateValue], _ tail: Tail) -> [ICalDateValue] {
            values.map { value in
                switch value {
                case let .zoned(instant, tzid): return .zoned(movedBack(instant, by: shift(tail), timeZone), tzid: tzid)
                case let .utc(instant): return .utc(movedBack(instant, by: shift(tail), timeZone))
                case .date, .floating: return shifted(value, by: -shift(tail))
                }
            }
        }
        let result = ICalSeriesPart(rrule: joined, rdates: master.rdates + tails.flatMap { back($0.part.rdates, $0) },
                                    exdates: master.exdates + tails.flatMap { back($0.part.exdates, $0) })
        let window = DateInterval(start: startInstant, end: max(last.from, startInstant).addingTimeInterval(800 * 86_400))
        func starts(_ part: ICalSeriesPart, from start: ICalDateValue) -> [Date]? {
            (try? occurrences(rrule: part.rrule, rdates: part.rdates, exdates: part.exdates, start: start, duration: 0,
                              timeZone: timeZone, window: window, cap: 5_000))?.starts
        }
        guard let whole = starts(result, from: start), var pieces = starts(master, from: start) else { return nil }
        for tail in tails {
            guard let moved = starts(tail.part, from: tail.start) else { return nil }
            pieces += moved.map { movedBack($0, by: shift(tail), timeZone) }
        }
        return Set(whole) == Set(pieces) && whole.count == pieces.count ? result : nil
    }

    /// An instant's wall-clock time in `zone`, read as UTC seconds.
    private static func wallClock(_ instant: Date, _ zone: TimeZone) -> TimeInterval {
        ICalLocalDateTime.of(instant, in: zone).instant(in: ICalCalendars.utc).timeIntervalSince1970
    }

    /// `instant` moved back by `shift` wall-clock seconds in `zone` (as RANGE=THISANDFUTURE moves instances).
    private static func movedBack(_ instant: Date, by shift: TimeInterval, _ zone: TimeZone) -> Date {
        let wall = Date(timeIntervalSince1970: wallClock(instant, zone) - shift)
        return ICalLocalDateTime.of(wall, in: ICalCalendars.utc).instant(in: zone)
    }

    private static func shifted(_ value: ICalDateValue, by shift: TimeInterval) -> ICalDateValue {
        switch value {
        case let .date(year, month, day):
            let utc = ICalCalendars.utc
            let moved = ICalLocalDateTime(year: year, month: month, day: day).instant(in: utc).addingTimeInterval(shift)
            return ICalLocalDateTime.of(moved, in: utc).dayOnlyValue
        case let .zoned(instant, tzid): return .zoned(instant.addingTimeInterval(shift), tzid: tzid)
        case let .utc(instant): return .utc(instant.addingTimeInterval(shift))
        case let .floating(local):
            let utc = ICalCalendars.utc
            return .floating(ICalLocalDateTime.of(local.instant(in: utc).addingTimeInterval(shift), in: utc))
        }
    }
}

extension ICalLocalDateTime {
    fileprivate var dayOnlyValue: ICalDateValue { .date(year: year, month: month, day: day) }
}

extension ICalRuleText {
    /// The rule text with `key` set to `value` (added at the end when absent).
    func replacing(_ key: String, with value: String) -> String {
        var copy = self
        if let index = copy.parts.firstIndex(where: { $0.key == key }) {
            copy.parts[index].value = value
        } else {
            copy.parts.append((key, value))
        }
        return copy.without([])
    }
}
