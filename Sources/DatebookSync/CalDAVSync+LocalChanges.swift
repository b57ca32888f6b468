import DatebookCore
import DatebookICal
import DatebookStore
import Foundation

/// A change made in datebook while a sync runs (after its push read the store, before its pull
/// rebuilds the calendar's events from the server's texts) is kept over the server's copy, never
/// silently replaced: the pull's transaction finds the calendar's count of local changes moved
/// (`CalDAVLocalChanges`) and calls `keeping`'s closure, which merges field by field.
extension CalDAVSync {
    /// What the server lost to changes kept that way, collected in the pull's transaction.
    final class Lost {
        var messages: [String] = []
    }

    /// The closure `applyCalDAVChanges` calls in its transaction when the calendar was changed here
    /// since the push started: `made` with those changes kept (`keepingLocalChanges`). nil when the
    /// push was skipped (nothing read to compare with): the pull then applies nothing, and the sync
    /// runs once more, pushing first.
    func keeping(_ made: ICSImport?, after push: Pushed?, _ calendar: CalDAVCalendar, lost: Lost) -> (() throws -> ICSImport)? {
        guard let made, let read = push?.read else { return nil }
        return { [store] in
            let uids = try store.calDAVEventUIDs(of: calendar)
            let kept = Self.keepingLocalChanges(made, read: read, current: try store.events(ids: Array(uids.keys)), uids: uids)
            lost.messages += kept.lost
            return kept.events
        }
    }

    /// `made` with the changes the server refused at this sync's push kept over its copy, the same
    /// way as those made during the sync (`keepingLocalChanges`, against the server's copy the
    /// refused change was made from): they are tried again at the next sync.
    func keepingRefused(_ made: ICSImport, after push: Pushed?, _ calendar: CalDAVCalendar, lost: Lost) throws -> ICSImport {
        guard let refused = push?.refused, !refused.isEmpty else { return made }
        let kept = Self.keepingLocalChanges(made, read: refused, current: try store.events(ids: Array(refused.keys)),
                                            uids: try store.calDAVEventUIDs(of: calendar))
        lost.messages += kept.lost
        return kept.events
    }

    /// `made` (the events the server's texts make) with each change made here since the push read
    /// the store (`read`, by id) kept: an event whose `current` copy differs from the one read takes
    /// datebook's value of each field changed here and the server's of the others; a field changed
    /// on both sides to different values keeps datebook's, and what the server lost is returned. An
    /// event made or moved in here meanwhile stays, one removed here meanwhile stays removed; the
    /// next push sends either.
    static func keepingLocalChanges(_ made: ICSImport, read: [String: Event], current: [String: Event],
                                    uids: [String: String]) -> (events: ICSImport, lost: [String]) {
        var result = made
        result.events = []
        var lost: [String] = []
        for server in made.events {
            guard let before = read[server.id], current[server.id] != before else {
                result.events.append(server)
                continue
            }
            guard let local = current[server.id] else { continue }
            let merged = merge(local, before: before, server: server)
            lost += merged.lost.map { "UID \(made.uids[server.id] ?? server.id): \($0)" }
            result.events.append(merged.event)
        }
        let madeIDs = Set(made.events.map(\.id))
        for (id, local) in current.sorted(by: { $0.key < $1.key }) where !madeIDs.contains(id) && read[id] != local {
            result.events.append(local)
            result.uids[id] = uids[id]
            if read[id] != nil {
                lost.append("UID \(uids[id] ?? id): removed on the server while changed here during the sync; datebook's copy is kept")
            }
        }
        return (result, lost)
    }

    /// `server` with the fields `local` changed since `before` (changes not sent yet); what the server lost, in words.
    static func merge(_ local: Event, before: Event, server: Event) -> (event: Event, lost: [String]) {
        var event = server
        var lost: [String] = []
        func keep<T: Equatable>(_ field: WritableKeyPath<Event, T>, _ name: String, shown: (T) -> String? = { _ in nil }) {
            guard local[keyPath: field] != before[keyPath: field] else { return }
            let theirs = server[keyPath: field]
            if theirs != before[keyPath: field], theirs != local[keyPath: field] {
                let value = shown(theirs).map { " '\($0)'" } ?? ""
                lost.append("\(name) changed on both sides; datebook's, not sent yet, is kept, the server's\(value) lost")
            }
            event[keyPath: field] = local[keyPath: field]
        }
        keep(\.title, "SUMMARY", shown: { $0 })
        keep(\.start, "DTSTART")
        keep(\.end, "DTEND")
        keep(\.timeZone, "TZID", shown: { $0 })
        keep(\.notes, "DESCRIPTION", shown: { $0 })
        keep(\.location, "LOCATION", shown: { $0 })
        keep(\.url, "URL", shown: { $0 })
        keep(\.recurrence, "RRULE", shown: { $0 })
        keep(\.symbol, ICalEvent.symbolProperty)
        keep(\.color, "COLOR", shown: { $0.cssName })
        keep(\.alerts, "VALARM")
        keep(\.tasks, "VTODO")
        return (event, lost)
    }
}
