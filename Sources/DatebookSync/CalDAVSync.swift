import DatebookCore
import DatebookInterchange
import DatebookStore
import Foundation

/// Syncs a CalDAV calendar with the store: `push` (CalDAVSync+Push.swift) sends local changes up,
/// `pull` brings the server's down.
///
/// Per calendar: one `sync-collection` report from the stored token (an unchanged calendar costs
/// just that request) that brings the changed resources' text along, a `calendar-multiget` of
/// those whose ETag changed and came without text (servers that leave it out), then the
/// calendar's events rebuilt from every resource now held and saved with the new token in one
/// transaction (`CalDAVStore.applyCalDAVChanges`). A sync killed before that transaction changed nothing;
/// the next one receives the same changes again.
public struct CalDAVSync {
    public let store: any CalDAVStore
    public let client: CalDAVClient
    public let timeZone: TimeZone

    /// Runs between the push and the pull of `sync` (tests make a change there, as a user might).
    var afterPush: (() throws -> Void)?
    /// Runs after each write of the push is sent and recorded (tests stop the sync there, as a kill would).
    var afterWrite: (() throws -> Void)?

    public init(store: any CalDAVStore, client: CalDAVClient, timeZone: TimeZone) {
        self.store = store
        self.client = client
        self.timeZone = timeZone
    }

    /// What one calendar's pull did.
    public struct PullOutcome: Sendable, Equatable {
        public var calendar: String
        /// Resources received (new or changed) and removed.
        public var received: Int
        public var removed: Int
        /// Events the calendar holds afterwards; nil when nothing changed (events not counted).
        public var events: Int?
        public var warnings: [String]
        /// Local changes made during the sync kept over the server's (`keepingLocalChanges`); `sync`
        /// records them and reports them with the push's.
        var conflicts: [String] = []
    }

    /// One calendar both ways: the local changes up, then the server's down. The push is skipped
    /// when the calendar's count of local changes is the one the last sync left in step
    /// (`CalDAVLocalChanges`: one row read, however large the calendar).
    ///
    /// A change made here while the sync runs is never replaced by the server's copy: the pull's
    /// transaction finds the count moved since the push started, and keeps each event changed since
    /// the push read it over the server's copy, field by field (`keepingLocalChanges`); the next
    /// sync sends it. Had the push been skipped (nothing read to compare with), the pull applies
    /// nothing and the sync runs once more, pushing first.
    public func sync(_ calendar: CalDAVCalendar, now: Date) throws -> (pushed: PushOutcome, pulled: PullOutcome) {
        var total = PushOutcome()
        for _ in 0..<2 {
            let stored = try store.calDAVCalendars(account: calendar.account).first { $0.url == calendar.url } ?? calendar
            let changes = try store.calDAVLocalChanges(of: calendar)
            var read: [String: Event]?
            var pushed = PushOutcome()
            if changes != stored.syncedChanges {
                var seen: [String: Event] = [:]
                pushed = try push(stored, now: now, read: &seen)
                read = seen
            }
            try store.recordCalDAVConflicts(pushed.unrecorded, in: calendar, now: now)
            total.add(pushed)
            try afterPush?()
            let fresh = try store.calDAVCalendars(account: calendar.account).first { $0.url == calendar.url } ?? calendar
            // The events a merged PUT's record changed are the push's own writes, not changes made here.
            var own = changes
            for moved in pushed.ownChanges where moved.lowerBound == own { own = moved.upperBound }
            let from = Pushed(changes: own, settled: pushed.refused.isEmpty, read: read, refused: pushed.refusedBefore)
            if var pulled = try pull(fresh, now: now, rebuild: pushed.merged > 0, after: from) {
                try store.recordCalDAVConflicts(pulled.conflicts, in: calendar, now: now)
                total.conflicts += pulled.conflicts
                pulled.conflicts = []
                return (total, pulled)
            }
        }
        // Not reached: the second round always pushes (the count moved), and a pull after a push applies.
        return (total, PullOutcome(calendar: calendar.displayName, received: 0, removed: 0, events: nil, warnings: []))
    }

