import DatebookCore
@testable import DatebookStore
import DatebookTestSupport
import Foundation
import Testing

/// The CalDAV store (`SQLStore+CalDAV.swift`), written once: the same answers on both backends.
struct CalDAVStoreTests {
    static let now = Date(timeIntervalSince1970: 1_796_025_600)  // 2026-12-01T08:00:00Z

    static func calendar(_ url: String, _ name: String, selected: Bool = true) -> CalDAVCalendar {
        CalDAVCalendar(account: "home", url: url, displayName: name, color: "#ff0000", components: ["VEVENT", "VTODO"], selected: selected)
    }

    static func event(_ id: String, _ title: String) -> Event {
        Event(id: id, title: title, start: .instant(now.addingTimeInterval(3600)), timeZone: "UTC", symbol: .star, color: .red)
    }

    /// A new store with the account `home` and its calendar `Work` (`/w/`).
    static func storeWithWork(_ backend: Backend) throws -> (any CalDAVStore, CalDAVCalendar) {
        let store = try backend.open()
        let work = calendar("/w/", "Work")
        try store.addCalDAVAccount(CalDAVAccount(name: "home", url: "http://127.0.0.1:9/", username: "ann", passwordSource: "env:P"),
                                   calendars: [work])
        return (store, work)
    }

    @Test(arguments: Backend.allCases)
    func accountsCalendarsAndResourcesRoundTripInByteOrder(_ backend: Backend) throws {
        let store = try backend.open()
        let account = CalDAVAccount(name: "home", url: "http://127.0.0.1:9/", username: "ann", passwordSource: "env:P", every: 60)
        #expect(try store.addCalDAVAccount(account, calendars: [Self.calendar("/b/", "work"), Self.calendar("/a/", "Zoo")]))
        #expect(try store.addCalDAVAccount(account, calendars: []) == false)
        // Byte order: upper case before lower case on both (PostgreSQL's collation would say otherwise).
        #expect(try store.calDAVCalendars(account: "home").map(\.displayName) == ["Zoo", "work"])
        try store.updateCalDAVCalendars([Self.calendar("/b/", "Work", selected: false), Self.calendar("/c/", "new")])
        let calendars = try store.calDAVCalendars(account: "home")
        #expect(calendars.map(\.displayName) == ["Work", "Zoo", "new"])
        #expect(calendars.first?.selected == false && calendars.first?.components == ["VEVENT", "VTODO"])
        let work = try #require(calendars.first)
        let resource = CalDAVResource(url: "/b/1.ics", etag: "\"e1\"", uid: "u1", text: "BEGIN:VCALENDAR…")
        try store.recordCalDAVResource(resource, in: work)
        try store.recordCalDAVResource(CalDAVResource(url: "/b/1.ics", etag: nil, uid: "u1", text: "changed"), in: work)
        #expect(try store.calDAVResources(of: work)["/b/1.ics"]?.text == "changed")
        #expect(try store.calDAVResources(of: work)["/b/1.ics"]?.etag == nil)
        try store.recordCalDAVResource(resource, in: work, removed: true)
        #expect(try store.calDAVResources(of: work).isEmpty)
        try store.recordCalDAVSyncedChanges(7, of: work)
        #expect(try store.calDAVCalendars(account: "home").first?.syncedChanges == 7)
        #expect(try store.removeCalDAVAccount(named: "home"))
        #expect(try store.removeCalDAVAccount(named: "home") == false)
        #expect(try store.calDAVAccounts().isEmpty)
    }

    /// Conflicts recorded at the same second come newest first (SQLite's rowid, PostgreSQL's id).
    @Test(arguments: Backend.allCases)
    func conflictsComeNewestFirstAndTheLimitHolds(_ backend: Backend) throws {
        let (store, work) = try Self.storeWithWork(backend)
        try store.recordCalDAVConflicts(["first", "second"], in: work, now: Self.now)
        try store.recordCalDAVConflicts(["third"], in: work, now: Self.now)
        try store.recordCalDAVConflicts([], in: work, now: Self.now)
        let conflicts = try store.calDAVConflicts(account: "home", limit: 2)
        #expect(conflicts.map(\.message) == ["third", "second"])
        #expect(conflicts.allSatisfy { $0.at == Self.now && $0.calendar == "Work" })
    }

