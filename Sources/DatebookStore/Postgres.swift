import CLoader
import Foundation

/// A C string libpq returns (nil reads as empty).
func cText(_ pointer: UnsafeMutablePointer<CChar>?) -> String {
    pointer.map { String(cString: $0) } ?? ""
}

/// A PostgreSQL failure: the server's (or libpq's) message and, from the server, its SQLSTATE.
struct PostgresError: Error, CustomStringConvertible {
    var message: String
    var sqlState: String?
    var description: String { message }

    /// The connection itself broke (server gone, connection terminated, or ended by the server's
    /// `idle_in_transaction_session_timeout`): worth a retry later.
    var isConnectionLoss: Bool { sqlState.map { $0.hasPrefix("08") || $0 == "57P01" || $0 == "25P03" } ?? true }

    /// A wait or a statement ran over `lock_timeout` or `statement_timeout`: worth a retry later.
    var isTimeout: Bool { sqlState == "55P03" || sqlState == "57014" }
}

/// Owns one libpq connection (`PGconn`) and closes it in `deinit`.
///
/// Every statement goes through `PQexecParams` in text format (or, from its third run on, as a
/// prepared statement: `PreparedStatements`): values travel as parameters, never spliced into SQL.
/// libpq is opened on first use (CLoader: datebook_libraries.h).
final class PostgresConnection {
    let handle: OpaquePointer
    let api: UnsafePointer<datebook_pq_api>
    /// `host:port` as libpq resolved them, for messages (never the password).
    let endpoint: String
    /// The statements this connection repeats; `preparing` false runs every one plainly.
    private var statements = PreparedStatements()
    var preparing = true
    /// Statements sent ahead whose results wait to be taken, in order (PostgresPipeline.swift).
    var ahead: [(sql: String, parameters: [String?])] = []

    /// Connects with a `postgresql://` URL or a `key=value` conninfo string.
    ///
    /// Throws `StoreError.unreachable` when no server answers, `.authentication` when it refuses
    /// the login, each naming `store` (the URL with its password hidden) and the endpoint.
    init(conninfo: String, store: String) throws {
        guard let api = datebook_pq() else {
            throw StoreError.postgres(store: store, message: String(cString: datebook_library_problem(DATEBOOK_LIBRARY_PQ)))
        }
        guard let handle = api.pointee.connectdb(conninfo) else {
            throw StoreError.postgres(store: store, message: "libpq could not allocate a connection")
        }
        let host = api.pointee.host(handle).map { String(cString: $0) } ?? "localhost"
        let port = api.pointee.port(handle).map { String(cString: $0) } ?? "5432"
        let endpoint = host.hasPrefix("/") ? host : "\(host):\(port)"
        guard api.pointee.status(handle) == CONNECTION_OK else {
            let message = Self.oneLine(cText(api.pointee.errorMessage(handle)))
            api.pointee.finish(handle)
            // A setting libpq refuses before connecting (`sslmode=bogus`, an unknown parameter) stays
            // wrong however often it is tried: a mistake in the URL, not a server to wait for.
            if message.hasPrefix("invalid ") || message.hasPrefix("missing \"=\"") {
                throw StoreError.postgres(store: store, message: "the URL's connection settings are wrong (\(message)); correct the URL — nothing was changed")
            }
            if message.contains("authentication failed") || message.contains("no password supplied")
                || message.contains("pg_hba.conf") || message.contains("does not exist") {
                throw StoreError.authentication(store: store, endpoint: endpoint, reason: message)
            }
            throw StoreError.unreachable(store: store, endpoint: endpoint, reason: message)
        }
        self.api = api
        self.handle = handle
        self.endpoint = endpoint
        _ = api.pointee.setNoticeProcessor(handle, datebook_pq_quiet(), nil)
    }

    deinit { api.pointee.finish(handle) }

    /// The connection is gone (server restarted, backend terminated): `reset` before using it again.
    var isBroken: Bool { api.pointee.status(handle) != CONNECTION_OK }

