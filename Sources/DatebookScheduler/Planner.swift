import DatebookCore
import DatebookStore
import Foundation

/// Works out which alerts and digests are scheduled in a window of time. Reads the store, writes nothing.
///
/// All arithmetic is in the configured zone: `1d` is one calendar day (same wall time across DST),
/// all-day events count from local midnight, and digests follow `DigestTime.instant`.
public struct Planner {
    public let store: any PlannerStore
    public let config: Config
    public let calendar: Calendar

    public init(store: any PlannerStore, config: Config, calendar: Calendar) {
        self.store = store
        self.config = config
        self.calendar = calendar
    }

    /// Everything scheduled in `(from, to]`, in order of `scheduled`, then key.
    public func deliveries(from: Date, through to: Date) throws -> [PlannedDelivery] {
        guard from < to else { return [] }
        let planned = try alerts(from: from, through: to) + digests(from: from, through: to)
        return planned.sorted { ($0.scheduled, $0.key) < ($1.scheduled, $1.key) }
    }

    /// The lead times an event is alerted with: its own, or the config's `alerts.before`.
    public func leads(for event: Event) -> [LeadTime] {
        event.alerts.isEmpty ? config.alerts.before : event.alerts
    }

    /// The alerts of the events `ids` scheduled in `(from, to]`, in order of `scheduled`, then key.
    ///
    /// A pass looks back this way for the events changed since the last one, over a window of a
    /// day and more: single events are read by id and their alerts worked out directly (a scan of
    /// the window read every event in it, most of a `tick`'s time on a large planner); recurring
    /// ones are expanded by the scan of `alerts(from:through:only:)` (the same answer,
    /// PlannerWindowTests).
    public func alerts(of ids: Set<String>, from: Date, through to: Date) throws -> [PlannedDelivery] {
        guard from < to, !ids.isEmpty, !config.alerts.channels.isEmpty else { return [] }
        let events = try store.events(ids: Array(ids))
        var found: [PlannedDelivery] = []
        var seen = Set<String>()
        for event in events.values where event.recurrence == nil {
            let occurrence = Occurrence(event: event, calendar: calendar)
            for lead in leads(for: event) { add(occurrence, lead: lead, from: from, through: to, to: &found, seen: &seen) }
        }
        let recurring = Set(events.values.filter { $0.recurrence != nil }.map(\.id))
        if !recurring.isEmpty { found += try alerts(from: from, through: to, only: recurring) }
        return found.sorted { ($0.scheduled, $0.key) < ($1.scheduled, $1.key) }
    }

    /// `only`: the events to look at (nil: all).
    func alerts(from: Date, through to: Date, only: Set<String>? = nil) throws -> [PlannedDelivery] {
        guard !config.alerts.channels.isEmpty else { return [] }
        var allLeads = Set(config.alerts.before)
        for text in try store.distinctEventAlerts() {
            for word in text.split(separator: " ") { if let lead = LeadTime(String(word)) { allLeads.insert(lead) } }
        }
        var found: [PlannedDelivery] = []
        var seen = Set<String>()
        for lead in allLeads.sorted(by: { ($0.days, $0.seconds, $0.description) < ($1.days, $1.seconds, $1.description) }) {
            guard let window = Self.occurrenceWindow(lead, from: from, through: to) else { continue }
            // An instant alert goes to one occurrence per event: the first at or after it, else the last before it.
            var chosen: [String: Occurrence] = [:]
            try store.forEachOccurrence(from: window.lowerBound, to: window.upperBound, calendar: calendar) { occurrence in
                guard only?.contains(occurrence.event.id) ?? true, leads(for: occurrence.event).contains(lead) else { return }
                guard case .instant(let instant) = lead.anchor else {
                    return add(occurrence, lead: lead, from: from, through: to, to: &found, seen: &seen)
                }
                if chosen[occurrence.event.id].map({ $0.start < instant }) ?? true { chosen[occurrence.event.id] = occurrence }
            }
            for (_, occurrence) in chosen.sorted(by: { $0.key < $1.key }) {
                add(occurrence, lead: lead, from: from, through: to, to: &found, seen: &seen)
            }
        }
        return found
    }

    /// How long an event may last for its alerts before the end to be planned: a pass reads the
    /// occurrences that start up to this long before its window (a month of starts, not all).
    public static let endAlertReach: TimeInterval = 31 * 86_400
    /// How far from an instant alert its event's occurrences are looked for (a year either way).
    public static let instantAlertReach: TimeInterval = 366 * 86_400

