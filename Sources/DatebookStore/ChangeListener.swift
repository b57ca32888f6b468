import Dispatch
import Foundation

/// Tells a daemon at once when any connection changes what may be due in a PostgreSQL store.
///
/// Statement triggers in the schema (`PostgresStore.migrations`, version 3) call
/// `pg_notify('datebook_changes', <schema>)` inside every transaction that writes events, tasks,
/// new deliveries (snoozes, plans) or feeds; PostgreSQL delivers the notification on commit, and
/// not at all on rollback. This listener holds its own connection with `LISTEN datebook_changes`
/// and watches that connection's socket with a DispatchSource, so an idle daemon does no work at
/// all (no polling). Notifications for other schemas of the same database are ignored.
///
/// A lost connection (the server restarted, the backend terminated) is opened again with
/// `ReconnectBackoff`; the loss and the return each count as a change, since anything may have
/// changed while nobody listened.
public final class ChangeListener: @unchecked Sendable {  // connection, source and failures are touched only on `queue`
    /// The channel every datebook schema notifies on; the payload is the schema's name.
    public static let channel = "datebook_changes"

    private let conninfo: String
    private let location: String
    private let schema: String
    private let queue = DispatchQueue(label: "datebook.store-changes")
    private var connection: PostgresConnection?
    private var source: DispatchSourceRead?
    private var failures = 0
    private var stopped = false
    private var changed: @Sendable () -> Void = {}
    private var log: @Sendable (String) -> Void = { _ in }

    init(conninfo: String, location: String, schema: String) {
        self.conninfo = conninfo
        self.location = location
        self.schema = schema
    }

    deinit {
        source?.cancel()
    }

    /// Connects and listens before returning (a change committed after this call is never missed);
    /// then calls `changed` on its own queue for each committed change, and `log` for each lost
    /// and re-established connection.
    public func start(changed: @escaping @Sendable () -> Void, log: @escaping @Sendable (String) -> Void) {
        queue.sync {
            self.changed = changed
            self.log = log
            connect()
        }
    }

    /// Stops listening and closes the connection.
    public func stop() {
        queue.sync {
            stopped = true
            source?.cancel()
            source = nil
            connection = nil
        }
    }

    /// True while the listening connection is up.
    public var isListening: Bool { queue.sync { connection != nil } }

    private func connect() {
        guard !stopped else { return }
        do {
            let connection = try PostgresConnection(conninfo: conninfo, store: location)
            try connection.execute("LISTEN \(Self.channel)")
            let source = DispatchSource.makeReadSource(fileDescriptor: connection.socket, queue: queue)
            source.setEventHandler { [weak self] in self?.read() }
            // The socket belongs to the connection: it is closed only once the source let go of it.
            source.setCancelHandler { withExtendedLifetime(connection) {} }
            source.resume()
            self.connection = connection
            self.source = source
            if failures > 0 {
                log("store \(location): connection back, listening for changes again")
                changed()
            }
            failures = 0
        } catch {
            lose(error)
        }
    }

    private func read() {
        guard let connection else { return }
        do {
            if try connection.notifications().contains(schema) { changed() }
        } catch {
            lose(error)
        }
    }

    private func lose(_ error: Error) {
        source?.cancel()
        source = nil
        connection = nil
        guard !stopped else { return }
        failures += 1
        let delay = ReconnectBackoff.delay(failures: failures)
        let reason = (error as? StoreError).map(\.description) ?? "store \(location): \(error)"
        log("\(reason); listening for changes again in \(ReconnectBackoff.text(delay))")
        if failures == 1 { changed() }
        queue.asyncAfter(deadline: .now() + delay) { [weak self] in self?.connect() }
    }
}

/// How long to wait before the next try after consecutive failures to reach the store:
/// 0.5 s, doubling, at most 30 s.
public enum ReconnectBackoff {
    public static let first: TimeInterval = 0.5
    public static let longest: TimeInterval = 30

    public static func delay(failures: Int) -> TimeInterval {
        guard failures > 0 else { return 0 }
        return min(longest, first * pow(2, Double(min(failures - 1, 16))))
    }

    /// `0.5 s`, `4 s`: for log lines.
    public static func text(_ delay: TimeInterval) -> String {
        delay == delay.rounded() ? "\(Int(delay)) s" : "\(delay) s"
    }
}
