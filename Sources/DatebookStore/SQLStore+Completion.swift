import DatebookCore

/// One event as shell completion offers it: its short id and title.
public struct EventName: Sendable, Equatable {
    public var shortID: String
    public var title: String

    public init(shortID: String, title: String) {
        self.shortID = shortID
        self.title = title
    }
}

extension SQLStore {
    /// Events whose title or id starts with `prefix` (titles case-sensitively, by the title index),
    /// at most `limit`, titles in byte order: what Tab offers for an EVENT argument. Reads only the
    /// `events` index columns, never tasks, so a 100k-event store answers in milliseconds.
    public func eventNames(prefix: String, limit: Int = 100) throws -> [EventName] {
        func name(_ row: Row) -> EventName { EventName(shortID: String(row.text(0).prefix(EventID.shortLength)), title: row.text(1)) }
        let byteOrder = dialect.byteOrder
        // U+10FFFF sorts after every character a title continues with.
        var names = try rows("SELECT id, title FROM events WHERE title\(byteOrder) >= $1 AND title\(byteOrder) < $2 "
                             + "ORDER BY title\(byteOrder), id LIMIT $3", [.text(prefix), .text(prefix + "\u{10FFFF}"), .int(limit)], name)
        let lowered = prefix.lowercased()
        if !lowered.isEmpty, lowered.allSatisfy(\.isHexDigit), names.count < limit {
            names += try rows("SELECT id, title FROM events WHERE id\(byteOrder) >= $1 AND id\(byteOrder) < $2 ORDER BY id\(byteOrder) LIMIT $3",
                              [.text(lowered), .text(lowered + "~"), .int(limit - names.count)], name)
        }
        return names
    }
}
