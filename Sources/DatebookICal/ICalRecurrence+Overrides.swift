import Foundation

/// One dated instance of an event after recurrence and RECURRENCE-ID overrides are applied.
public struct ICalOccurrence: Sendable, Equatable {
    /// The VEVENT this instance comes from: the master, or the override that replaced it.
    public var event: ICalEvent
    public var start: Date
    public var end: Date?
    /// True when an override (RECURRENCE-ID) supplied this instance.
    public var isOverride: Bool

    public init(event: ICalEvent, start: Date, end: Date?, isOverride: Bool) {
        self.event = event
        self.start = start
        self.end = end
        self.isOverride = isOverride
    }
}

/// The occurrences of a set of events in a window, with the problems met on the way.
public struct ICalExpansion: Sendable, Equatable {
    public var occurrences: [ICalOccurrence]
    public var warnings: [ICalWarning]
}

extension ICalRecurrence {
    /// Expands all events and applies RECURRENCE-ID overrides.
    ///
    /// An override replaces the master's instance whose start equals its RECURRENCE-ID (compared
    /// as instants, so a UTC RECURRENCE-ID matches a TZID master); a CANCELLED override just
    /// removes it. An override whose master is missing stands alone as a single event; one with a
    /// lower SEQUENCE than its master, for an instance the master no longer gives, is stale and dropped.
    public static func expand(events: [ICalEvent], fileName: String, window: DateInterval,
                              defaultTimeZone: TimeZone, cap: Int) -> ICalExpansion {
        var overrides: [String: [ICalEvent]] = [:]
        var masters: [ICalEvent] = []
        for event in events {
            if event.recurrenceID != nil { overrides[event.uid, default: []].append(event) } else { masters.append(event) }
        }
        let byUID = Dictionary(masters.map { ($0.uid, $0) }, uniquingKeysWith: { first, _ in first })
        for (uid, moved) in overrides {
            guard let master = byUID[uid] else { continue }
            overrides[uid] = moved.filter { !isStale($0, of: master, defaultTimeZone: defaultTimeZone) }
        }
        let masterUIDs = Set(masters.map(\.uid))
        var result = ICalExpansion(occurrences: [], warnings: [])
        for master in masters {
            let zone = master.timeZone(default: defaultTimeZone)
            let duration = master.duration(in: zone)
            var starts: [Date]
            do {
                let expanded = try occurrences(rrule: master.rrule, rdates: master.rdates, exdates: master.exdates,
                                               exrules: master.exrules, start: master.start, duration: duration, timeZone: zone,
                                               window: window, cap: cap)
                starts = expanded.starts
                if let warning = expanded.warning {
                    result.warnings.append(ICalWarning(fileName: fileName, line: master.sourceLine,
                                                       uid: master.uid, message: warning))
                }
            } catch {
                result.warnings.append(ICalWarning(fileName: fileName, line: master.sourceLine, uid: master.uid,
                                                   message: "\(error); only DTSTART is used"))
                starts = [master.start.resolve(in: zone)]
            }
            let replaced = Set((overrides[master.uid] ?? []).compactMap { override in
                override.recurrenceID.map { master.start.isAllDay ? $0.day(fallback: zone) : $0 }?.resolve(in: zone)
            })
            // RANGE=THISANDFUTURE overrides, by the instant they take over from.
            let futures = (overrides[master.uid] ?? []).filter(\.thisAndFuture).compactMap { override in
                override.recurrenceID.map { (from: $0.resolve(in: zone), event: override) }
            }.sorted { $0.from < $1.from }
            for start in starts where !replaced.contains(start) {
                guard let future = futures.last(where: { $0.from <= start }) else {
                    result.occurrences.append(ICalOccurrence(event: master, start: start,
                                                             end: start.addingTimeInterval(duration), isOverride: false))
                    continue
                }
                // A later instance takes the override's properties, moved as the override moved its own.
                guard !future.event.isCancelled else { continue }
                let overrideZone = future.event.timeZone(default: defaultTimeZone)
                let moved = start.addingTimeInterval(future.event.start.resolve(in: overrideZone).timeIntervalSince(future.from))
                result.occurrences.append(ICalOccurrence(event: future.event, start: moved,
                                                         end: moved.addingTimeInterval(future.event.duration(in: overrideZone)),
                                                         isOverride: true))
            }
        }
        for (uid, moved) in overrides {
            for event in moved where !event.isCancelled {
                let zone = event.timeZone(default: defaultTimeZone)
                let start = event.start.resolve(in: zone)
                let end = event.end?.resolve(in: zone)
                let overlaps = start < window.end && (start >= window.start || (end ?? start) > window.start)
                guard overlaps else { continue }
                result.occurrences.append(ICalOccurrence(event: event, start: start, end: end,
                                                         isOverride: masterUIDs.contains(uid)))
            }
        }
        result.occurrences.sort { ($0.start, $0.event.uid) < ($1.start, $1.event.uid) }
        return result
    }

    /// True when `override` is older than `master` (lower SEQUENCE) and names an instance the
    /// master no longer gives: the series was changed after the instance was moved.
    public static func isStale(_ override: ICalEvent, of master: ICalEvent, defaultTimeZone: TimeZone) -> Bool {
        guard override.sequence < master.sequence, let recurrenceID = override.recurrenceID else { return false }
        let zone = master.timeZone(default: defaultTimeZone)
        let instant = (master.start.isAllDay ? recurrenceID.day(fallback: zone) : recurrenceID).resolve(in: zone)
        let found = try? occurrences(rrule: master.rrule, rdates: master.rdates, exdates: master.exdates,
                                     exrules: master.exrules, start: master.start, duration: 0, timeZone: zone,
                                     window: DateInterval(start: instant, duration: 1), cap: 1)
        return found?.starts.contains(instant) != true
    }
}
