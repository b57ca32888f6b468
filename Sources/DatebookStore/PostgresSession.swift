import DatebookCore
import Foundation

/// What every connection to a PostgreSQL store is given, so that a paused, hung or cut-off
/// datebook cannot hold up the others for long (docs/postgresql.md, "Faults"):
///
/// - server settings: `idle_in_transaction_session_timeout` ends the session of a client that
///   stopped inside a transaction (a SIGSTOP, a hung process) and so frees its planning lock and
///   row locks; `lock_timeout` bounds a wait for a lock, `statement_timeout` a statement. Each can
///   be overridden by a URL parameter of the same name (datebook's own, taken out before libpq),
///   e.g. `?statement_timeout=0` for a very large import.
/// - libpq's TCP keepalives, `tcp_user_timeout` and `connect_timeout`, so a network partition is
///   noticed in about a minute instead of when TCP gives up; the URL's own values win.
/// - `fallback_application_name=datebook HOST:PID` (the instance a claim names), so `pg_stat_activity`
///   tells which datebook holds what; the URL's `application_name` or `PGAPPNAME` win.
struct PostgresSession: Equatable {
    /// Server settings and their defaults. A planning transaction is a few statements (the window
    /// is expanded before it), so 5 s idle inside one means the client stopped.
    static let serverDefaults: [(name: String, value: String)] = [
        ("idle_in_transaction_session_timeout", "5s"),
        ("lock_timeout", "10s"),
        ("statement_timeout", "2min"),
    ]
    /// libpq's connection parameters and their defaults (seconds; `tcp_user_timeout` in ms).
    static let clientDefaults: [(name: String, value: String)] = [
        ("connect_timeout", "10"),
        ("keepalives", "1"),
        ("keepalives_idle", "30"),
        ("keepalives_interval", "10"),
        ("keepalives_count", "3"),
        ("tcp_user_timeout", "60000"),
    ]

    /// `search_path` and the server settings, in this order.
    var settings: [(name: String, value: String)]

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.settings.map { [$0.name, $0.value] } == rhs.settings.map { [$0.name, $0.value] }
    }

    /// Takes the server settings out of `items` (datebook's own parameters, percent-encoded), checking each value.
    static func take(from items: inout [URLQueryItem], schema: String, location: String) throws -> PostgresSession {
        var settings = [(name: "search_path", value: PostgresStore.quoted(schema))]
        for (name, value) in serverDefaults {
            let given = items.last(where: { $0.name == name })?.value.map { $0.removingPercentEncoding ?? $0 }
            items.removeAll { $0.name == name }
            if let given, !isDuration(given) {
                throw StoreError.postgres(store: location, message: "?\(name)=\(given) is not a duration; write e.g. 5s, 2min or 0 (no limit) — nothing was changed")
            }
            settings.append((name, given ?? value))
        }
        return PostgresSession(settings: settings)
    }

    /// `0`, `500ms`, `5s`, `2min`, `1h`: digits and an optional unit PostgreSQL knows.
    static func isDuration(_ text: String) -> Bool {
        let digits = text.prefix { $0.isASCII && $0.isNumber }
        return !digits.isEmpty && ["", "ms", "s", "min", "h", "d"].contains(String(text.dropFirst(digits.count)))
    }

    /// libpq's `options` value that sets them in the startup packet, percent-encoded for a URL query.
    var startupOptions: String {
        settings.map { "-c%20\($0.name)%3D" + $0.value.replacingOccurrences(of: "\"", with: "%22") }.joined(separator: "%20")
    }

    /// The same as statements, for a URL that gives `options` itself (and after a reconnect).
    var statements: String {
        settings.map { "SET \($0.name) TO " + ($0.name == "search_path" ? $0.value : "'\($0.value)'") }.joined(separator: "; ")
    }

    /// `items` (percent-encoded) with the libpq defaults the URL does not give, and the application name.
    static func withClientDefaults(_ items: [URLQueryItem]) -> [URLQueryItem] {
        var items = items
        for (name, value) in clientDefaults where !items.contains(where: { $0.name == name }) {
            items.append(URLQueryItem(name: name, value: value))
        }
        let name = "datebook " + SchedulerInstance.localClaimant
        let plain = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~:"))
        items.append(URLQueryItem(name: "fallback_application_name", value: name.addingPercentEncoding(withAllowedCharacters: plain) ?? "datebook"))
        return items
    }
}

extension SchedulerInstance {
    /// This machine's host name, as claims and `status` name it.
    public static var localHost: String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `host:pid` of this process.
    public static var localClaimant: String { localHost + ":" + String(getpid()) }
}
