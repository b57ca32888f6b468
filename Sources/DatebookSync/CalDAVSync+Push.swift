import DatebookCore
import DatebookICal
import DatebookInterchange
import DatebookStore
import Foundation

/// Sends the changes made in datebook to a calendar's events and tasks up to the server (the push
/// half of issue 18), before the pull.
///
/// What changed is found by comparing each stored event and task with what the held server texts
/// make of it (the copy of the last sync). A change patches the server's own text (`ICalPatch`) and
/// is a `PUT` with `If-Match`; a removal a `DELETE` with `If-Match`; a task added to a synced event a
/// new VTODO (`If-None-Match: *`, RELATED-TO the event). Each accepted write is recorded at once
/// with its new ETag. A 412 (changed on the server meanwhile) fetches the server's copy, merges
/// property by property and tries once more; what lost is reported in `PushOutcome.conflicts`.
extension CalDAVSync {
    /// What one calendar's push did.
    public struct PushOutcome: Sendable, Equatable {
        public var sent = 0
        public var removed = 0
        /// `UID x: SUMMARY changed on both sides; …` lines.
        public var conflicts: [String] = []
        /// Writes the server refused (`UID x: PUT answered HTTP 403`); the rest went on.
        public var refused: [String] = []
        /// Writes that found the server's copy changed (412) and sent it merged, or recorded it.
        public var merged = 0
        /// The events a refused write was about, as the server's held copy makes them (what the
        /// refused change was made against): the pull keeps the change over the server's copy.
        var refusedBefore: [String: Event] = [:]
        /// The conflicts not recorded yet (those of a merged PUT are recorded with it); `sync` records them.
        var unrecorded: [String] = []
        /// The calendar's count of local changes before and after each merged PUT's record wrote the
        /// events it changed (`recordMerged`): the push's own writes, not changes made here.
        var ownChanges: [ClosedRange<Int64>] = []

        /// Adds what another round of the same sync did (its refusals replace the first round's: the same writes, tried again).
        mutating func add(_ other: PushOutcome) {
            sent += other.sent
            removed += other.removed
            conflicts += other.conflicts
            unrecorded += other.unrecorded
            ownChanges += other.ownChanges
            refused = other.refused
            refusedBefore = other.refusedBefore
            merged += other.merged
        }
    }

    struct Write {
        var resource: CalDAVResource
        var component: String
        /// nil: delete the resource.
        var changes: [ICalPatch.Change]?
        /// The series' overrides (RECURRENCE-ID VEVENTs) to add, change or remove in the same PUT.
        var overrides: [OverrideEdit] = []
        var isNew = false
        /// The event of the held copy the write is about (its own resource or a task's), if any.
        var before: Event?
    }

    public func push(_ calendar: CalDAVCalendar, now: Date) throws -> PushOutcome {
        var read: [String: Event] = [:]
        return try push(calendar, now: now, read: &read)
    }

    /// - Parameter read: each event of the calendar as the push read it from the store, by id.
    func push(_ calendar: CalDAVCalendar, now: Date, read: inout [String: Event]) throws -> PushOutcome {
        let held = try store.calDAVResources(of: calendar)
        var outcome = PushOutcome()
        for write in try writes(held, calendar, now: now, read: &read) {
            let refusals = outcome.refused.count
            try send(write, calendar, now: now, read: read, into: &outcome)
            try afterWrite?()
            if outcome.refused.count > refusals, let before = write.before { outcome.refusedBefore[before.id] = before }
        }
        return outcome
    }

