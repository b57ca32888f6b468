import DatebookCore
import DatebookStore
import Foundation

/// `datebook doctor`'s store checks: it opens, passes `PRAGMA integrity_check` (SQLite) and has
/// the current schema; the last tick or daemon pass is recent; feeds were refreshed recently.
/// Nothing is written, not even a missing PostgreSQL schema.
enum DoctorStore {
    static func check(_ context: Context, offline: Bool = false) -> [Finding] {
        let isServer = !SQLDialect.of(location: context.storePath).hasFile
        let location = StoreLocation.redacted(context.storePath)
        if offline, isServer { return [.skip("store", "\(location) is a server (--offline)")] }
        if isServer, let host = URLComponents(string: context.storePath)?.host?.lowercased(), ExampleHosts.isExample(host) {
            return [.skip("store", "example host \(host) (reserved by RFC 2606, never looked up); put your database server in the config")]
        }
        let store: any PlannerStore
        do {
            guard let version = try StoreOpener.schemaVersions(context.storePath) else {
                return [.warn("store", (isServer ? "\(location) has no datebook schema yet" : "\(location) does not exist yet")
                              + "; the first command that writes creates it (add, import, demo)")]
            }
            guard version.found == version.known else {
                return [.warn("store", "\(location) has schema \(version.found), this datebook \(version.known): "
                              + "the next command that writes upgrades it; run: datebook tick")]
            }
            store = try StoreOpener.open(context.storePath, readOnly: true)
            // SQLite's `PRAGMA integrity_check`; PostgreSQL checks its own pages, and its store answers "ok".
            let integrity = try store.integrityCheck()
            guard integrity == "ok" else {
                let lines = integrity.split(separator: "\n").filter { !$0.hasPrefix("*** in database") }
                let first = lines.first.map(String.init) ?? integrity
                return [.fail("store", "\(location) fails SQLite's integrity check (\(first)); "
                              + "export what can be read (datebook export -o planner.json) and restore a backup")]
            }
            let opened = isServer ? "connects" : "opens, integrity check ok"
            var findings: [Finding] = [.ok("store", "\(location) \(opened), schema \(version.known) (current)")]
            findings.append(lastPass(store, context))
            findings += feeds(store, context)
            return findings
        } catch {
            return [.fail("store", ErrorTranslator.translate(error).message)]
        }
    }

    static func lastPass(_ store: any PlannerStore, _ context: Context) -> Finding {
        let expected = DoctorScheduling.sendsSomething(context.config)
        guard let last = try? store.lastPass() else {
            return expected ? .warn("last pass", "no tick or daemon pass recorded yet: no alert has been sent")
                : .ok("last pass", "none yet (nothing is configured to send)")
        }
        let age = context.now.timeIntervalSince(last)
        let when = Self.age(age) + " (" + LocalTime(last, in: context.timeZone).listFormat + ")"
        guard age > DoctorCommand.passTolerance, expected else { return .ok("last pass", when) }
        return .warn("last pass", when + ": alerts wait for the next pass; check the timer, crontab line or daemon")
    }

    static func feeds(_ store: any PlannerStore, _ context: Context) -> [Finding] {
        ((try? store.feeds()) ?? []).map { feed in
            let subject = "feed '\(feed.name)'"
            guard let success = feed.lastSuccess else {
                return .warn(subject, "never refreshed" + (feed.lastError.map { ": " + $0 } ?? "")
                             + "; run: datebook feed refresh \(feed.name)")
            }
            let age = Self.age(context.now.timeIntervalSince(success))
            if let error = feed.lastError {
                return .warn(subject, "the last refresh failed (\(error)); the copy shown is from \(age)")
            }
            guard context.now.timeIntervalSince(success) <= TimeInterval(3 * feed.every) else {
                return .warn(subject, "last refreshed \(age), every \(Self.age(TimeInterval(feed.every), suffix: "")): "
                             + "feeds refresh on tick or in the daemon; check that one runs")
            }
            return .ok(subject, "refreshed \(age) (\(DoctorSetup.count(feed.eventCount, "event")))")
        }
    }

    /// `42 s ago`, `12 min ago`, `3 h ago`, `2 days ago`.
    static func age(_ seconds: TimeInterval, suffix: String = " ago") -> String {
        let s = Int(max(0, seconds))
        if s < 60 { return "\(s) s" + suffix }
        if s < 3600 { return "\(s / 60) min" + suffix }
        if s < 2 * 86_400 { return "\(s / 3600) h" + suffix }
        return "\(s / 86_400) days" + suffix
    }
}
