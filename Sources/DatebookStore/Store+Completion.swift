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

extension Store {
    /// Events whose title or id starts with `prefix` (titles case-sensitively, by the title index),
    /// at most `limit`, titles in order: what Tab offers for an EVENT argument. Reads only the
    /// `events` index columns, never tasks, so a 100k-event store answers in milliseconds.
    public func eventNames(prefix: String, limit: Int = 100) throws -> [EventName] {
        try wrap {
            var names: [EventName] = []
            func collect(_ rows: SQLiteStatement) throws {
                while try rows.step() { names.append(EventName(shortID: String(rows.text(0).prefix(EventID.shortLength)), title: rows.text(1))) }
            }
            // U+10FFFF sorts after every character a title continues with.
            try collect(statement(literal: "SELECT id, title FROM events WHERE title >= ?1 AND title < ?2 ORDER BY title, id LIMIT ?3")
                .bind(.text(prefix), .text(prefix + "\u{10FFFF}"), .int(limit)))
            let lowered = prefix.lowercased()
            if !lowered.isEmpty, lowered.allSatisfy(\.isHexDigit), names.count < limit {
                try collect(statement(literal: "SELECT id, title FROM events WHERE id >= ?1 AND id < ?2 ORDER BY id LIMIT ?3")
                    .bind(.text(lowered), .text(lowered + "~"), .int(limit - names.count)))
            }
            return names
        }
    }
}
