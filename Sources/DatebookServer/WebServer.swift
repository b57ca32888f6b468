import CMicroHTTPD
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
    public var maxHeaderBytes = 64 * 1024
    public var threads = 4
    public var connectionLimit = 2000
    /// How long a stop waits for requests in flight.
    public var drainTimeout: Duration = .seconds(10)

    public init(listen: ListenAddress) {
        self.listen = listen
    }
}

/// Raised when the server cannot start.
public struct ServerError: Error, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// The HTTP server: libmicrohttpd (epoll on a small pool of threads) answering from a route table.
///
/// Every response gets the security headers, every request one access-log line (method, path
/// without the query, status, milliseconds) through `log`. `stop()` stops accepting, lets the
/// requests in flight finish, then closes.
public final class WebServer: Sendable {
    public let settings: ServerSettings
    /// Where it listens; the port is the bound one when `settings.listen` asked for port 0.
    public var address: ListenAddress { bound.withLock { $0 } }
    /// `address`, set once the daemon has bound its port (the daemon needs `self` before that).
    private let bound: Mutex<ListenAddress>
    let routes: Routes
    let log: @Sendable (String) -> Void
    /// The MHD daemon, taken out by the first `stop` (a second, concurrent one finds nil, so the
    /// daemon is never stopped twice: libmicrohttpd aborts when it joins a thread twice).
    /// Kept as its address, which is Sendable; 0 when stopped.
    private let daemon = Mutex<UInt>(0)
    private let inFlight = Mutex(0)
    private let watch = Mutex<[UInt: WatchedConnection]>([:])
    private let watchdogStop = Mutex(false)

    struct WatchedConnection {
        var fd: Int32
        var since: ContinuousClock.Instant
        var awaitingHeaders: Bool
    }