    /// The starts of the occurrences whose alert `lead` may fall due in `(from, to]`; nil when none can.
    static func occurrenceWindow(_ lead: LeadTime, from: Date, through to: Date) -> ClosedRange<Date>? {
        let span = TimeInterval(lead.totalSeconds)
        // A calendar day is 23 to 25 hours: a lead of days widens its occurrence window by 3 h
        // and filters exactly. A lead of hours and minutes is an exact span: its window is
        // `(from, to]` shifted by it, so a pass reads only the events it may plan.
        let margin: TimeInterval = lead.days > 0 ? 3 * 3600 : 0
        switch lead.anchor {
        case .start:
            return from.addingTimeInterval(span - margin)...to.addingTimeInterval(span + margin + 1)
        case .end:
            return from.addingTimeInterval(span - margin - endAlertReach)...to.addingTimeInterval(span + margin + 1)
        case .instant(let instant):
            guard instant > from, instant <= to else { return nil }
            return instant.addingTimeInterval(-instantAlertReach)...instant.addingTimeInterval(instantAlertReach)
        }
    }

    /// The alert `lead` of `occurrence` on each channel, when it is scheduled in `(from, to]`.
    private func add(_ occurrence: Occurrence, lead: LeadTime, from: Date, through to: Date,
                     to found: inout [PlannedDelivery], seen: inout Set<String>) {
        let scheduled = lead.due(for: occurrence, calendar: calendar)
        guard scheduled > from, scheduled <= to else { return }
        let due = deferredPastQuietHours(scheduled)
        for channel in config.alerts.channels {
            let delivery = PlannedDelivery(item: .alert(occurrence, lead: lead), channel: channel, scheduled: scheduled, due: due)
            if seen.insert(delivery.key).inserted { found.append(delivery) }
        }
    }

    func digests(from: Date, through to: Date) -> [PlannedDelivery] {
        guard !config.digests.isEmpty else { return [] }
        let first = CalendarDate(from, in: calendar.timeZone).dayNumber - 1
        let last = CalendarDate(to, in: calendar.timeZone).dayNumber + 1
        var found: [PlannedDelivery] = []
        for dayNumber in first...max(first, last) {
            let date = CalendarDate(dayNumber: dayNumber)
            for schedule in config.digests where schedule.weekdays.contains(((dayNumber % 7) + 11) % 7) {
                let at = DigestTime.instant(of: schedule.at, on: date, in: calendar.timeZone)
                guard at > from, at <= to else { continue }
                for channel in schedule.channels {
                    found.append(PlannedDelivery(item: .digest(schedule, date: date), channel: channel, scheduled: at, due: at))
                }
            }
        }
        return found
    }

    /// `scheduled`, or the end of the quiet window it falls in (deferred, never dropped).
    public func deferredPastQuietHours(_ scheduled: Date) -> Date {
        guard let quiet = config.alerts.quietHours else { return scheduled }
        let local = LocalTime(scheduled, in: calendar.timeZone)
        guard quiet.contains(minutes: local.hour * 60 + local.minute) else { return scheduled }
        // The window ends today unless it wraps midnight and we are in its evening part.
        let endsTomorrow = quiet.start.minutes > quiet.end.minutes && local.hour * 60 + local.minute >= quiet.start.minutes
        let day = CalendarDate(dayNumber: local.dayNumber + (endsTomorrow ? 1 : 0))
        return DigestTime.instant(of: quiet.end, on: day, in: calendar.timeZone)
    }
}

/// Turns a wall-clock time on a date into an instant, the way people expect around DST changes.
public enum DigestTime {
    /// A time skipped by spring-forward moves on by the gap (02:30 → 03:30); a time that happens
    /// twice on a fall-back day is the first one.
    public static func instant(of time: TimeOfDay, on date: CalendarDate, in zone: TimeZone) -> Date {
        let wall = TimeInterval(date.dayNumber * 86_400 + time.minutes * 60)
        let before = zone.secondsFromGMT(for: Date(timeIntervalSince1970: wall - 86_400))
        let after = zone.secondsFromGMT(for: Date(timeIntervalSince1970: wall + 86_400))
        let valid = Set([before, after]).map { Date(timeIntervalSince1970: wall - TimeInterval($0)) }
            .filter { zone.secondsFromGMT(for: $0) == Int(wall - $0.timeIntervalSince1970) }
        if let earliest = valid.min() { return earliest }
        // In a gap: the wall time read with the offset from before the change lands after the gap.
        return Date(timeIntervalSince1970: wall - TimeInterval(before))
    }
}