    /// Connects again with the same parameters (`PQreset`); session settings are lost with the old one.
    func reset() throws {
        dropAhead()
        api.pointee.reset(handle)
        statements.forget()
        guard !isBroken else { throw connectionError() }
    }

    /// The socket to watch for notifications (`LISTEN`); -1 when the connection is gone.
    var socket: Int32 { api.pointee.socket(handle) }

    /// Reads what the server sent without blocking; the payloads of the notifications that arrived.
    /// Throws when the connection is gone.
    func notifications() throws -> [String] {
        dropAhead()
        guard api.pointee.consumeInput(handle) == 1 else { throw connectionError() }
        var payloads: [String] = []
        while let notification = api.pointee.notifies(handle) {
            payloads.append(cText(notification.pointee.extra))
            api.pointee.freemem(notification)
        }
        guard !isBroken else { throw connectionError() }
        return payloads
    }

    /// libpq's messages span lines ("…failed: …\n\tIs the server running…"): one line for ours.
    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }.joined(separator: " ")
    }

    /// Runs `sql` with `$1…$n` bound to `parameters` (nil is NULL); the rows, if any.
    @discardableResult
    func query(_ sql: String, _ parameters: [String?] = []) throws -> PostgresRows {
        if let next = ahead.first {
            if next.sql == sql, next.parameters == parameters { return try takeAhead() }
            dropAhead()
        }
        guard preparing else { return try plainQuery(sql, parameters) }
        return try statements.run(sql, parameters, on: self) { try plainQuery(sql, parameters) }
    }

    /// `PQexecParams`: parsed and planned by the server on each run.
    private func plainQuery(_ sql: String, _ parameters: [String?]) throws -> PostgresRows {
        let result: OpaquePointer? = withParameters(parameters) { values in
            api.pointee.execParams(handle, sql, Int32(parameters.count), nil, values, nil, nil, 0)
        }
        return try check(result)
    }

    /// Runs statements without parameters (several may be separated by `;`).
    func execute(_ sql: String) throws {
        dropAhead()
        _ = try check(api.pointee.exec(handle, sql))
    }

    /// Sends `rows` to `COPY table (columns) FROM STDIN` in text format; returns the rows copied.
    @discardableResult
    func copy(into table: String, columns: [String], rows: some Sequence<[String?]>) throws -> Int {
        dropAhead()
        let sql = "COPY \(table) (\(columns.joined(separator: ", "))) FROM STDIN"
        let started = api.pointee.exec(handle, sql)
        guard api.pointee.resultStatus(started) == PGRES_COPY_IN else { _ = try check(started); return 0 }
        api.pointee.clear(started)
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 16)
        var count = 0
        for row in rows {
            for (n, value) in row.enumerated() {
                if n > 0 { buffer.append(UInt8(ascii: "\t")) }
                Self.appendCopyText(value, to: &buffer)
            }
            buffer.append(UInt8(ascii: "\n"))
            count += 1
            if buffer.count >= 1 << 16 { try flush(&buffer) }
        }
        try flush(&buffer)
        guard api.pointee.putCopyEnd(handle, nil) == 1 else { throw connectionError() }
        while let result = api.pointee.getResult(handle) { _ = try check(result) }
        return count
    }

    private func flush(_ buffer: inout [UInt8]) throws {
        guard !buffer.isEmpty else { return }
        let sent = buffer.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { api.pointee.putCopyData(handle, $0.baseAddress, Int32($0.count)) }
        }
        guard sent == 1 else { throw connectionError() }
        buffer.removeAll(keepingCapacity: true)
    }

    /// COPY's text format: `\N` for NULL; backslash, tab, newline and carriage return escaped.
    static func appendCopyText(_ value: String?, to buffer: inout [UInt8]) {
        guard let value else { buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "N")]); return }
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\\"): buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case UInt8(ascii: "\t"): buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case UInt8(ascii: "\n"): buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case UInt8(ascii: "\r"): buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            default: buffer.append(byte)
            }
        }
    }

    private func connectionError() -> PostgresError {
        PostgresError(message: Self.oneLine(cText(api.pointee.errorMessage(handle))), sqlState: nil)
    }

    /// Wraps a result, or throws its error (and frees it).
    func check(_ result: OpaquePointer?) throws -> PostgresRows {
        guard let result else { throw connectionError() }
        switch api.pointee.resultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return PostgresRows(handle: result, api: api)
        default:
            let message = Self.oneLine(cText(api.pointee.resultErrorMessage(result)))
            let state = api.pointee.resultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
            api.pointee.clear(result)
            throw PostgresError(message: message.isEmpty ? "query failed" : message, sqlState: state)
        }
    }

    /// Lends `values` to C as NUL-terminated strings (NULL for nil) for the length of `body`.
    func withParameters<R>(_ values: [String?], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> R) -> R {
        var pointers: [UnsafeMutablePointer<CChar>?] = values.map { $0.map { strdup($0) } ?? nil }
        defer { pointers.forEach { free($0) } }
        return pointers.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return body(nil) }
            return base.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: buffer.count) { body($0) }
        }
    }
}

