import DatebookCore
import DatebookStore
import Foundation

/// Formatting of events as terminal rows, shared by `list`, `show`, `tasks` and `demo`.
enum Rows {
    static let titleColumns = 34

    /// `Tue 2026-12-01 08:00` or `Mon 2021-06-07 all day`.
    static func when(_ start: EventStart, _ context: Context) -> String {
        switch start {
        case .instant(let date): LocalTime(date, in: context.timeZone).listFormat
        case .floating(let time): time.wallClock.listFormat
        case .allDay(let day):
            day.weekdayName + " " + day.description + " all day"
        }
    }

    /// `3 left`, `✓`, or empty when the event has no tasks.
    static func badge(_ event: some EventListing) -> String { Badge.text(event) }

    static func header(_ period: Period, _ context: Context) -> String {
        context.style(period.title, "1") + "\n"
    }

    /// The 2-column emoji of each symbol, computed once.

    /// The 2-column emoji of each symbol, as bytes, computed once.
    private static let emojiBytes: [Symbol: [UInt8]] = Dictionary(uniqueKeysWithValues: Symbol.allCases.map {
        ($0, Array(TextWidth.pad($0.emoji, to: 2).utf8))
    })

    /// Everything of a row before the date: short id, emoji and the title cut and padded to its column.
    static func appendLead(_ event: some EventListing, _ context: Context, to row: inout [UInt8]) {
        row.append(0x20)
        row.append(0x20)
        let id = event.id.utf8
        if !context.colors, id.count >= EventID.shortLength, id.prefix(EventID.shortLength).allSatisfy({ $0 < 0x80 }) {
            row.append(contentsOf: id.prefix(EventID.shortLength))
        } else {
            row.append(contentsOf: context.style(event.shortID, "2").utf8)
        }
        row.append(0x20)
        row.append(0x20)
        row.append(contentsOf: emojiBytes[event.symbol] ?? [0x20, 0x20])
        row.append(0x20)
        if context.colors {
            row.append(contentsOf: context.style(TextWidth.fit(event.title, to: titleColumns), event.color.ansi).utf8)
        } else {
            TextWidth.appendFit(event.title, to: titleColumns, into: &row)
        }
        row.append(0x20)
        row.append(0x20)
    }

    /// One row as a String (`add` and `edit` print the row they saved).
    static func row(_ occurrence: OccurrenceOf<some EventListing>, _ context: Context) -> String {
        var writer = RowWriter(context)
        return writer.string(occurrence)
    }

    /// `repeats weekly`, or `repeats FREQ=MONTHLY;BYDAY=1MO` for a rule with more parts: what a
    /// Future or earlier Past row that stands for its whole series says.
    static func repeats(_ rule: String) -> String { SeriesRule.english(rule) }

    static func checkbox(_ status: TaskStatus) -> String {
        switch status {
        case .todo: "[ ]"
        case .doing: "[~]"
        case .done: "[x]"
        }
    }
}

/// Writes listing rows: each is built in one reused byte buffer and written once; the lead of an
/// event already listed (recurring events repeat it) and the zone's offset are remembered. A
/// listing writes thousands of rows and builds no String per row.
struct RowWriter {
    let context: Context
    private var leads: [HashedID: [UInt8]] = [:]
    private var row: [UInt8] = []
    private var offsets: ZoneOffsets

    init(_ context: Context) {
        self.context = context
        offsets = ZoneOffsets(context.timeZone)
        row.reserveCapacity(128)
    }

    mutating func write(_ occurrence: OccurrenceOf<some EventListing>) {
        build(occurrence)
        context.out.write(bytes: row)
    }

    mutating func string(_ occurrence: OccurrenceOf<some EventListing>) -> String {
        build(occurrence)
        return String(decoding: row, as: UTF8.self)
    }

    private mutating func build(_ occurrence: OccurrenceOf<some EventListing>) {
        let event = occurrence.event
        row.removeAll(keepingCapacity: true)
        let id = HashedID(event.id)
        if let cached = leads[id] {
            row.append(contentsOf: cached)
        } else {
            Rows.appendLead(event, context, to: &row)
            if leads.count > 50_000 { leads.removeAll(keepingCapacity: true) }
            // A copy of exactly the lead's bytes. Storing `row` (or a view of it) shares its buffer:
            // the next row then allocates a new one, a little larger each time, and every cached
            // lead kept its own (1M-event `list`: 176 MB instead of 26 MB).
            leads[id] = [UInt8](unsafeUninitializedCapacity: row.count) { buffer, count in
                count = buffer.initialize(fromContentsOf: row)
            }
        }
        let before = row.count
        switch occurrence.instanceStart(in: context.timeZone) {
        case .instant(let date): LocalTime(date, in: &offsets).appendListFormat(to: &row)
        case let start: row.append(contentsOf: Rows.when(start, context).utf8)
        }
        // The badge column after a date of ASCII columns (instants print 20, all-day dates 22:
        // padded without measuring), then the line end.
        let open = event.badge
        if event.isComplete || open > 0 {
            row.append(contentsOf: repeatElement(0x20, count: 22 - (row.count - before) + 2))
            if event.isComplete {
                row.append(contentsOf: context.style(Badge.done, "32").utf8)
            } else {
                // The count's digits straight into the row (no String per row).
                var divisor = 1
                while divisor <= open / 10 { divisor *= 10 }
                while divisor > 0 {
                    row.append(UInt8(48 + open / divisor % 10))
                    divisor /= 10
                }
                row.append(contentsOf: Badge.openSuffix.utf8)
            }
        }
        if let rule = occurrence.series {
            if !(event.isComplete || open > 0) { row.append(contentsOf: repeatElement(0x20, count: max(0, 22 - (row.count - before)))) }
            row.append(contentsOf: ("  " + Rows.repeats(rule)).utf8)
        }
        row.append(0x0A)
    }
}

/// An event id with its FNV-1a hash computed once: the row cache looks ids up thousands of times,
/// and String hashing (SipHash with normalisation checks) was a tenth of a listing's time.
private struct HashedID: Hashable {
    let id: String
    let hash: UInt64

    init(_ id: String) {
        self.id = id
        var bytes = id
        hash = bytes.withUTF8 { EventID.fnv1a($0) }
    }

    func hash(into hasher: inout Hasher) { hasher.combine(hash) }
    static func == (a: HashedID, b: HashedID) -> Bool { a.hash == b.hash && a.id == b.id }
}
