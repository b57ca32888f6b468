import DatebookCore
import Foundation

/// What CalDAV sync (issue 18) keeps in a store: accounts, calendars with their sync tokens, the
/// server's texts with their ETags, and the conflicts that lost something. Both stores hold it in
/// the same tables, written once in `SQLStore+CalDAV.swift`.
public protocol CalDAVStore: PlannerStore {
    /// Adds an account with the calendars discovery found; false when one with this name exists.
    @discardableResult func addCalDAVAccount(_ account: CalDAVAccount, calendars: [CalDAVCalendar]) throws -> Bool
    func calDAVAccounts() throws -> [CalDAVAccount]
    func calDAVCalendars(account: String) throws -> [CalDAVCalendar]
    /// Adds the calendars an account has not held yet and sets the display name, colour,
    /// components and whether it is synced of those it holds (`caldav add` again, a calendar gone
    /// from the server); sync tokens, held texts and events stay.
    func updateCalDAVCalendars(_ calendars: [CalDAVCalendar]) throws
    /// The resources held for one calendar, by URL.
    func calDAVResources(of calendar: CalDAVCalendar) throws -> [String: CalDAVResource]
    /// Removes an account, its calendars, resources and events; false when there is none.
    @discardableResult func removeCalDAVAccount(named name: String) throws -> Bool
    /// Saves an event made in datebook into a CalDAV calendar, with the UID its resource will have,
    /// in one transaction: the next sync sends it (`PUT` with `If-None-Match: *`).
    func save(_ event: Event, into calendar: CalDAVCalendar, uid: String) throws
    /// Saves the event as one of datebook's own, out of the calendar it was recorded under, in one
    /// transaction: the next sync of a CalDAV calendar it was in removes it from the server. Out of
    /// a CalDAV calendar (here and in `save(_:into:uid:)`), the overrides the server made of it
    /// (RECURRENCE-ID instances, recorded under its UID and `#`) go with it.
    func saveOutsideCalDAV(_ event: Event) throws
    /// Event id → UID of every event recorded under the calendar (those of the server and those
    /// made here and not sent yet).
    func calDAVEventUIDs(of calendar: CalDAVCalendar) throws -> [String: String]
    /// Applies what one sync received for a calendar, in ONE transaction: the changed and removed
    /// resources, the calendar's events rebuilt from `events` (made from every resource now held;
    /// nil: the events stay as they are), and the new sync token. A sync killed before this leaves
    /// the old copy and token, so the next one receives the same changes again; nothing is applied twice.
    ///
    /// - Parameters:
    ///   - pushedFrom: the calendar's `localChanges` its push started from. When the count read in
    ///     this transaction is another (a change made here since), the events to rebuild are
    ///     `whenChangedHere()` instead (called in the transaction, so no change can come between);
    ///     without it nothing is written and the result is false. The count the sync leaves in step
    ///     is recorded (`syncedChanges`): `pushedFrom`, or with rebuilt events the count after them;
    ///     nil when not `settled` (a write was refused) or after `whenChangedHere` (the next sync
    ///     sends what it kept). nil: a pull without a push, which records nothing of the local changes.
    @discardableResult
    func applyCalDAVChanges(to calendar: CalDAVCalendar, changed: [CalDAVResource], removed: [String],
                            events: ICSImport?, syncToken: String?, ctag: String?, pushedFrom: Int64?, settled: Bool,
                            whenChangedHere: (() throws -> ICSImport)?) throws -> Bool
    /// Records what the server accepted for one resource (a PUT: its new text and ETag) or, with
    /// `removed`, that it is gone (a DELETE), each in its own transaction: a sync killed after the
    /// server answered knows it at the next start.
    func recordCalDAVResource(_ resource: CalDAVResource, in calendar: CalDAVCalendar, removed: Bool) throws
    /// Records a PUT that merged the server's changes into what it sent (after a 412), in ONE
    /// transaction with the events those changes make here and the conflicts: `update` is given the
    /// events `ids` as they are now (locked against other writers) and returns those to save and
    /// the conflicts besides `conflicts`. The held text and datebook's events never disagree, so a
    /// sync killed after this does not send datebook's older values back at its next push.
    /// - Returns: the calendar's count of local changes before and after the events were saved;
    ///   nil when none was.
    func recordCalDAVMerge(_ resource: CalDAVResource, in calendar: CalDAVCalendar, conflicts: [String], now: Date, events ids: [String],
                           update: ([String: Event]) throws -> (events: [Event], conflicts: [String])) throws -> ClosedRange<Int64>?
    /// The calendar's count of local changes now (`CalDAVLocalChanges`): one row read.
    func calDAVLocalChanges(of calendar: CalDAVCalendar) throws -> Int64
    /// Records the count the end of a sync left in step with the server (nil: the next sync looks
    /// for local changes whatever the count says).
    func recordCalDAVSyncedChanges(_ changes: Int64?, of calendar: CalDAVCalendar) throws
    /// Records what lost in the conflicts of one sync (`datebook caldav status` shows them).
    func recordCalDAVConflicts(_ messages: [String], in calendar: CalDAVCalendar, now: Date) throws
    /// The conflicts recorded for an account, newest first: when, the calendar's display name, what lost.
    func calDAVConflicts(account: String, limit: Int) throws -> [(at: Date, calendar: String, message: String)]
    /// Claims the next try of a failing account: writes `claimed` (the backoff a failure of this try
    /// would leave) if its backoff is still the one `seen`. Of the schedulers that read the account
    /// at once (passes of `run`, replicas, `tick` from cron), the one that gets true tries; the others
    /// find the wait moved on. A try killed before its outcome is recorded counts as that failure.
    func claimCalDAVAttempt(account: String, seen: CalDAVBackoff, as claimed: CalDAVBackoff) throws -> Bool
    /// Records the end of an account's sync (`error` nil: it succeeded) and its backoff after it.
    func recordCalDAVSync(account: String, now: Date, error: String?, backoff: CalDAVBackoff) throws
    /// Sets an account's no-data timeout in seconds (nil: the default).
    func setCalDAVTimeout(_ seconds: Int?, account: String) throws
    /// When each field of these events was last changed in datebook (`CalDAVEdits`), by event id
    /// and field; a field without a time was not changed by a timed save.
    func calDAVEditTimes(of ids: [String]) throws -> [String: [String: Date]]
}

