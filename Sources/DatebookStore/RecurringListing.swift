import DatebookCore
import Foundation

// The values the recurring paths of a listing pass around (SQLStore+Occurrences.swift).

/// What the recurring paths hold of an event: the whole event, or its listing summary.
protocol StoredListing: EventListing {
    init(listing event: Event)
}

extension Event: StoredListing {
    init(listing event: Event) { self = event }
}

extension EventSummary: StoredListing {
    init(listing event: Event) { self.init(event) }
}

/// Whether occurrence rows existed when the write transaction began, and which events got some since.
struct OccurrenceRows {
    var before: Bool
    var written: Set<String> = []
}

/// Recurring occurrences in chronological order, as (start, event) references.
struct SortedOccurrences<Item: EventListing> {
    let events: [Item]
    let starts: [(start: Date, index: Int)]
    /// The rule of each event listed once for its whole series (`SeriesReach`), by index.
    var rules: [Int: String] = [:]

    var count: Int { starts.count }

    subscript(position: Int) -> OccurrenceOf<Item> {
        let index = starts[position].index
        return OccurrenceOf(event: events[index], start: starts[position].start, series: rules[index])
    }
}

/// Feeds pre-sorted recurring occurrences into the chronological stream of the others.
struct RecurringMerge<Item: EventListing> {
    let items: SortedOccurrences<Item>
    private var next = 0

    init(_ items: SortedOccurrences<Item>) { self.items = items }

    /// Emits every recurring occurrence that sorts before `limit` (all remaining when nil).
    mutating func drain(before limit: OccurrenceOf<Item>?, _ body: (OccurrenceOf<Item>) throws -> Void) throws {
        while next < items.count {
            let item = items[next]
            if let limit, !OccurrenceOf.chronological(item, limit) { break }
            try body(item)
            next += 1
        }
    }
}

/// Occurrence keys grouped by their event's id, held as the id's UTF-8 bytes: a listing reads
/// thousands of rows and makes no String of an id to match them with their events. Rows whose ids
/// share a 64-bit FNV-1a hash form one chain; every match is confirmed on the bytes.
struct KeysByID {
    private var heads: [UInt64: Int] = [:]
    private var keys: [Int64] = []
    /// The previous row in the same chain, or -1.
    private var next: [Int] = []
    private var idRanges: [Range<Int>] = []
    private var idBytes: [UInt8] = []

    var count: Int { keys.count }
    var isEmpty: Bool { keys.isEmpty }

    mutating func add(_ key: Int64, id: UnsafeBufferPointer<UInt8>) {
        next.append(heads.updateValue(keys.count, forKey: EventID.fnv1a(id)) ?? -1)
        keys.append(key)
        idRanges.append(idBytes.count ..< idBytes.count + id.count)
        idBytes.append(contentsOf: id)
    }

    /// The last row added for `id`, or nil when it has none.
    func first(id: UnsafeBufferPointer<UInt8>) -> Int? {
        var row = heads[EventID.fnv1a(id)] ?? -1
        while row >= 0, !matches(row, id) { row = next[row] }
        return row >= 0 ? row : nil
    }

    /// Every key of `id`, starting from the row `first(id:)` returned.
    func forEachKey(id: UnsafeBufferPointer<UInt8>, from first: Int, _ body: (Int64) -> Void) {
        var row = first
        while row >= 0 {
            if matches(row, id) { body(keys[row]) }
            row = next[row]
        }
    }

    private func matches(_ row: Int, _ id: UnsafeBufferPointer<UInt8>) -> Bool {
        idBytes.withUnsafeBufferPointer { UnsafeBufferPointer(rebasing: $0[idRanges[row]]).sameBytes(as: id) }
    }
}
