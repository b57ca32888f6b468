import DatebookCore
import Foundation

/// A VALARM's TRIGGER: a duration before the start or the end (`RELATED=END`), or an instant
/// (`VALUE=DATE-TIME`). An integer literal is a lead before the start.
public enum ICalAlarm: Sendable, Hashable, ExpressibleByIntegerLiteral {
    /// Seconds before the start (negative: after it).
    case beforeStart(Int)
    /// Seconds before the end (negative: after it).
    case beforeEnd(Int)
    /// At this instant.
    case at(Date)

    public init(integerLiteral value: Int) { self = .beforeStart(value) }

    /// The TRIGGER line: `TRIGGER:-PT15M`, `TRIGGER;RELATED=END:-PT15M`, `TRIGGER;VALUE=DATE-TIME:20261224T080000Z`.
    public var triggerLine: String {
        switch self {
        case .beforeStart(let lead): return "TRIGGER:" + ICalFormat.trigger(leadSeconds: lead)
        case .beforeEnd(let lead): return "TRIGGER;RELATED=END:" + ICalFormat.trigger(leadSeconds: lead)
        case .at(let instant): return "TRIGGER;VALUE=DATE-TIME:" + ICalFormat.utc(instant)
        }
    }
}

/// One VEVENT, reduced to neutral values; nothing here depends on the rest of datebook.
public struct ICalEvent: Sendable, Equatable {
    public var uid: String
    public var summary: String?
    public var description: String?
    public var location: String?
    public var url: String?
    public var start: ICalDateValue
    /// From DTEND, or DTSTART + DURATION; nil when the file gives neither.
    public var end: ICalDateValue?
    /// The RRULE value exactly as written in the file (unfolded).
    public var rrule: String?
    public var rdates: [ICalDateValue]
    public var exdates: [ICalDateValue]
    /// EXRULE values as written (RFC 2445; deprecated by RFC 5545 but still written and read by libical).
    public var exrules: [String]
    /// Set on an override: the original start of the instance this VEVENT replaces.
    public var recurrenceID: ICalDateValue?
    /// `RECURRENCE-ID;RANGE=THISANDFUTURE`: the override also applies to every later instance.
    public var thisAndFuture: Bool = false
    /// The VALARMs' triggers.
    public var alarms: [ICalAlarm]
    /// Line number (1-based) of `BEGIN:VEVENT` in the file.
    public var sourceLine: Int
    /// STATUS as written, upper-cased (`CONFIRMED`, `TENTATIVE`, `CANCELLED`).
    public var status: String?
    /// SEQUENCE (0 when absent): an override older than its master may name an instance that is gone.
    public var sequence: Int
    /// COLOR (RFC 7986): a CSS3 colour name, as written.
    public var color: String?
    /// `X-DATEBOOK-SYMBOL`: the planner symbol's name, as written.
    public var symbol: String?
    /// `X-DATEBOOK-TIMEZONE`: the zone of an all-day event (a DATE value has no TZID), as written.
    public var timeZoneName: String?

    public init(uid: String, summary: String? = nil, description: String? = nil,
                location: String? = nil, url: String? = nil, start: ICalDateValue,
                end: ICalDateValue? = nil, rrule: String? = nil, rdates: [ICalDateValue] = [],
                exdates: [ICalDateValue] = [], exrules: [String] = [], recurrenceID: ICalDateValue? = nil,
                alarms: [ICalAlarm] = [], sourceLine: Int = 0, status: String? = nil, sequence: Int = 0,
                color: String? = nil, symbol: String? = nil, timeZoneName: String? = nil) {
        self.uid = uid
        self.summary = summary
        self.description = description
        self.location = location
        self.url = url
        self.start = start
        self.end = end
        self.rrule = rrule
        self.rdates = rdates
        self.exdates = exdates
        self.exrules = exrules
        self.recurrenceID = recurrenceID
        self.alarms = alarms
        self.sourceLine = sourceLine
        self.status = status
        self.sequence = sequence
        self.color = color
        self.symbol = symbol
        self.timeZoneName = timeZoneName
    }

    /// The property `symbol` is read from and written to.
    public static let symbolProperty = "X-DATEBOOK-SYMBOL"
    /// The property `timeZoneName` is read from and written to.
    public static let timeZoneProperty = "X-DATEBOOK-TIMEZONE"

    /// The zone recurrence is expanded in: the start's own zone, else `defaultTimeZone`.
    public func timeZone(default defaultTimeZone: TimeZone) -> TimeZone {
        start.timeZone(fallback: defaultTimeZone)
    }

