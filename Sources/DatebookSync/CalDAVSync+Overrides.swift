import DatebookCore
import DatebookICal
import DatebookInterchange
import DatebookStore
import Foundation

/// One occurrence of a synced series changed or cancelled in datebook (`edit --occurrence`,
/// `rm --occurrence`, or an edit of an override the server made) goes up in the series' own
/// resource: an override is a VEVENT with the series' UID and a RECURRENCE-ID, added, patched or
/// removed in the same `PUT` as the master's changes; a cancelled occurrence an EXDATE of the master
/// (the master's recurrence lines are written again whenever its set of overrides changes, so an
/// EXDATE never stands for an instance an override replaces, and a removed override's instance
/// gets its EXDATE).
extension CalDAVSync {
    /// A change to one override of the series a write is about.
    enum OverrideEdit: Equatable {
        /// Patch the override of this instance (`RecurrenceText.format` of its RECURRENCE-ID).
        case change(instance: String, [ICalPatch.Change])
        /// A new override: its lines, BEGIN:VEVENT to END:VEVENT.
        case add([String])
        /// Remove the override of this instance (the occurrence is cancelled, or back to the series').
        case remove(instance: String)
    }

    /// The override edits the store calls for against the held copy of the series `master` (UID
    /// `uid`): its overrides are the events recorded under the calendar whose source is `UID#…`.
    /// Returns them, the sources of the overrides the resource holds after them (event id →
    /// `UID#RECURRENCE-ID`), and whether that set changed.
    func overrideEdits(of master: Event, uid: String, base: ICSImport, here: [String: String], now: Date,
                       read: inout [String: Event]) throws -> (edits: [OverrideEdit], sources: [String: String], changed: Bool) {
        let prefix = uid + "#"
        var edits: [OverrideEdit] = []
        var sources: [String: String] = [:]
        var changed = false
        let held = base.events.filter { base.uids[$0.id]?.hasPrefix(prefix) == true }
        for old in held {
            guard let source = base.uids[old.id] else { continue }
            let instance = String(source.dropFirst(prefix.count))
            guard here[old.id] != nil, let current = try store.event(id: old.id) else {
                edits.append(.remove(instance: instance))
                changed = true
                continue
            }
            read[old.id] = current
            sources[old.id] = source
            let changes = Self.eventChanges(from: old, to: current, uid: uid, now: now) { [] }
            if !changes.isEmpty { edits.append(.change(instance: instance, changes)) }
        }
        let heldIDs = Set(held.map(\.id))
        for (id, source) in here.sorted(by: { $0.key < $1.key }) where source.hasPrefix(prefix) && !heldIDs.contains(id) {
            guard let current = try store.event(id: id) else { continue }
            read[id] = current
            sources[id] = source
            edits.append(.add(Self.overrideBlock(current, source: source, master: master, now: now)))
            changed = true
        }
        return (edits, sources, changed)
    }

    /// A new override's VEVENT as `export` writes it (its RECURRENCE-ID in the series' zone, as the
    /// series' DTSTART is written), its alerts as datebook's own VALARMs.
    static func overrideBlock(_ event: Event, source: String, master: Event, now: Date) -> [String] {
        var bare = event
        bare.tasks = []
        bare.alerts = []
        let lines = ICalPatch.logicalLines(PlannerICS.encode([bare], uids: [event.id: source], dtstamp: now), separator: "\r\n")
            .map(ICalPatch.unfold)
        guard let begin = lines.firstIndex(of: "BEGIN:VEVENT"), let end = lines.lastIndex(of: "END:VEVENT"), begin < end else { return [] }
        var block = Array(lines[begin..<end])
        if case .instant(let date)? = OccurrenceChange.replaced(by: event.id, sources: [event.id: source])?.instance,
           let at = block.firstIndex(where: { ICalPatch.propertyName($0) == "RECURRENCE-ID" }) {
            block[at] = ICalPatch.dateLine("RECURRENCE-ID", .instant(date), zone: master.timeZone)
        }
        return block + alarms(event).lines + ["END:VEVENT"]
    }

    /// Whether the changes make another text than `text` beyond its stamps (`DTSTAMP`,
    /// `LAST-MODIFIED`): a difference datebook sees that writes the same lines (a rule it spells
    /// otherwise, an alert that a VALARM of the server's gives) is no change to send, so it is not
    /// sent again at every sync. One `PUT` per real change.
    static func changesText(_ text: String, _ changes: [ICalPatch.Change], _ edits: [OverrideEdit], component: String) -> Bool {
        guard !changes.isEmpty || !edits.isEmpty else { return false }
        func content(_ text: String) -> [Substring] {
            ICalResources.lines(text).filter { !["DTSTAMP", "LAST-MODIFIED"].contains(ICalPatch.propertyName(String($0))) }
        }
        return content(patched(text, changes, edits, component: component)) != content(text)
    }

    /// `text` with the master's `changes` and the override `edits` applied, and a VTIMEZONE for each
    /// zone a written line names that the text has none for.
    static func patched(_ text: String, _ changes: [ICalPatch.Change], _ edits: [OverrideEdit], component: String) -> String {
        var result = ICalPatch.apply(changes, to: text, component: component)
        var written = changes.flatMap(\.lines)
        for edit in edits {
            switch edit {
            case let .change(instance, changes):
                result = ICalPatch.apply(changes, to: result, component: component, instance: instance)
                written += changes.flatMap(\.lines)
            case .add(let block):
                result = ICalPatch.adding(block, to: result)
            case .remove(let instance):
                result = ICalPatch.removing(instance: instance, from: result, component: component)
            }
        }
        return ICalPatch.addingZones(named: written, to: result)
    }
}
