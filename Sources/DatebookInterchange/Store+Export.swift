import DatebookCore
import DatebookStore
import Foundation

/// The formats of `datebook export` (and of the feed `GET /calendar.ics`: `ics`).
public enum ExportFormat: String, Sendable, CaseIterable {
    case json, ics
}

extension PlannerStore {
    /// The whole planner in `format`, handed to `write` as it is read, in pieces of about 64 kB:
    /// the planner is never held whole. `warn` gets a sentence for each event repaired or left out
    /// (see `restorable`), `progress` the count every 1,000 events. Returns how many were written.
    @discardableResult
    public func export(_ format: ExportFormat, dtstamp: Date, warn: (String) -> Void, progress: (Int) -> Void = { _ in },
                       write: ([UInt8]) throws -> Void) throws -> Int {
        // Events come in start order, their tasks by id from all over the tasks table: with the
        // default 2 MB page cache a 100k-event planner (42 MB) read its pages 198k times over.
        try limitPageCache(kibibytes: 32_768)
        let uids = format == .ics ? try sourceUIDs() : [:]
        var document: any ExportDocument = switch format {
        case .ics: ICSExport(zones: try timedEventZones(), uids: uids, dtstamp: dtstamp, series: try seriesWithTails(uids))
        case .json: JSONExport()
        }
        var count = 0
        try forEachEvent { stored in
            guard let event = Self.restorable(stored, warn: warn) else { return }
            document.add(event)
            count += 1
            if document.pending >= 1 << 16 { try write(document.take()) }
            if count % 1_000 == 0 { progress(count) }
        }
        document.end()
        try write(document.take())
        return count
    }

    /// The event as `import` will take it back: a store written before the rules (or by hand) may
    /// hold events they refuse; each repair, or the event left out, is a warning.
    static func restorable(_ stored: Event, warn: (String) -> Void) -> Event? {
        var event = stored
        let repair = EventValidation.planner.repair(&event)
        let name = "event \(stored.shortID) '\(TextWidth.clean(String(stored.title.prefix(40))))'"
        for change in repair.changes { warn("\(name): \(change); exported so") }
        guard let refusal = repair.refusals.first else { return event }
        warn("\(name): \(refusal); left out (import would refuse it)")
        return nil
    }
}

/// An export format written event by event: `add` each, then `end`; `take` hands over the bytes
/// written so far (whenever `pending` has grown large).
protocol ExportDocument {
    mutating func add(_ event: Event)
    mutating func end()
    var pending: Int { get }
    mutating func take() -> [UInt8]
}

extension ICSExport: ExportDocument {}

/// The planner JSON document (`PlannerDocument.Writer`) as an `ExportDocument`.
struct JSONExport: ExportDocument {
    private var writer = PlannerDocument.Writer()
    private var text: String

    init() { text = writer.header }

    mutating func add(_ event: Event) { text += writer.text(of: event) }
    mutating func end() { text += writer.footer }
    var pending: Int { text.utf8.count }

    mutating func take() -> [UInt8] {
        defer { text = "" }
        return Array(text.utf8)
    }
}