    /// Every write the local changes call for, found against the held copy.
    func writes(_ held: [String: CalDAVResource], _ calendar: CalDAVCalendar, now: Date, read: inout [String: Event]) throws -> [Write] {
        let resources = held.keys.sorted().compactMap { held[$0] }
        let base = try events(resources, calendar, now: now, existing: { _ in nil })
        let byUID = Dictionary(resources.map { ($0.uid, $0) }, uniquingKeysWith: { first, _ in first })
        var writes: [Write] = []
        var baseTasks: [String: EventTask] = [:]
        for event in base.events {
            for task in event.tasks { baseTasks[task.id] = task }
        }
        // An event no longer recorded under the calendar was removed, or moved out (`edit --calendar`).
        let here = try store.calDAVEventUIDs(of: calendar)
        for event in base.events {
            let first = writes.count
            defer { for index in first..<writes.count { writes[index].before = event } }
            let current = here[event.id] == nil ? nil : try store.event(id: event.id)
            read[event.id] = current
            if let uid = base.uids[event.id], !uid.contains("#"), let resource = byUID[uid],
                ICalPatch.target(in: ICalPatch.logicalLines(resource.text, separator: "\r\n"), component: "VEVENT") != nil
            {
                if let current {
                    let overrides = try overrideEdits(of: current, uid: uid, base: base, here: here, now: now, read: &read)
                    let changes = Self.eventChanges(from: event, to: current, uid: uid, now: now, overrides: overrides.sources,
                                                    overridesChanged: overrides.changed) {
                        (try? foreignAlerts(resource, calendar, now: now)) ?? []
                    }
                    if Self.changesText(resource.text, changes, overrides.edits, component: "VEVENT") {
                        writes.append(Write(resource: resource, component: "VEVENT", changes: changes, overrides: overrides.edits))
                    }
                } else {
                    writes.append(Write(resource: resource, component: "VEVENT", changes: nil))
                }
            }
            let currentTasks = Dictionary((current?.tasks ?? []).map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            // The event's UID for its tasks' RELATED-TO (none for a to-do list, which has no resource).
            let eventUID = base.uids[event.id].flatMap { byUID[$0] == nil ? nil : $0 }
            let look = current.map { Self.listLook(from: event, to: $0) } ?? []
            for task in event.tasks {
                guard let resource = resources.first(where: { PlannerICS.taskID($0.uid) == task.id }) else { continue }
                if let local = currentTasks[task.id] {
                    let related = Self.relatedTo(local.parent, of: event.id, eventUID: eventUID, resources: resources)
                    let changes = Self.taskChanges(from: task, to: local, text: resource.text, at: now, relatedTo: related, besides: look)
                    if Self.changesText(resource.text, changes, [], component: "VTODO") {
                        writes.append(Write(resource: resource, component: "VTODO", changes: changes))
                    }
                } else {
                    writes.append(Write(resource: resource, component: "VTODO", changes: nil))
                }
            }
            // An override's tasks stay in datebook: a VTODO's RELATED-TO names a series, never one occurrence of it.
            guard let current, base.uids[event.id]?.contains("#") != true else { continue }
            for task in current.tasks where baseTasks[task.id] == nil {
                writes.append(Self.newTask(task, of: event.id, relatedTo: Self.relatedTo(task.parent, of: event.id, eventUID: eventUID,
                                                                                         resources: resources),
                                           calendar, now: now, list: current.isTaskList ? current : nil))
            }
        }
        // A to-do list made here (`datebook task add --list`) for a calendar whose server has no stand-alone
        // to-do yet: its tasks go up as VTODOs of their own, without RELATED-TO (the list has no resource).
        for (id, uid) in here.sorted(by: { $0.key < $1.key }) where uid == PlannerICS.taskListUID && base.uids[id] == nil {
            guard let list = try store.event(id: id) else { continue }
            read[id] = list
            writes += list.tasks.map { Self.newTask($0, of: id, relatedTo: Self.relatedTo($0.parent, of: id, eventUID: nil, resources: resources),
                                                    calendar, now: now, list: list) }
        }
        // Events made in datebook for this calendar (`datebook add --calendar`) and not on the server yet.
        for (id, uid) in try unsent(calendar, known: Set(byUID.keys), made: base.uids) {
            guard let event = try store.event(id: id) else { continue }
            read[id] = event
            writes.append(Write(resource: CalDAVResource(url: calendar.url + Self.fileName(uid), etag: nil, uid: uid,
                                                         text: Self.newEvent(event, uid: uid, now: now)),
                                component: "VEVENT", changes: [], isNew: true))
            writes += event.tasks.map { Self.newTask($0, of: id, relatedTo: Self.relatedTo($0.parent, of: id, eventUID: uid, resources: resources),
                                                     calendar, now: now) }
        }
        return writes
    }

    /// `<letters and digits of the UID>.ics`: the name of a resource made here.
    static func fileName(_ uid: String) -> String { uid.filter { $0.isLetter || $0.isNumber || $0 == "-" } + ".ics" }

    /// The RELATED-TO a task of `eventID` goes up with: its parent to-do's UID when it is a part of
    /// one (the server's UID of that VTODO, else the one a task made here gets), else its event's
    /// (`eventUID`; nil for a to-do list's, which has no resource).
    static func relatedTo(_ parent: String?, of eventID: String, eventUID: String?, resources: [CalDAVResource]) -> String? {
        guard let parent else { return eventUID }
        return resources.first { PlannerICS.taskID($0.uid) == parent && ICalPatch.line("UID", in: $0.text, component: "VTODO") != nil }?.uid
            ?? madeUID(task: parent, of: eventID)
    }

    /// `<task>.<event>@datebook`: the UID of the VTODO of a task made here.
    static func madeUID(task: String, of eventID: String) -> String { "\(task).\(eventID)" + PlannerICS.uidSuffix }

    /// A new VTODO for a task added here (`UID` `<task>.<event>@datebook`, RELATED-TO its event's UID).
    /// A to-do of a list (`list`) carries the list's colour and symbol, as `export` writes it.
    static func newTask(_ task: EventTask, of eventID: String, relatedTo: String?, _ calendar: CalDAVCalendar, now: Date,
                        list: Event? = nil) -> Write {
        let uid = madeUID(task: task.id, of: eventID)
        return Write(resource: CalDAVResource(url: calendar.url + Self.fileName("\(task.id)-\(eventID)"), etag: nil, uid: uid,
                                              text: newTodo(uid: uid, task: task, relatedTo: relatedTo, now: now, list: list)),
                     component: "VTODO", changes: [], isNew: true)
    }

    /// A new event's resource: the VEVENT `datebook export` writes (its zone as a VTIMEZONE, the
    /// recurrence, `COLOR`, `X-DATEBOOK-SYMBOL`), its alerts as datebook's own VALARMs; its tasks
    /// go as VTODOs of their own.
    static func newEvent(_ event: Event, uid: String, now: Date) -> String {
        var bare = event
        bare.tasks = []
        bare.alerts = []
        return ICalPatch.apply([alarms(event)], to: PlannerICS.encode([bare], uids: [event.id: uid], dtstamp: now), component: "VEVENT")
    }

    /// An event's alerts as the VALARM triggers they write, in order.
    static func leads(_ event: Event) -> [String] { event.alerts.map { PlannerICS.alarm($0).triggerLine }.sorted() }

    /// The change that makes datebook's own VALARMs those of `event`'s alerts.
    static func alarms(_ event: Event, besides foreign: [LeadTime] = []) -> ICalPatch.Change {
        alarmChanges(event, besides: foreign)[0]
    }

    /// The changes that make the VALARMs those of `event`'s alerts: datebook's own for the alerts
    /// the server's VALARMs (`foreign`) do not give, and the removal of each of the server's that
    /// gives an alert `event` no longer has (`edit --remove-alert`, `--clear-alerts`).
    static func alarmChanges(_ event: Event, besides foreign: [LeadTime]) -> [ICalPatch.Change] {
        var others = foreign
        var lines: [String] = []
        for alert in event.alerts {
            if let at = others.firstIndex(of: alert) {
                others.remove(at: at)
                continue
            }
            lines += ICalPatch.alarm(PlannerICS.alarm(alert), title: event.title)
        }
        let own = ICalPatch.Change(ICalPatch.ownAlarms, lines: lines)
        guard !others.isEmpty else { return [own] }
        return [own, .init(ICalPatch.serverAlarmsRemoved, lines: others.map { PlannerICS.alarm($0).triggerLine })]
    }

    /// The alerts the resource's other VALARMs (not datebook's) give its event.
    func foreignAlerts(_ resource: CalDAVResource, _ calendar: CalDAVCalendar, now: Date) throws -> [LeadTime] {
        var bare = resource
        bare.text = ICalPatch.apply([.init(ICalPatch.ownAlarms, lines: [])], to: resource.text, component: "VEVENT")
        let made = try events([bare], calendar, now: now, existing: { _ in nil }, keepingIDs: false)
        return made.events.first { made.uids[$0.id] == resource.uid }?.alerts ?? []
    }

    /// The property lines to change so that the server's event (a master VEVENT, or an override)
    /// reads as `current`. Times go in the event's own zone (`TZID`, its VTIMEZONE added by `send`).
    /// A changed recurrence (or set of overrides) writes RRULE, RDATE, EXDATE and EXRULE as `export`
    /// does, without the EXDATEs of the instances the series' overrides replace (`overrides`: their
    /// event ids → `UID#RECURRENCE-ID`, as the resource will hold them); changed alerts replace
    /// datebook's own VALARMs only (`foreignAlerts`: what the others give).
    static func eventChanges(from base: Event, to current: Event, uid: String, now: Date, overrides: [String: String] = [:],
                             overridesChanged: Bool = false, foreignAlerts: () -> [LeadTime]) -> [ICalPatch.Change] {
        var changes: [ICalPatch.Change] = []
        if current.title != base.title { changes.append(.init("SUMMARY", ICalPatch.textLine("SUMMARY", current.title))) }
        let rezoned = current.timeZone != base.timeZone && current.start.isInstant
        if current.start != base.start || rezoned {
            changes.append(.init("DTSTART", ICalPatch.dateLine("DTSTART", current.start, zone: current.timeZone)))
        }
        if current.exclusiveEnd != base.exclusiveEnd || rezoned && current.exclusiveEnd != nil {
            // iCalendar's DTEND is exclusive: an all-day event's last day is written as the day after.
            changes.append(.init("DTEND", current.exclusiveEnd.map { ICalPatch.dateLine("DTEND", $0, zone: current.timeZone) }))
            changes.append(.init("DURATION", nil))
        }
        if current.notes != base.notes {
            changes.append(.init("DESCRIPTION", current.notes.isEmpty ? nil : ICalPatch.textLine("DESCRIPTION", current.notes)))
        }
        if current.location != base.location {
            changes.append(.init("LOCATION", current.location.isEmpty ? nil : ICalPatch.textLine("LOCATION", current.location)))
        }
        if current.url != base.url { changes.append(.init("URL", current.url.isEmpty ? nil : "URL:" + current.url)) }
        if current.recurrence != base.recurrence || overridesChanged {
            var bare = current
            bare.tasks = []
            bare.alerts = []
            // The overrides' sources beside the series' own: the export leaves their instances' EXDATEs out.
            let written = PlannerICS.encode([bare], uids: overrides.merging([current.id: uid]) { _, own in own }, dtstamp: now)
            for name in ["RRULE", "RDATE", "EXDATE", "EXRULE"] {
                changes.append(.init(name, lines: ICalPatch.value(name, in: written, component: "VEVENT")?.split(separator: "\n").map(String.init) ?? []))
            }
        }
        if current.symbol != base.symbol {
            changes.append(.init(ICalEvent.symbolProperty, ICalPatch.textLine(ICalEvent.symbolProperty, current.symbol.rawValue)))
        }
        if current.color != base.color { changes.append(.init("COLOR", ICalPatch.textLine("COLOR", current.color.cssName))) }
        if Self.leads(current) != Self.leads(base) {
            changes += alarmChanges(current, besides: foreignAlerts())
        }
        return changes.isEmpty ? [] : changes + stamps(now)
    }

    /// The property lines to change so that the server's to-do reads as `current` (STATUS,
    /// COMPLETED and PERCENT-COMPLETE for the status, RFC 5545 §3.8.1.11; DUE and PRIORITY; RELATED-TO,
    /// `relatedTo`, when it became a part of another to-do or of none).
    /// `besides`: changes of the to-do's list (`listLook`) that every to-do of it takes.
    static func taskChanges(from base: EventTask, to current: EventTask, text: String, at now: Date,
                            relatedTo: String? = nil, besides: [ICalPatch.Change] = []) -> [ICalPatch.Change] {
        var changes = besides
        if current.parent != base.parent { changes.append(.init("RELATED-TO", relatedTo.map { "RELATED-TO:" + $0 })) }
        if current.text != base.text { changes.append(.init("SUMMARY", ICalPatch.textLine("SUMMARY", current.text))) }
        if current.due != base.due { changes.append(.init("DUE", current.due.map { ICalPatch.dateLine("DUE", $0) })) }
        if current.priority != base.priority {
            changes.append(.init("PRIORITY", current.priority == 0 ? nil : "PRIORITY:\(current.priority)"))
        }
        if current.status != base.status {
            switch current.status {
            case .todo:
                changes += [.init("STATUS", "STATUS:NEEDS-ACTION"), .init("COMPLETED", nil), .init("PERCENT-COMPLETE", nil)]
            case .doing:
                changes += [.init("STATUS", "STATUS:IN-PROCESS"), .init("COMPLETED", nil)]
                if ICalPatch.line("PERCENT-COMPLETE", in: text, component: "VTODO")?.hasSuffix(":100") == true {
                    changes.append(.init("PERCENT-COMPLETE", nil))
                }
            case .done:
                changes += [.init("STATUS", "STATUS:COMPLETED"), .init("COMPLETED", "COMPLETED:" + ICalPatch.utc(now)),
                            .init("PERCENT-COMPLETE", "PERCENT-COMPLETE:100")]
            }
        }
        return changes.isEmpty ? [] : changes + stamps(now)
    }

    /// A to-do list's colour and symbol changed here: `COLOR` and `X-DATEBOOK-SYMBOL` of each of its
    /// to-dos (the list has no resource; `base` read them from its first to-do, as an import does).
    static func listLook(from base: Event, to current: Event) -> [ICalPatch.Change] {
        guard current.isTaskList else { return [] }
        var changes: [ICalPatch.Change] = []
        if current.symbol != base.symbol {
            changes.append(.init(ICalEvent.symbolProperty, ICalPatch.textLine(ICalEvent.symbolProperty, current.symbol.rawValue)))
        }
        if current.color != base.color { changes.append(.init("COLOR", ICalPatch.textLine("COLOR", current.color.cssName))) }
        return changes
    }

    static func stamps(_ now: Date) -> [ICalPatch.Change] {
        [.init("LAST-MODIFIED", "LAST-MODIFIED:" + ICalPatch.utc(now)), .init("DTSTAMP", "DTSTAMP:" + ICalPatch.utc(now))]
    }

    static func newTodo(uid: String, task: EventTask, relatedTo: String?, now: Date, list: Event? = nil) -> String {
        var lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//datebook//CalDAV//EN", "BEGIN:VTODO", "UID:" + uid,
                     "DTSTAMP:" + ICalPatch.utc(now), ICalPatch.textLine("SUMMARY", task.text)]
        switch task.status {
        case .todo: lines.append("STATUS:NEEDS-ACTION")
        case .doing: lines.append("STATUS:IN-PROCESS")
        case .done: lines += ["STATUS:COMPLETED", "COMPLETED:" + ICalPatch.utc(now), "PERCENT-COMPLETE:100"]
        }
        if let relatedTo { lines.append("RELATED-TO:" + relatedTo) }
        if let due = task.due { lines.append(ICalPatch.dateLine("DUE", due)) }
        if task.priority > 0 { lines.append("PRIORITY:\(task.priority)") }
        if let list {
            lines += [ICalPatch.textLine("COLOR", list.color.cssName), ICalPatch.textLine(ICalEvent.symbolProperty, list.symbol.rawValue)]
        }
        lines += ["END:VTODO", "END:VCALENDAR"]
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// - Parameter read: each event of the calendar as the push read it from the store, by id.
    func send(_ write: Write, _ calendar: CalDAVCalendar, now: Date, read: [String: Event], into outcome: inout PushOutcome) throws {
        var resource = write.resource
        guard let changes = write.changes else {
            let response = try client.delete(resource.url, ifMatch: resource.etag)
            guard response.isSuccess || response.status == 404 || response.status == 412 else {
                outcome.refused.append("UID \(resource.uid): DELETE answered HTTP \(response.status)")
                return
            }
            // 412: changed on the server since; the server's copy stays and comes back with the pull.
            if response.status == 412 {
                outcome.conflicts.append("UID \(resource.uid): removed here but changed on the server; the server's copy is kept")
                outcome.unrecorded.append(outcome.conflicts[outcome.conflicts.count - 1])
                return
            }
            try store.recordCalDAVResource(resource, in: calendar, removed: true)
            outcome.removed += 1
            return
        }
        let original = resource.text
        resource.text = write.isNew ? original : Self.patched(original, changes, write.overrides, component: write.component)
        var response = try client.put(resource.url, text: resource.text, ifMatch: write.isNew ? nil : resource.etag)
        if response.status == 412, write.isNew, let server = try client.get(resource.url) {
            // Already there: a sync killed after this PUT was accepted, before recording it.
            outcome.merged += 1
            try store.recordCalDAVResource(CalDAVResource(url: resource.url, etag: server.etag, uid: resource.uid, text: server.text),
                                           in: calendar)
            outcome.sent += 1
            return
        }
        var lost: [String]?
        if response.status == 412 || response.status == 404, !write.isNew {
            if let server = try client.get(resource.url) {
                let merged = Self.merge(changes, base: original, server: server.text, component: write.component, now: now,
                                        changedHere: try editTimes(of: write))
                outcome.merged += 1
                lost = merged.lost.map { "UID \(resource.uid): \($0)" }
                resource.text = Self.patched(server.text, merged.changes, write.overrides, component: write.component)
                response = try client.put(resource.url, text: resource.text, ifMatch: server.etag)
            } else {
                // Removed on the server, changed here: the change wins, and the resource is put back as the
                // server last had it with datebook's changes (its unknown properties kept), as a new one.
                response = try client.put(resource.url, text: resource.text, ifMatch: nil)
                if response.isSuccess {
                    outcome.conflicts.append("UID \(resource.uid): removed on the server but changed here; put back with datebook's changes")
                    outcome.unrecorded.append(outcome.conflicts[outcome.conflicts.count - 1])
                }
            }
        }
        guard response.isSuccess else {
            outcome.conflicts += lost ?? []
            outcome.unrecorded += lost ?? []
            outcome.refused.append("UID \(resource.uid): PUT answered HTTP \(response.status)")
            return
        }
        resource.etag = response.header("ETag")
        if let lost {
            try recordMerged(write, as: resource, lost: lost, calendar, now: now, read: read, into: &outcome)
        } else {
            try store.recordCalDAVResource(resource, in: calendar)
        }
        outcome.sent += 1
    }

    /// Records a PUT that merged the server's changes (a 412) in one transaction with the events
    /// they change here and the conflicts (`CalDAVStore.recordCalDAVMerge`): the held text and
    /// datebook's events never disagree, so a sync killed before its pull neither sends datebook's
    /// older values back nor loses what lost. Each field (each task's text and status) the merged
    /// text gives another value than the held one takes it, unless changed here since the push read
    /// the event: then datebook's is kept and the server's recorded as lost, as in the pull.
    func recordMerged(_ write: Write, as merged: CalDAVResource, lost: [String], _ calendar: CalDAVCalendar, now: Date,
                      read: [String: Event], into outcome: inout PushOutcome) throws {
        let before = try events([write.resource], calendar, now: now, existing: { _ in nil })
        let after = try events([merged], calendar, now: now, existing: { _ in nil })
        let taskID = write.component == "VTODO" ? PlannerICS.taskID(merged.uid) : nil
        let ids = taskID == nil ? after.events.map(\.id) : write.before.map { [$0.id] } ?? []
        let task = { (made: ICSImport) in made.events.flatMap(\.tasks).first { $0.id == taskID } }
        let more = Lost()
        let moved = try store.recordCalDAVMerge(merged, in: calendar, conflicts: lost, now: now, events: ids) { current in
            var changed: [Event] = []
            for id in ids {
                guard let local = current[id] else { continue }
                let mine = read[id] ?? local
                var result: (event: Event, lost: [String]) = (local, [])
                if taskID != nil {
                    if let old = task(before), let new = task(after) { result = Self.taking(new, over: old, in: local, read: mine) }
                } else if let new = after.events.first(where: { $0.id == id }), let old = before.events.first(where: { $0.id == id }) {
                    result = Self.merge(local, before: mine, server: Self.merge(new, before: old, server: mine).event)
                }
                more.messages += result.lost.map { "UID \(after.uids[id] ?? merged.uid): \($0)" }
                if result.event != local { changed.append(result.event) }
            }
            return (changed, more.messages)
        }
        outcome.conflicts += lost + more.messages
        if let moved { outcome.ownChanges.append(moved) }
    }

    /// `event` with its task `new.id` taking each field of `new` that differs from `old`, unless
    /// changed here since the push read the event (`read`): then datebook's is kept and the server's lost.
    static func taking(_ new: EventTask, over old: EventTask, in event: Event, read: Event) -> (event: Event, lost: [String]) {
        var event = event
        guard let index = event.tasks.firstIndex(where: { $0.id == new.id }) else { return (event, []) }
        let mine = read.tasks.first { $0.id == new.id } ?? event.tasks[index]
        var lost: [String] = []
        func take<T: Equatable>(_ field: WritableKeyPath<EventTask, T>, _ name: String) {
            guard new[keyPath: field] != old[keyPath: field] else { return }
            if event.tasks[index][keyPath: field] == mine[keyPath: field] {
                event.tasks[index][keyPath: field] = new[keyPath: field]
            } else if event.tasks[index][keyPath: field] != new[keyPath: field] {
                lost.append("\(name) changed on both sides; datebook's, not sent yet, is kept, the server's lost")
            }
        }
        take(\.text, "SUMMARY")
        take(\.status, "STATUS")
        return (event, lost)
    }
}