    /// What the push before a pull started from.
    struct Pushed {
        /// The calendar's count of local changes when the push started.
        var changes: Int64
        /// The server took every write (else the next sync looks for local changes again).
        var settled: Bool
        /// Each event as the push read it, by id; nil when the push was skipped.
        var read: [String: Event]?
        /// `PushOutcome.refusedBefore`: events whose changes the server refused, as it has them.
        var refused: [String: Event] = [:]
    }

    /// - Parameter rebuild: rebuild the calendar's events from the held texts even when nothing
    ///   was received or removed (after a push merged the server's changes into what it sent);
    ///   otherwise a new token alone (the push's own writes) leaves the events as they are, with
    ///   any change made here meanwhile.
    public func pull(_ calendar: CalDAVCalendar, now: Date, rebuild: Bool = false) throws -> PullOutcome {
        try pull(calendar, now: now, rebuild: rebuild, after: Pushed?.none)
            ?? PullOutcome(calendar: calendar.displayName, received: 0, removed: 0, events: nil, warnings: [])
    }

    /// - Parameter push: what the push before this pull started from; the count the sync leaves in
    ///   step is recorded. nil: a pull alone, which records nothing of the local changes.
    /// - Returns: nil when the calendar's events were changed here since the push started and the
    ///   server's changes would rebuild them: nothing is applied, push that change first.
    func pull(_ calendar: CalDAVCalendar, now: Date, rebuild: Bool, after push: Pushed?) throws -> PullOutcome? {
        // The ctag read at discovery (`caldav add`) describes no copy held yet: with nothing held and
        // no token, the first sync lists everything whatever it says, and records it (so the next,
        // unchanged sync is the one getctag request).
        let known = try calendar.syncToken == nil && store.calDAVResources(of: calendar).isEmpty ? nil : calendar.ctag
        let changes = try client.changes(in: calendar.url, since: calendar.syncToken, ctag: known)
        // The held copy is read only when the server listed something (or the events are rebuilt):
        // an unchanged calendar costs no read of its texts.
        let listed = !changes.present.isEmpty || !changes.removed.isEmpty || changes.full || rebuild
        let held = listed ? try store.calDAVResources(of: calendar) : [:]
        let ctag = changes.ctag ?? calendar.ctag
        var removed = Set(changes.removed.filter { held[$0] != nil })
        if changes.full { removed.formUnion(held.keys.filter { changes.present[$0] == nil }) }
        let wanted = changes.present.filter { url, etag in etag == nil || held[url]?.etag != etag }.keys.sorted()
        if wanted.isEmpty, removed.isEmpty {
            if changes.token != calendar.syncToken || ctag != calendar.ctag {
                let lost = Lost()
                let rebuilt = try rebuild ? keepingRefused(try events(held, calendar, now: now), after: push, calendar, lost: lost) : nil
                guard try store.applyCalDAVChanges(to: calendar, changed: [], removed: [], events: rebuilt, syncToken: changes.token, ctag: ctag,
                                                   pushedFrom: push?.changes, settled: push?.settled ?? false,
                                                   whenChangedHere: keeping(rebuilt, after: push, calendar, lost: lost))
                else { return nil }
                return PullOutcome(calendar: calendar.displayName, received: 0, removed: 0, events: nil, warnings: [], conflicts: lost.messages)
            } else if let push, calendar.syncedChanges != (push.settled ? push.changes : nil) {
                // What was pushed, as read before the push: a change made here since is found by the next sync.
                try store.recordCalDAVSyncedChanges(push.settled ? push.changes : nil, of: calendar)
            }
            return PullOutcome(calendar: calendar.displayName, received: 0, removed: 0, events: nil, warnings: [])
        }
        let received = try wanted.compactMap { changes.resources[$0] }
            + client.resources(wanted.filter { changes.resources[$0] == nil }, in: calendar.url,
                               listed: max(changes.present.count, held.count))
        // Listed but gone by the time of the multiget: removed as well.
        let got = Set(received.map(\.url))
        removed.formUnion(wanted.filter { !got.contains($0) && held[$0] != nil })
        var all = held
        for url in removed { all[url] = nil }
        for resource in received { all[resource.url] = resource }
        var result = try events(all, calendar, now: now)
        // Events made here and not on the server yet (their PUT refused, or not tried) stay.
        for (id, uid) in try unsent(calendar, known: Set(held.values.map(\.uid)).union(all.values.map(\.uid)), made: result.uids) {
            if let event = try store.event(id: id) {
                result.events.append(event)
                result.uids[id] = uid
            }
        }
        let lost = Lost()
        result = try keepingRefused(result, after: push, calendar, lost: lost)
        guard try store.applyCalDAVChanges(to: calendar, changed: received, removed: removed.sorted(), events: result,
                                           syncToken: changes.token, ctag: ctag, pushedFrom: push?.changes, settled: push?.settled ?? false,
                                           whenChangedHere: keeping(result, after: push, calendar, lost: lost))
        else { return nil }
        return PullOutcome(calendar: calendar.displayName, received: received.count, removed: removed.count,
                           events: result.events.count, warnings: Self.fresh(result.warnings, received: received, held: all),
                           conflicts: lost.messages)
    }