    /// An event saved into a calendar is recorded under it with its UID; saved outside, it leaves
    /// it, and the overrides the server made of it (UID `#…`) go with it.
    @Test(arguments: Backend.allCases)
    func anEventMovesIntoAndOutOfACalendarWithItsOverrides(_ backend: Backend) throws {
        let (store, work) = try Self.storeWithWork(backend)
        try store.save(Self.event("e1", "Tea"), into: work, uid: "u1")
        let override = Self.event("e2", "Tea, moved")
        try store.saveImport(ICSImport(events: [override], uids: ["e2": "u1#20261201T090000Z"], warnings: []), calendar: work.sourceCalendar)
        #expect(try store.calDAVEventUIDs(of: work) == ["e1": "u1", "e2": "u1#20261201T090000Z"])
        #expect(try store.calDAVCalendar(holding: "e1")?.url == "/w/")
        try store.saveOutsideCalDAV(Self.event("e1", "Coffee"))
        #expect(try store.calDAVEventUIDs(of: work).isEmpty)
        #expect(try store.event(id: "e1")?.title == "Coffee")
        #expect(try store.event(id: "e2") == nil)
    }

    /// A merge saves the events its closure returns and records the resource and the conflicts in
    /// one transaction; the local-changes count before and after brackets the saved events.
    @Test(arguments: Backend.allCases)
    func aMergeSavesItsEventsResourceAndConflictsTogether(_ backend: Backend) throws {
        let (store, work) = try Self.storeWithWork(backend)
        try store.save(Self.event("e1", "Tea"), into: work, uid: "u1")
        let resource = CalDAVResource(url: "/w/u1.ics", etag: "\"2\"", uid: "u1", text: "merged")
        let range = try store.recordCalDAVMerge(resource, in: work, conflicts: ["title"], now: Self.now, events: ["e1", "gone"]) { found in
            #expect(Array(found.keys) == ["e1"])
            var event = try #require(found["e1"])
            event.title = "Tea, merged"
            return ([event], ["notes"])
        }
        let changes = try #require(range)
        #expect(changes.upperBound > changes.lowerBound)
        #expect(changes.upperBound == (try store.calDAVLocalChanges(of: work)))
        #expect(try store.event(id: "e1")?.title == "Tea, merged")
        #expect(try store.calDAVResources(of: work)["/w/u1.ics"]?.text == "merged")
        #expect(try store.calDAVConflicts(account: "home").map(\.message) == ["notes", "title"])
    }