    /// Starts listening at once. `routes` gets `GET /healthz` unless it has its own.
    public init(settings: ServerSettings, routes: Routes, log: @escaping @Sendable (String) -> Void) throws {
        self.settings = settings
        var table = Routes()
        table.add("GET", "/healthz") { _, _ in .text(200, "ok\n") }
        table.merge(routes)
        self.routes = table
        self.log = log
        self.bound = Mutex(settings.listen)
        let context = Unmanaged.passUnretained(self).toOpaque()
        var c = cmhd_settings(address: nil, connection_timeout: UInt32(settings.idleTimeout),
                              connection_memory_limit: settings.maxHeaderBytes, thread_pool_size: UInt32(settings.threads),
                              connection_limit: UInt32(settings.connectionLimit), ipv6: settings.listen.isIPv6 ? 1 : 0)
        let started: OpaquePointer? = try settings.listen.withSocketAddress { address in
            c.address = address
            return cmhd_start(&c, Self.accessHandler, context, Self.completedHandler, context, Self.connectionHandler, context)
        }
        guard let started else {
            let missing = String(cString: cmhd_load_error())
            if !missing.isEmpty { throw ServerError("cannot load libmicrohttpd: \(missing)") }
            throw ServerError("cannot listen on \(settings.listen): \(String(cString: strerror(errno))); is another server on that port?")
        }
        daemon.withLock { $0 = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(started))) }
        bound.withLock { $0.port = cmhd_bound_port(started) }
        // Holds the server only while it looks, so a server nobody stopped can still be freed (deinit stops it).
        let thread = Thread { [weak self] in
            while true {
                Thread.sleep(forTimeInterval: 0.5)
                guard let server = self, !server.watchdogStop.withLock({ $0 }) else { return }
                server.dropSlowClients()
            }
        }
        thread.name = "datebook.serve.watchdog"
        thread.start()
    }

    deinit { stop() }

    /// Stops accepting, waits (up to `drainTimeout`) for the requests in flight, then closes every connection.
    public func stop() {
        let taken = daemon.withLock { handle in defer { handle = 0 }; return handle }
        guard let daemon = OpaquePointer(bitPattern: taken) else { return }
        let listening = cmhd_quiesce(daemon)
        let deadline = ContinuousClock.now + settings.drainTimeout
        while inFlight.withLock({ $0 }) > 0, ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.01)
        }
        watchdogStop.withLock { $0 = true }
        cmhd_stop(daemon)
        if listening >= 0 { close(listening) }
    }

    // MARK: slow clients

    /// Run every half second: shuts the socket of a connection that has been sending its request line
    /// and headers for longer than `headerDeadline`. libmicrohttpd then sees the end and closes it.
    private func dropSlowClients() {
        let now = ContinuousClock.now
        watch.withLock { connections in
            for (key, connection) in connections where connection.awaitingHeaders && now - connection.since > settings.headerDeadline {
                shutdown(connection.fd, Int32(SHUT_RDWR))
                connections[key] = nil
            }
        }
    }

    private func watchConnection(_ connection: OpaquePointer, opened: Bool) {
        let key = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(connection)))
        let fd = cmhd_connection_fd(connection)
        watch.withLock { connections in
            connections[key] = opened ? WatchedConnection(fd: fd, since: .now, awaitingHeaders: true) : nil
        }
    }

    private func setAwaitingHeaders(_ connection: OpaquePointer, _ awaiting: Bool) {
        let key = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(connection)))
        watch.withLock { connections in
            connections[key]?.awaitingHeaders = awaiting
            connections[key]?.since = .now
        }
    }

    // MARK: libmicrohttpd callbacks

    /// What one request has gathered between the calls of the access handler.
    final class Exchange {
        let started = ContinuousClock.now
        var headers: [String: String] = [:]
        var body: [UInt8] = []
        var tooLarge = false
        var answered = false
    }

    private static let accessHandler: MHD_AccessHandlerCallback = { context, connection, url, method, _, upload, uploadSize, exchangeSlot in
        guard let context, let connection, let exchangeSlot, let uploadSize else { return cmhd_no() }
        let server = Unmanaged<WebServer>.fromOpaque(context).takeUnretainedValue()
        guard let slot = exchangeSlot.pointee else {
            let exchange = Exchange()
            exchangeSlot.pointee = Unmanaged.passRetained(exchange).toOpaque()
            server.inFlight.withLock { $0 += 1 }
            server.setAwaitingHeaders(connection, false)
            exchange.headers = WebServer.values(connection, query: false)
            let declared = exchange.headers["content-length"].flatMap { Int($0) } ?? 0
            if declared > server.settings.maxBody {
                exchange.answered = true
                return server.send(.text(413, "The request body is larger than \(server.settings.maxBody / 1024) KB.\n"),
                                   connection, method: method, url: url, exchange: exchange)
            }
            return cmhd_yes()
        }
        let exchange = Unmanaged<Exchange>.fromOpaque(slot).takeUnretainedValue()
        if uploadSize.pointee > 0 {
            if let upload, !exchange.tooLarge, !exchange.answered {
                if exchange.body.count + uploadSize.pointee > server.settings.maxBody {
                    exchange.tooLarge = true
                    exchange.body = []
                } else {
                    exchange.body.append(contentsOf: UnsafeRawBufferPointer(start: upload, count: uploadSize.pointee))
                }
            }
            uploadSize.pointee = 0
            return cmhd_yes()
        }
        if exchange.answered { return cmhd_yes() }
        exchange.answered = true
        if exchange.tooLarge {
            return server.send(.text(413, "The request body is larger than \(server.settings.maxBody / 1024) KB.\n"),
                               connection, method: method, url: url, exchange: exchange)
        }
        let request = WebRequest(method: method.map { String(cString: $0) } ?? "GET", path: url.map { String(cString: $0) } ?? "/",
                                 query: WebServer.values(connection, query: true),
                                 headers: exchange.headers, body: exchange.body,
                                 fromLoopback: cmhd_peer_is_loopback(connection) != 0)
        let (response, error) = server.routes.respond(to: request)
        return server.send(response, connection, method: method, url: url, exchange: exchange, error: error)
    }

    private static let completedHandler: MHD_RequestCompletedCallback = { context, connection, exchangeSlot, _ in
        guard let context, let exchangeSlot, let slot = exchangeSlot.pointee else { return }
        let server = Unmanaged<WebServer>.fromOpaque(context).takeUnretainedValue()
        Unmanaged<Exchange>.fromOpaque(slot).release()
        exchangeSlot.pointee = nil
        server.inFlight.withLock { $0 -= 1 }
        if let connection { server.setAwaitingHeaders(connection, true) }
    }

    private static let connectionHandler: MHD_NotifyConnectionCallback = { context, connection, _, event in
        guard let context, let connection else { return }
        let server = Unmanaged<WebServer>.fromOpaque(context).takeUnretainedValue()
        server.watchConnection(connection, opened: cmhd_is_connection_start(event) != 0)
    }

    /// Queues `response` (with the security headers) and writes the access-log line.
    private func send(_ response: WebResponse, _ connection: OpaquePointer, method: UnsafePointer<CChar>?, url: UnsafePointer<CChar>?,
                      exchange: Exchange, error: (any Error)? = nil) -> MHD_Result {
        let secured = response.secured()
        let names = secured.headers.map { strdup($0.name) }, values = secured.headers.map { strdup($0.value) }
        defer { (names + values).forEach { free($0) } }
        let result = names.map { UnsafePointer($0) }.withUnsafeBufferPointer { names in
            values.map { UnsafePointer($0) }.withUnsafeBufferPointer { values in
                secured.body.withUnsafeBytes { body in
                    cmhd_respond(connection, UInt32(secured.status), names.baseAddress, values.baseAddress, names.count, body.baseAddress, body.count)
                }
            }
        }
        let elapsed = ContinuousClock.now - exchange.started
        let tenths = elapsed.components.seconds * 10_000 + elapsed.components.attoseconds / 100_000_000_000_000
        var line = "\(method.map { String(cString: $0) } ?? "-") \(url.map { String(cString: $0) } ?? "-") \(secured.status) "
            + "\(tenths / 10).\(tenths % 10) ms"
        if let error { line += " (\(error))" }
        log(line)
        return result
    }

    /// The headers (lower-cased names) or the query arguments of a request.
    private static func values(_ connection: OpaquePointer, query: Bool) -> [String: String] {
        final class Collected { var values: [String: String] = [:]; var lowercased = true }
        let collected = Collected()
        collected.lowercased = !query
        cmhd_values(connection, query ? 1 : 0, { context, _, key, value in
            guard let context, let key else { return cmhd_yes() }
            let collected = Unmanaged<Collected>.fromOpaque(context).takeUnretainedValue()
            let name = String(cString: key)
            collected.values[collected.lowercased ? name.lowercased() : name] = value.map { String(cString: $0) } ?? ""
            return cmhd_yes()
        }, Unmanaged.passUnretained(collected).toOpaque())
        return collected.values
    }
}