    /// The warnings about resources received now: one about a resource held unchanged (a RELATED-TO
    /// naming no event, say) was given when it came, and is not repeated at each rebuild until it changes.
    static func fresh(_ warnings: [String], received: [CalDAVResource], held: [String: CalDAVResource]) -> [String] {
        let new = Set(received.map(\.uid))
        let old = Set(held.values.map(\.uid)).subtracting(new)
        return warnings.filter { warning in
            guard let mark = warning.range(of: ": UID ") else { return true }
            let rest = warning[mark.upperBound...]
            let uid = rest.range(of: ": ").map { String(rest[..<$0.lowerBound]) } ?? String(rest)
            return !old.contains(uid)
        }
    }

    /// The events (id, UID) recorded under the calendar that the server has never had: made here
    /// (`datebook add --calendar`), their UID in neither `known` (the held resources') nor `made`
    /// (the events made from them), in id order.
    func unsent(_ calendar: CalDAVCalendar, known: Set<String>, made: [String: String]) throws -> [(id: String, uid: String)] {
        try store.calDAVEventUIDs(of: calendar).sorted { $0.key < $1.key }.filter { id, uid in
            made[id] == nil && !known.contains(uid) && !uid.contains("#") && uid != "tasks"
        }.map { (id: $0.key, uid: $0.value) }
    }

    /// UID → id of the events moved into the calendar (`edit --calendar`): recorded under it with
    /// an id other than the one its name and their UID give, which they keep.
    func keptIDs(_ calendar: CalDAVCalendar) throws -> [String: String] {
        var kept: [String: String] = [:]
        for (id, uid) in try self.store.calDAVEventUIDs(of: calendar)
        where !uid.contains("#") && uid != "tasks" && id != PlannerICS.eventID(uid: uid, calendar: calendar.sourceCalendar) {
            kept[uid] = id
        }
        return kept
    }

    /// The calendar's events made from `resources` by the iCalendar room, as one document; with
    /// the store's copy of each (`existing`) for the symbol, colour and tasks it keeps.
    func events(_ resources: [String: CalDAVResource], _ calendar: CalDAVCalendar, now: Date) throws -> ICSImport {
        try events(resources.keys.sorted().compactMap { resources[$0] }, calendar, now: now,
                   existing: { [store] id in try? store.event(id: id) }, store: store)
    }

    /// - Parameter keepingIDs: give the events moved into the calendar the ids they kept (false
    ///   where only what the text says matters, not which event it is).
    func events(_ resources: [CalDAVResource], _ calendar: CalDAVCalendar, now: Date, existing: @escaping (String) -> Event?,
                store: (any PlannerStore)? = nil, keepingIDs: Bool = true) throws -> ICSImport {
        var options = PlannerICS.Options(calendar: calendar.sourceCalendar, timeZone: timeZone, today: CalendarDate(now, in: timeZone),
                                         existing: existing, store: store)
        if keepingIDs { options.ids = try keptIDs(calendar) }
        return try PlannerICS.decode(ICalResources.combine(resources.map(\.text)), fileName: calendar.displayName, options: options)
    }
}
