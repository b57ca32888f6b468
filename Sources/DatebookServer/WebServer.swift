import CLoader
import Foundation
import Synchronization

/// How the server listens and what it tolerates from a client.
public struct ServerSettings: Sendable, Equatable {
    public var listen: ListenAddress
    /// Seconds a connection may stay silent before it is closed.
    public var idleTimeout: Int = 10
    /// How long a client may take to send a request's line and headers, however slowly it trickles
    /// them in (a client sending a byte a second never goes silent, so the idle timeout alone keeps it).
    public var headerDeadline: Duration = .seconds(10)
    /// The largest request body; a larger one gets 413.
    public var maxBody = 1 << 20
    /// Per connection: the request line and headers must fit (a larger header block is refused).
    /// libmicrohttpd 0.9.75 clears a connection's whole memory with `memset` after every request:
    /// 64 KB cost a 304 about 5 % more CPU (bench/results-serve.md, notes). Not 32 KB, its own
    /// default: up to 32 KB it `malloc`s the memory, which stays with the process after the
    /// connection closes (500 connections left an idle server 1.5–2 MB larger); above, it maps
    /// whole pages and unmaps them at close. nginx reads header blocks up to 32 KB by default.
    public var maxHeaderBytes = 36 * 1024
    /// libmicrohttpd's worker threads, each polling its own connections (`serve.workers`).
    public var threads = ServerSettings.defaultThreads
    public var connectionLimit = 2000
    /// Connections one client address may hold at once (further ones are refused), so one client
    /// cannot take all of `connectionLimit` and starve the others (`/healthz` included).
    public var perClientConnectionLimit = 256
    /// How long a stop waits for requests in flight.
    public var drainTimeout: Duration = .seconds(10)
    /// The `Host` names answered besides the loopback ones and the listen address (`serve.baseURL`'s
    /// host); any other gets 421, so a page that rebinds its own name to this address reads nothing.
    public var hostNames: [String] = []
    /// One line per request through the server's `log` (errors are logged either way).
    public var accessLog = true
    /// `serve.trustedProxies`: peers whose `Forwarded`/`X-Forwarded-For` names the client (`ForwardedClient`).
    public var trustedProxies: [String] = []

    public init(listen: ListenAddress) {
        self.listen = listen
    }

    /// One worker per core, at least 2 (one slow request, such as the first feed after a change, does
    /// not hold every other request back). 4 workers on 2 cores cost as much CPU per request as 2 or
    /// 3–10 % more, in context switches, for no more requests per second (bench/results-serve.md).
    public static var defaultThreads: Int { max(2, ProcessInfo.processInfo.activeProcessorCount) }
}

/// Raised when the server cannot start.
public struct ServerError: Error, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// The HTTP server: libmicrohttpd (epoll on a small pool of threads) answering from a route table.
///
/// Every response gets the security headers, every request one access-log line (method, path
/// without the query and with secret segments as `****`, status, milliseconds) through `log`.
/// `stop()` stops accepting, lets the requests in flight finish, then closes.
///
/// The callbacks reach a `ServerCore`, which the daemon holds (retained) from its start until
/// `MHD_stop_daemon` returned: a callback never runs on a freed object, and this handle's last
/// reference never drops inside a callback because of one. `stop` is safe from any thread and any
/// number of times: the first call takes the daemon; on one of the daemon's own threads (a route
/// that stops its server, a deinit inside a handler) the stop runs on a thread of its own, since
/// libmicrohttpd aborts the process when it joins the thread it runs on.
public final class WebServer: Sendable {
    public let settings: ServerSettings
    /// Where it listens; the port is the bound one when `settings.listen` asked for port 0.
    public let address: ListenAddress
    private let core: ServerCore
    /// The MHD daemon as its address (Sendable), taken out by the first `stop`; 0 when stopped.
    private let daemon: Mutex<UInt>

    /// Starts listening at once. `routes` gets `GET /healthz` unless it has its own.
    public init(settings: ServerSettings, routes: Routes, log: @escaping @Sendable (String) -> Void) throws {
        self.settings = settings
        var table = Routes()
        table.add("GET", "/healthz") { _, _ in .text(200, "ok\n") }
        table.merge(routes)
        let core = ServerCore(settings: settings, routes: table, log: log)
        self.core = core
        let context = Unmanaged.passRetained(core).toOpaque()
        // libmicrohttpd's per-address limit is off: `ClientCounts` counts, knowing the trusted proxies.
        var c = cmhd_settings(address: nil, connection_timeout: UInt32(settings.idleTimeout),
                              connection_memory_limit: settings.maxHeaderBytes, thread_pool_size: UInt32(settings.threads),
                              connection_limit: UInt32(settings.connectionLimit),
                              per_client_connection_limit: 0, ipv6: settings.listen.isIPv6 ? 1 : 0)
        let started: OpaquePointer?
        do {
            started = try settings.listen.withSocketAddress { address in
                c.address = address
                return cmhd_start(&c, ServerCore.acceptHandler, context, ServerCore.accessHandler, context, ServerCore.completedHandler, context,
                                  ServerCore.connectionHandler, context)
            }
        } catch {
            Unmanaged<ServerCore>.fromOpaque(context).release()
            throw error
        }
        guard let started else {
            Unmanaged<ServerCore>.fromOpaque(context).release()
            let missing = String(cString: datebook_library_problem(DATEBOOK_LIBRARY_MICROHTTPD))
            if !missing.isEmpty { throw ServerError(missing) }
            throw ServerError(PortOwner.whyNotListening(settings.listen))
        }
        daemon = Mutex(UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(started))))
        var bound = settings.listen
        bound.port = cmhd_bound_port(started)
        address = bound
        core.startWatchdog()
    }

    deinit { stop() }

    /// What each client holds of the server now (`ClientCounts`).
    var clients: ClientCounts { core.clients }

    /// Stops accepting, waits (up to `drainTimeout`) for the requests in flight, then closes every
    /// connection. From one of the daemon's threads it returns at once and the stop runs beside.
    public func stop() {
        let taken = daemon.withLock { handle in defer { handle = 0 }; return handle }
        guard taken != 0 else { return }
        let core = self.core
        if cmhd_in_callback() != 0 {
            Thread.detachNewThread { Self.shutDown(taken, core) }
        } else {
            Self.shutDown(taken, core)
        }
    }

    private static func shutDown(_ handle: UInt, _ core: ServerCore) {
        guard let daemon = OpaquePointer(bitPattern: handle) else { return }
        // Not MHD_quiesce_daemon: with a pool of epoll workers, libmicrohttpd 0.9.75 removes the
        // listening socket from a worker's epoll set there while that worker, woken by a request,
        // may remove it too, and the loser of that race aborts the process ("Failed to remove
        // listen FD from epoll set", seen in a test run). New connections are refused instead
        // (`acceptHandler`) until MHD_stop_daemon closes the socket.
        core.stopAccepting()
        core.drain()
        cmhd_stop(daemon)
        // The daemon's reference, taken at start: no callback runs any more.
        Unmanaged.passUnretained(core).release()
    }

    /// Marks the current thread as running a callback while `body` runs (see `stop`).
    static func insideCallback<T>(_ body: () -> T) -> T {
        let was = cmhd_enter_callback()
        defer { cmhd_leave_callback(was) }
        return body()
    }
}