    /// A pull that finds a change made here since its push (the count moved) writes nothing
    /// without `whenChangedHere`, and with it rebuilds from what that gives.
    @Test(arguments: Backend.allCases)
    func aPullAfterALocalChangeRebuildsOnlyFromWhatWasKeptHere(_ backend: Backend) throws {
        let (store, work) = try Self.storeWithWork(backend)
        let pushedFrom = try store.calDAVLocalChanges(of: work)
        try store.save(Self.event("e1", "Tea"), into: work, uid: "u1")
        let server = ICSImport(events: [Self.event("e1", "Server tea")], uids: ["e1": "u1"], warnings: [])
        #expect(try store.applyCalDAVChanges(to: work, changed: [], removed: [], events: server, syncToken: "t1", ctag: nil,
                                             pushedFrom: pushedFrom, settled: true, whenChangedHere: nil) == false)
        #expect(try store.event(id: "e1")?.title == "Tea")
        #expect(try store.calDAVCalendars(account: "home").first?.syncToken == nil)
        let kept = ICSImport(events: [Self.event("e1", "Tea, kept")], uids: ["e1": "u1"], warnings: [])
        #expect(try store.applyCalDAVChanges(to: work, changed: [], removed: [], events: server, syncToken: "t1", ctag: "c1",
                                             pushedFrom: pushedFrom, settled: true, whenChangedHere: { kept }))
        #expect(try store.event(id: "e1")?.title == "Tea, kept")
        let after = try #require(try store.calDAVCalendars(account: "home").first)
        #expect(after.syncToken == "t1" && after.ctag == "c1" && after.syncedChanges == nil)
    }

    /// A pull rebuilds all of a calendar's events: only those whose alert times changed stay in the
    /// queue of changed events: the pull writes them as a feed refresh does (`replaceSourceEvents`),
    /// on both backends (PostgreSQL's own pull deleted and saved them without `KeptAlertTimes`).
    @Test(arguments: Backend.allCases)
    func aPullQueuesOnlyTheEventsWhoseAlertTimesItChanged(_ backend: Backend) throws {
        let (store, work) = try Self.storeWithWork(backend)
        let events = [Self.event("e1", "Tea"), Self.event("e2", "Lunch")]
        let uids = ["e1": "u1", "e2": "u2"]
        try store.applyCalDAVChanges(to: work, changed: [], removed: [], events: ICSImport(events: events, uids: uids, warnings: []),
                                     syncToken: "t1", ctag: nil)
        #expect(try store.changedEvents(taking: true) == ["e1", "e2"])
        var moved = events
        moved[1].start = .instant(Self.now.addingTimeInterval(7200))
        moved[0].title = "Tea, renamed"
        try store.applyCalDAVChanges(to: work, changed: [], removed: [], events: ICSImport(events: moved, uids: uids, warnings: []),
                                     syncToken: "t2", ctag: nil)
        #expect(try store.changedEvents(taking: true) == ["e2"])
        #expect(try store.event(id: "e1")?.title == "Tea, renamed")
    }

    /// Two schedulers that read a failing account at once (passes of `run`, replicas, `tick` from
    /// cron, each its own connection): the first claim of its next try wins, the second finds the
    /// backoff moved on and is refused, and one that reads after the claim waits; so is a claim
    /// after the try was recorded. The same after a refused login once the password changed.
    @Test(arguments: Backend.allCases)
    func aFailingAccountsTryIsClaimedByOneSchedulerOnly(_ backend: Backend) throws {
        let location = try backend.location()
        let first = try #require(try StoreOpener.open(location) as? any CalDAVStore)
        let second = try #require(try StoreOpener.open(location) as? any CalDAVStore)
        try first.addCalDAVAccount(CalDAVAccount(name: "home", url: "http://127.0.0.1:9/", username: "ann", passwordSource: "env:P"),
                                   calendars: [])
        func backoff(_ store: any CalDAVStore) throws -> CalDAVBackoff { try #require(try store.calDAVAccounts().first?.backoff) }
        let failed = CalDAVBackoff.healthy.failed(.other, at: Self.now, every: 60, fingerprint: "f", jitter: 0)
        try first.recordCalDAVSync(account: "home", now: Self.now, error: "down", backoff: failed)
        let seen = try backoff(second)
        #expect(seen == failed)
        let due = Self.now.addingTimeInterval(60)
        let claimed = seen.failed(.other, at: due, every: 60, fingerprint: "f", jitter: 0)
        #expect(try first.claimCalDAVAttempt(account: "home", seen: seen, as: claimed))
        #expect(try second.claimCalDAVAttempt(account: "home", seen: seen, as: claimed) == false)
        #expect(try backoff(second) == claimed && claimed.failures == 2 && claimed.nextAttempt == due.addingTimeInterval(120))
        #expect(try backoff(second).allowsAttempt(at: due, fingerprint: "f") == false)
        // The try recorded (it failed): a claim of what was seen before it is refused too.
        let recorded = seen.failed(.other, at: due, every: 60, fingerprint: "f", jitter: 0.5)
        try first.recordCalDAVSync(account: "home", now: due, error: "down", backoff: recorded)
        #expect(try second.claimCalDAVAttempt(account: "home", seen: claimed, as: claimed) == false)
        #expect(try backoff(second) == CalDAVBackoff(failures: 2, nextAttempt: due.addingTimeInterval(126), fingerprint: "f"))
        // A refused login, and a new password ("g"): the try with it is claimed, and the claim ends the
        // refusal, so a scheduler reading after it waits instead of trying the new password again.
        let refused = recorded.failed(.loginRefused, at: due, every: 60, fingerprint: "f", jitter: 0)
        try first.recordCalDAVSync(account: "home", now: due, error: "401", backoff: refused)
        let later = due.addingTimeInterval(600)
        #expect(try backoff(second).allowsAttempt(at: later, fingerprint: "g"))
        let withNewPassword = refused.failed(.other, at: later, every: 60, fingerprint: "g", jitter: 0)
        #expect(try second.claimCalDAVAttempt(account: "home", seen: refused, as: withNewPassword))
        #expect(try first.claimCalDAVAttempt(account: "home", seen: refused, as: withNewPassword) == false)
        #expect(try backoff(first).allowsAttempt(at: later, fingerprint: "g") == false)
        #expect(try backoff(first) == CalDAVBackoff(failures: 1, nextAttempt: later.addingTimeInterval(60), fingerprint: "g"))
    }
}
