import DatebookCore
import DatebookInterchange
import DatebookStore
import Foundation

/// A property changed on both sides goes to the later change (issue 31): datebook's change at the
/// time it was made (`CalDAVEdits`, recorded per field when it is saved), the server's at its
/// `LAST-MODIFIED` (else `DTSTAMP`). What lost is said, with both times, in the sync's warnings and
/// in `caldav status`.
extension CalDAVSync {
    /// Our changes that still apply to the server's newer copy: a property the server left as it
    /// was takes ours; one changed on both sides goes to the later change, ours unless the
    /// server's LAST-MODIFIED (else DTSTAMP) is later than the time ours was made
    /// (`changedHere(property)`; nil: not timed, taken as made now, at the sync that notices it).
    /// Returns what lost, in words.
    static func merge(_ changes: [ICalPatch.Change], base: String, server: String, component: String, now: Date,
                      changedHere: (String) -> Date? = { _ in nil }) -> (changes: [ICalPatch.Change], lost: [String]) {
        let stamp = (ICalPatch.line("LAST-MODIFIED", in: server, component: component)
            ?? ICalPatch.line("DTSTAMP", in: server, component: component)).map { String($0.suffix(16)) } ?? ""
        var kept: [ICalPatch.Change] = []
        var lost: [String] = []
        for change in changes where !["LAST-MODIFIED", "DTSTAMP"].contains(change.name) {
            let theirs = ICalPatch.value(change.name, in: server, component: component)
            // The server has ours already (a sync killed after its PUT), or left the property alone.
            guard theirs != change.line, theirs != ICalPatch.value(change.name, in: base, component: component) else {
                kept.append(change)
                continue
            }
            let ours = ICalPatch.utc(changedHere(change.name) ?? now)
            let times = " (changed here \(shown(ours)), on the server \(stamp.isEmpty ? "at no stated time" : shown(stamp)))"
            // iCalendar UTC times (`20261130T090000Z`) order as text.
            if stamp > ours {
                lost.append("\(change.name) changed on both sides; the server's is kept, datebook's '\(change.line ?? "(removed)")' lost" + times)
            } else {
                kept.append(change)
                lost.append("\(change.name) changed on both sides; datebook's is kept, the server's '\(theirs ?? "(none)")' lost" + times)
            }
        }
        return (kept.isEmpty ? [] : kept + stamps(now), lost)
    }

    /// `2026-11-30 09:00:02Z` for an iCalendar UTC time (`20261130T090002Z`); other text as it is.
    static func shown(_ stamp: String) -> String {
        let digits = Array(stamp)
        guard digits.count == 16, digits[8] == "T", digits[15] == "Z" else { return stamp }
        let part = { (from: Int, to: Int) in String(digits[from..<to]) }
        return "\(part(0, 4))-\(part(4, 6))-\(part(6, 8)) \(part(9, 11)):\(part(11, 13)):\(part(13, 15))Z"
    }

    /// When each property `write` changes was changed here (nil: not timed), for `merge`.
    func editTimes(of write: Write) throws -> (String) -> Date? {
        guard let event = write.before else { return { _ in nil } }
        let times = try store.calDAVEditTimes(of: [event.id])[event.id] ?? [:]
        let task = write.component == "VTODO" ? PlannerICS.taskID(write.resource.uid) : nil
        return { times[Self.editField($0, task: task)] }
    }

    /// The `CalDAVEdits` field whose change writes property `name` (of a VTODO of task `task`).
    static func editField(_ name: String, task: String?) -> String {
        if let task { return CalDAVEdits.task(task, name == "SUMMARY" ? "SUMMARY" : "STATUS") }
        switch name {
        case "DURATION": return CalDAVEdits.end
        case "RDATE", "EXDATE", "EXRULE": return CalDAVEdits.recurrence
        case ICalPatch.ownAlarms, ICalPatch.serverAlarmsRemoved: return CalDAVEdits.alerts
        default: return name
        }
    }
}
