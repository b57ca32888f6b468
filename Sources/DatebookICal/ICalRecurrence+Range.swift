import Foundation

/// One half of a series split by a `RECURRENCE-ID;RANGE=THISANDFUTURE` override.
public struct ICalSeriesPart: Sendable, Equatable {
    public var rrule: String?
    public var rdates: [ICalDateValue]
    public var exdates: [ICalDateValue]
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