extension CalDAVStore {
    /// Applies a pull's changes without a push before it (records nothing of the local changes).
    public func applyCalDAVChanges(to calendar: CalDAVCalendar, changed: [CalDAVResource], removed: [String],
                                   events: ICSImport?, syncToken: String?, ctag: String?) throws {
        try applyCalDAVChanges(to: calendar, changed: changed, removed: removed, events: events, syncToken: syncToken, ctag: ctag,
                               pushedFrom: nil, settled: false, whenChangedHere: nil)
    }

    /// The events `applyCalDAVChanges` writes (in its transaction), and whether they keep changes
    /// made here since the push (`whenChangedHere`); nil: write nothing.
    func calDAVEventsToWrite(_ events: ICSImport?, of calendar: CalDAVCalendar, pushedFrom: Int64?,
                             whenChangedHere: (() throws -> ICSImport)?) throws -> (events: ICSImport?, keptHere: Bool)? {
        guard let pushedFrom, events != nil, try calDAVLocalChanges(of: calendar) != pushedFrom else { return (events, false) }
        guard let whenChangedHere else { return nil }
        return (try whenChangedHere(), true)
    }

    /// Records, at the end of `applyCalDAVChanges`, the count of local changes the sync leaves in step.
    func recordCalDAVSyncedChanges(after pushedFrom: Int64?, rebuilt: Bool, settled: Bool, of calendar: CalDAVCalendar) throws {
        guard let pushedFrom else { return }
        try recordCalDAVSyncedChanges(settled ? rebuilt ? try calDAVLocalChanges(of: calendar) : pushedFrom : nil, of: calendar)
    }

    /// Records the end of an account's sync, leaving it healthy (no backoff).
    public func recordCalDAVSync(account: String, now: Date, error: String?) throws {
        try recordCalDAVSync(account: account, now: now, error: error, backoff: .healthy)
    }

    public func recordCalDAVResource(_ resource: CalDAVResource, in calendar: CalDAVCalendar) throws {
        try recordCalDAVResource(resource, in: calendar, removed: false)
    }

    public func calDAVConflicts(account: String) throws -> [(at: Date, calendar: String, message: String)] {
        try calDAVConflicts(account: account, limit: 50)
    }

    /// The CalDAV calendar (any of any account) whose events include the one with this id, if any.
    public func calDAVCalendar(holding id: String) throws -> CalDAVCalendar? {
        for account in try calDAVAccounts() {
            for calendar in try calDAVCalendars(account: account.name) where try calDAVEventUIDs(of: calendar)[id] != nil {
                return calendar
            }
        }
        return nil
    }

    /// The synced calendars `datebook add --calendar NAME` may mean: the one whose
    /// `ACCOUNT/DISPLAY NAME` is NAME, else those whose display name is (several: ambiguous).
    public func calDAVCalendars(named name: String) throws -> [CalDAVCalendar] {
        var byName: [CalDAVCalendar] = []
        for account in try calDAVAccounts() {
            for calendar in try calDAVCalendars(account: account.name) where calendar.selected {
                if account.name + "/" + calendar.displayName == name { return [calendar] }
                if calendar.displayName == name { byName.append(calendar) }
            }
        }
        return byName
    }

    /// Every `ACCOUNT/DISPLAY NAME` of a synced calendar (what `--calendar` accepts, for hints).
    public func calDAVCalendarNames() throws -> [String] {
        var names: [String] = []
        for account in try calDAVAccounts() {
            names += try calDAVCalendars(account: account.name).filter(\.selected).map { account.name + "/" + $0.displayName }
        }
        return names
    }
}
