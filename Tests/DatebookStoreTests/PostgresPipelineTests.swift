import DatebookCore
@testable import DatebookStore
import DatebookTestSupport
import Foundation
import Testing

/// Reads sent ahead (`PostgresConnection.sendAhead`, libpq's pipeline mode) answer as the plain
/// path does, whatever is asked for next, and leave the connection as it was.
@Suite(.serialized) struct PostgresPipelineTests {
    static let statements: [(sql: String, parameters: [String?])] = [
        ("SELECT key, n FROM items WHERE n >= $1 ORDER BY key", ["2"]),
        ("SELECT count(*) FROM items", []),
        ("SELECT key FROM items WHERE note = $1 ORDER BY key", ["é"]),
    ]

    static func connection() throws -> PostgresConnection {
        let connection = try PostgresConnection(conninfo: try TestPostgres.shared().makeDatabase(), store: "test")
        try connection.execute("CREATE TABLE items (key TEXT PRIMARY KEY, n BIGINT, note TEXT)")
        try connection.execute("INSERT INTO items SELECT 'k' || g, g, CASE WHEN g % 2 = 0 THEN 'é' END FROM generate_series(1, 500) g")
        return connection
    }

    static func answers(_ connection: PostgresConnection, _ order: [Int]) throws -> [[[String?]]] {
        try order.map { PreparedStatementTests.values(try connection.query(statements[$0].sql, statements[$0].parameters)) }
    }

    /// Taken in order, out of order, in part or not at all: every answer is the plain one, and
    /// the connection is out of pipeline mode once the line is taken or dropped.
    @Test func readsSentAheadAnswerAsThePlainPathDoes() throws {
        let connection = try Self.connection()
        let plain = try Self.answers(connection, [0, 1, 2])
        #expect(plain[1] == [["500"]] && plain[0].count == 499 && plain[2].count == 250)
        for order in [[0, 1, 2], [1, 0, 2], [0, 2, 1], [0], [2, 2], []] {
            connection.sendAhead(Self.statements)
            #expect(connection.ahead.count == 3)
            let answers = try Self.answers(connection, order)
            #expect(answers == order.map { plain[$0] }, "order \(order)")
            // A write after them: the line is dropped first, the write goes through.
            try connection.execute("UPDATE items SET n = n WHERE key = 'k1'")
            #expect(connection.ahead.isEmpty && !connection.isPipelining, "order \(order)")
        }
        #expect(try Self.answers(connection, [1]) == [[["500"]]])
    }

    /// A read that fails throws its own error; those after it run plainly when asked for.
    @Test func aFailingReadAheadThrowsAndTheOthersStillAnswer() throws {
        let connection = try Self.connection()
        let plain = try Self.answers(connection, [0, 1, 2])
        let failing = ("SELECT 1 / ($1::int - 1)", ["1"] as [String?])
        connection.sendAhead([Self.statements[0], failing, Self.statements[1], Self.statements[2]])
        #expect(PreparedStatementTests.values(try connection.query(Self.statements[0].sql, Self.statements[0].parameters)) == plain[0])
        #expect(throws: PostgresError.self) { try connection.query(failing.0, failing.1) }
        #expect(!connection.isPipelining)
        #expect(try Self.answers(connection, [1, 2]) == [plain[1], plain[2]])
        // Inside a transaction too, and a transaction after it begins and commits.
        try connection.execute("BEGIN")
        connection.sendAhead(Self.statements)
        #expect(try Self.answers(connection, [0, 1]) == [plain[0], plain[1]])
        try connection.execute("COMMIT")
        #expect(try Self.answers(connection, [2]) == [plain[2]])
    }

    /// A backend ended while reads are ahead: the next read fails as a lost connection does, the
    /// line is gone, and after a reconnect the connection answers plainly again.
    @Test func aBackendEndedWhileReadsAreAheadFailsAndTheConnectionRecovers() throws {
        let connection = try Self.connection()
        let plain = try Self.answers(connection, [0, 1, 2])
        let backend = try connection.query("SELECT pg_backend_pid()").text(0, 0)
        // The first read waits, so the backend ends before the line is answered.
        let slow = ("SELECT pg_sleep(5)", [String?]())
        connection.sendAhead([slow] + Self.statements)
        let other = try PostgresConnection(conninfo: try TestPostgres.shared().makeDatabase(), store: "test")
        _ = try other.query("SELECT pg_terminate_backend($1::int)", [backend])
        #expect(throws: PostgresError.self) { try connection.query(slow.0, slow.1) }
        #expect(throws: PostgresError.self) { try connection.query(Self.statements[0].sql, Self.statements[0].parameters) }
        #expect(connection.ahead.isEmpty)
        try connection.reset()
        #expect(!connection.isPipelining)
        #expect(try Self.answers(connection, [2, 0, 1]) == [plain[2], plain[0], plain[1]])
    }

    /// The recurring listing sends its reads ahead on PostgreSQL: the agenda is the one SQLite
    /// lists from the same planner, with and without events whose span falls short.
    @Test func theListingWithReadsAheadIsSQLitesListing() throws {
        let now = Date(timeIntervalSince1970: 1_796_025_600) // 2026-12-01T08:00Z
        let calendar = utcCalendar("Europe/Berlin")
        var events = (0..<40).map { n in
            Event(id: String(format: "%016x", n + 1), title: "Series \(n % 7)", start: .instant(now.addingTimeInterval(Double(n) * 3_600 - 3 * 86_400)),
                  timeZone: "Europe/Berlin", symbol: .star, color: .indigo, recurrence: n % 5 == 0 ? "FREQ=DAILY;INTERVAL=2" : "FREQ=WEEKLY")
        }
        events.append(Event(id: "00000000000000ff", title: "Once", start: .instant(now.addingTimeInterval(86_400)),
                            timeZone: "UTC", symbol: .star, color: .green))
        func listing(_ store: any CalDAVStore) throws -> [OccurrenceSummary] {
            var rows: [OccurrenceSummary] = []
            try store.forEachOccurrenceSummary(from: now, to: now.addingTimeInterval(30 * 86_400), calendar: calendar) { rows.append($0) }
            // A window past the spans: their events are expanded as well.
            try store.forEachOccurrenceSummary(from: now.addingTimeInterval(80 * 86_400), to: now.addingTimeInterval(120 * 86_400),
                                               calendar: calendar) { rows.append($0) }
            return rows
        }
        let sqlite = try Backend.sqlite.open(), postgres = try Backend.postgresql.open()
        for store in [sqlite, postgres] {
            store.recurrenceHorizon = DateInterval(start: now.addingTimeInterval(-7 * 86_400), end: now.addingTimeInterval(92 * 86_400))
            try store.save(events)
        }
        let expected = try listing(sqlite)
        #expect(expected.count > 300)
        #expect(try listing(postgres) == expected)
    }
}
