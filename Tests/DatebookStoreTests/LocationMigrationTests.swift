import DatebookCore
@testable import DatebookStore
import Foundation
import Testing

/// Schema 10 adds `location` and `url`; iCalendar imports before it kept LOCATION as a
/// `Location: …` line of the notes, which the upgrade moves into the new column. SQLite only: an
/// old file.
struct LocationMigrationTests {
    @Test func aSchemaNineStoreGetsItsLocationLinesMovedOutOfTheNotes() throws {
        let path = temporaryDirectory() + "/v9.sqlite3"
        do {
            let raw = try SQLiteConnection(path: path, flags: 0x6)
            try raw.execute(Store.migrations[0..<9].joined(separator: ";\n") + "; PRAGMA user_version = 9")
            try raw.execute("""
                INSERT INTO events (id, title, start_key, all_day, time_zone, symbol, color, notes) VALUES
                    ('a', 'Imported', 1796169600, 1, 'UTC', 'star.fill', 'red', 'Bring slides' || char(10) || 'Location: Room 4' || char(10) || 'https://example.org/x'),
                    ('b', 'Only a place', 1796169600, 1, 'UTC', 'star.fill', 'red', 'Location: Hall B'),
                    ('c', 'Plain', 1796169600, 1, 'UTC', 'star.fill', 'red', 'No place here; Location: is mid-line')
                """)
        }
        let store = try Store(path: path)
        #expect(try store.userVersion() == Store.schemaVersion)
        let a = try #require(try store.event(id: "a"))
        #expect(a.location == "Room 4")
        #expect(a.notes == "Bring slides\nhttps://example.org/x")
        let b = try #require(try store.event(id: "b"))
        #expect((b.location, b.notes) == ("Hall B", ""))
        let c = try #require(try store.event(id: "c"))
        #expect((c.location, c.notes) == ("", "No place here; Location: is mid-line"))
    }
}
