import DatebookCore
import DatebookICal
import Foundation

/// Events read from an iCalendar file, with the UID each one came from and what was skipped.
public struct ICSImport: Sendable {
    public var events: [Event]
    /// Event id → the iCalendar UID it was made from (`UID#RECURRENCE-ID` for a moved instance).
    public var uids: [String: String]
    /// `file:line: UID x: message` lines for components that were skipped or changed.
    public var warnings: [String]
    /// Recurring events submitted for expansion by their index in `events`, when the decoder was
    /// told the store they go to (`Options.store`).
    public var expansions: OccurrenceExpansions?

    public init(events: [Event], uids: [String: String], warnings: [String], expansions: OccurrenceExpansions? = nil) {
        self.events = events
        self.uids = uids
        self.warnings = warnings
        self.expansions = expansions
    }
}

/// Where planner events stand to iCalendar: the UIDs and ids that tie an event to the component it
/// came from or goes out as. The store records these (`event_sources`); DatebookInterchange's
/// `PlannerICS` extension converts the components themselves.
public enum PlannerICS {
    public static let uidSuffix = "@datebook"

    /// The calendar `datebook import` records its events under (`event_sources`); its ids keep
    /// the ones datebook wrote into the UIDs (`…@datebook`), so export then import restores them.
    public static let importCalendar = "import"

    /// The id an event of `calendar` (not `importCalendar`) with this UID gets: an event made in
    /// datebook for a CalDAV calendar takes it, so the server's copy maps back to it.
    public static func eventID(uid: String, calendar: String) -> String { EventID.stable(calendar + "\u{0}" + uid) }

    /// A stored source (`UID`, or `UID#RECURRENCE-ID` for a moved instance) taken apart. Only a
    /// suffix written by `RecurrenceText.format` counts: a UID may hold `#` itself (the one made
    /// for a VEVENT without a UID does).
    public static func source(_ stored: String) -> (uid: String, recurrenceID: ICalDateValue?) {
        guard let hash = stored.lastIndex(of: "#") else { return (stored, nil) }
        let suffix = String(stored[stored.index(after: hash)...])
        // `YYYYMMDD`, or `YYYYMMDDTHHMMSS` with or without `Z`.
        let bytes = Array(suffix.utf8)
        func digits(_ range: Range<Int>) -> Bool { bytes[range].allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }
        let date = bytes.count == 8 && digits(0..<8)
        let time = (bytes.count == 15 || bytes.count == 16 && bytes[15] == UInt8(ascii: "Z"))
            && digits(0..<8) && bytes[8] == UInt8(ascii: "T") && digits(9..<15)
        guard date || time, let value = RecurrenceText.value(suffix) else { return (stored, nil) }
        return (String(stored[..<hash]), value)
    }
}
