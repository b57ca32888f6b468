import Foundation
import Synchronization

/// The sessions of the people signed in: a random id (the cookie's value) and a random CSRF value
/// per login, each ending at its expiry or its logout. Kept in memory: a restart signs everyone out.
final class SessionTable: Sendable {
    struct Session: Sendable, Equatable {
        var id: String
        var csrf: String
        var expires: Date
    }

    private let sessions = Mutex<[String: Session]>([:])

    func start(now: Date, lifetime: TimeInterval) -> Session {
        let session = Session(id: SiteAuth.randomHex(), csrf: SiteAuth.randomHex(), expires: now.addingTimeInterval(lifetime))
        sessions.withLock { table in
            table = table.filter { $0.value.expires > now }
            table[session.id] = session
        }
        return session
    }

    /// The live session with this id (compared in constant time); nil when unknown or expired.
    func find(_ id: String, now: Date) -> Session? {
        sessions.withLock { table in
            table.values.first { SiteAuth.same($0.id, id) && $0.expires > now }
        }
    }

    func end(_ id: String) {
        sessions.withLock { $0[id] = nil }
    }
}

/// Holds a client back after wrong tokens: the first `free` failures cost nothing (typos), each one
/// after that shuts the client out for twice as long as the last (1 s, 2 s, 4 s … up to
/// `longest`), and every attempt while it is shut out, the right token included, gets 429 with
/// `Retry-After`. A right token outside a hold-back clears the count. Keyed on the client's address
/// (behind a reverse proxy everyone is 127.0.0.1 and shares one count).
final class FailureLimiter: Sendable {
    struct Record: Sendable, Equatable {
        var failures: Int
        var until: Date
    }

    let free: Int
    let longest: TimeInterval
    private let records = Mutex<[String: Record]>([:])

    init(free: Int = 5, longest: TimeInterval = 15 * 60) {
        self.free = free
        self.longest = longest
    }

    /// Whole seconds the client must still wait, or nil when it may try.
    func retryAfter(_ client: String, now: Date) -> Int? {
        guard let record = records.withLock({ $0[client] }), record.until > now else { return nil }
        return max(1, Int(record.until.timeIntervalSince(now).rounded(.up)))
    }

    func failed(_ client: String, now: Date) {
        records.withLock { table in
            if table.count > 10_000 { table = table.filter { $0.value.until.addingTimeInterval(longest) > now } }
            var record = table[client] ?? Record(failures: 0, until: now)
            record.failures += 1
            if record.failures > free {
                let exponent = min(record.failures - free - 1, 30)
                record.until = now.addingTimeInterval(min(longest, pow(2, Double(exponent))))
            }
            table[client] = record
        }
    }

    func succeeded(_ client: String) {
        records.withLock { $0[client] = nil }
    }
}