/// The rows of one result (text format), freed in `deinit`.
final class PostgresRows {
    let handle: OpaquePointer
    let api: UnsafePointer<datebook_pq_api>
    let count: Int

    init(handle: OpaquePointer, api: UnsafePointer<datebook_pq_api>) {
        self.handle = handle
        self.api = api
        count = Int(api.pointee.ntuples(handle))
    }

    deinit { api.pointee.clear(handle) }

    /// Rows changed by an INSERT, UPDATE or DELETE.
    var changed: Int { Int(cText(api.pointee.cmdTuples(handle))) ?? 0 }

    func isNull(_ row: Int, _ column: Int) -> Bool { api.pointee.getisnull(handle, Int32(row), Int32(column)) == 1 }

    func text(_ row: Int, _ column: Int) -> String {
        guard let value = api.pointee.getvalue(handle, Int32(row), Int32(column)) else { return "" }
        let count = Int(api.pointee.getlength(handle, Int32(row), Int32(column)))
        return value.withMemoryRebound(to: UInt8.self, capacity: count) {
            String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self)
        }
    }

    func optionalText(_ row: Int, _ column: Int) -> String? { isNull(row, column) ? nil : text(row, column) }
    func int(_ row: Int, _ column: Int) -> Int { Int(text(row, column)) ?? 0 }
    func optionalInt(_ row: Int, _ column: Int) -> Int? { isNull(row, column) ? nil : int(row, column) }
}

/// One row of a result, read by position like an SQLite statement's (`ColumnReader`).
struct PostgresRow: ColumnReader {
    let rows: PostgresRows
    let row: Int

    func text(_ column: Int32) -> String { rows.text(row, Int(column)) }
    func isNull(_ column: Int32) -> Bool { rows.isNull(row, Int(column)) }
    func int64(_ column: Int32) -> Int64 { Int64(text(column)) ?? 0 }

    func withTextBytes<R>(_ column: Int32, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        guard let value = rows.api.pointee.getvalue(rows.handle, Int32(row), column) else {
            return body(UnsafeBufferPointer(start: nil, count: 0))
        }
        let count = Int(rows.api.pointee.getlength(rows.handle, Int32(row), column))
        return value.withMemoryRebound(to: UInt8.self, capacity: count) { body(UnsafeBufferPointer(start: $0, count: count)) }
    }
}

extension PostgresRows {
    /// Every row, in order.
    var all: [PostgresRow] { (0..<count).map { PostgresRow(rows: self, row: $0) } }
}

/// The values of one row as text parameters for `PostgresConnection.query` (a `RowSink`, so the
/// SQLite writer's `Store.eventRow(_:into:)` fills it).
struct PostgresValues: RowSink {
    var values: [String?] = []
    mutating func text(_ value: borrowing String) { values.append(copy value) }
    mutating func integer(_ value: Int64) { values.append(String(value)) }
    mutating func null() { values.append(nil) }
}