    /// Seconds from start to end (0 without an end).
    public func duration(in defaultTimeZone: TimeZone) -> TimeInterval {
        guard let end else { return 0 }
        return max(0, end.resolve(in: defaultTimeZone).timeIntervalSince(start.resolve(in: defaultTimeZone)))
    }

    /// True when STATUS is CANCELLED.
    public var isCancelled: Bool { status == "CANCELLED" }
}

/// The three task states of datebook; CANCELLED counts as done (nothing left to do).
public enum ICalTaskStatus: String, Sendable, Equatable {
    case todo, doing, done

    /// Maps an RFC 5545 VTODO STATUS; unknown or missing values are `todo`.
    public init(icalStatus: String?) {
        switch icalStatus.map(Self.capitals) {
        case "IN-PROCESS": self = .doing
        case "COMPLETED", "CANCELLED": self = .done
        default: self = .todo
        }
    }

    /// `status` in capitals; one already in capitals (nearly every STATUS) is not copied.
    static func capitals(_ status: String) -> String {
        status.hasByte { (0x61...0x7A).contains($0) || $0 >= 0x80 } ? status.uppercased() : status
    }

    /// The RFC 5545 STATUS written for this state.
    public var icalStatus: String {
        switch self {
        case .todo: return "NEEDS-ACTION"
        case .doing: return "IN-PROCESS"
        case .done: return "COMPLETED"
        }
    }
}

/// One VTODO, reduced to neutral values.
public struct ICalTodo: Sendable, Equatable {
    public var uid: String
    public var summary: String?
    public var status: ICalTaskStatus
    /// STATUS as written, upper-cased (keeps CANCELLED apart from COMPLETED).
    public var rawStatus: String?
    /// RELATED-TO: the UID of the parent (usually the event this task belongs to).
    public var relatedTo: String?
    public var due: ICalDateValue?
    /// PRIORITY: 1 (highest) … 9 (lowest); 0 when none (or an undefined one) is given.
    public var priority: Int
    /// Line number (1-based) of `BEGIN:VTODO` in the file.
    public var sourceLine: Int
    /// COLOR (RFC 7986) and `X-DATEBOOK-SYMBOL`, as written: the look of the to-do list a
    /// stand-alone to-do belongs to (datebook writes its list's on each of them).
    public var color: String?
    public var symbol: String?

    public init(uid: String, summary: String? = nil, status: ICalTaskStatus = .todo,
                rawStatus: String? = nil, relatedTo: String? = nil, due: ICalDateValue? = nil,
                priority: Int = 0, sourceLine: Int = 0, color: String? = nil, symbol: String? = nil) {
        self.color = color
        self.symbol = symbol
        self.uid = uid
        self.summary = summary
        self.status = status
        self.rawStatus = rawStatus
        self.relatedTo = relatedTo
        self.due = due
        self.priority = priority
        self.sourceLine = sourceLine
    }

    /// A PRIORITY value as kept: 0 (undefined) outside RFC 5545's 1…9.
    public static func priority(_ value: Int) -> Int { (1...9).contains(value) ? value : 0 }
}

/// A problem that did not stop the import: which file, line and UID, and what happened.
public struct ICalWarning: Sendable, Equatable, CustomStringConvertible {
    public var fileName: String
    public var line: Int
    public var uid: String?
    public var message: String

    public init(fileName: String, line: Int, uid: String?, message: String) {
        self.fileName = fileName
        self.line = line
        self.uid = uid
        self.message = message
    }

    /// `file:line: UID x: message`, the house format for diagnostics.
    public var description: String {
        let who = uid.map { " UID \($0):" } ?? ""
        return "\(fileName):\(line):\(who) \(message)"
    }
}

/// Everything read from one iCalendar file.
public struct ICalDocument: Sendable, Equatable {
    public var events: [ICalEvent]
    public var todos: [ICalTodo]
    public var warnings: [ICalWarning]

    public init(events: [ICalEvent] = [], todos: [ICalTodo] = [], warnings: [ICalWarning] = []) {
        self.events = events
        self.todos = todos
        self.warnings = warnings
    }
}

/// Why a whole file was refused.
public enum ICalError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bytes are not an iCalendar file at all; `got` names what they look like.
    case notICalendar(fileName: String, got: String)

    public var description: String {
        switch self {
        case let .notICalendar(fileName, got):
            return "\(fileName): not iCalendar (\(got)); check that the path or URL points at an .ics calendar"
        }
    }
}
