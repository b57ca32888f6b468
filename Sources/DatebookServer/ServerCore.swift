import CLoader
import Foundation
import Synchronization

/// What libmicrohttpd's callbacks reach: the routes, the log, the requests in flight and the slow-client
/// watch. The daemon holds it from start to stop (see `WebServer`).
final class ServerCore: Sendable {
    let settings: ServerSettings
    let routes: Routes
    /// Writes one log line (the access log and errors); called by every worker thread.
    let log: @Sendable (String) -> Void
    let hosts: HostNames
    let forwarded: ForwardedClient
    let clients: ClientCounts
    private let inFlight = Atomic(0)
    /// False once a stop began: new connections are closed as they come.
    private let accepting = Atomic(true)
    /// The open connections, for the slow-client watch; each is also its connection's socket context
    /// in libmicrohttpd, so a request reaches its own without this lock.
    private let watch = Mutex<[ObjectIdentifier: WatchedConnection]>([:])
    private let watchdogStop = Mutex(false)

    /// One open connection, from its opening to its closing.
    final class WatchedConnection: Sendable {
        let fd: Int32
        /// The peer whose count (`clients`) this connection holds; nil for a trusted proxy's.
        let counted: String?
        /// When (`monotonicNanoseconds`) it began waiting for a request's line and headers; 0 while
        /// a request is answered, and once the watch shut its socket.
        let awaitingSince = Atomic(monotonicNanoseconds())

        init(fd: Int32, counted: String?) {
            self.fd = fd
            self.counted = counted
        }
    }

    init(settings: ServerSettings, routes: Routes, log: @escaping @Sendable (String) -> Void) {
        self.settings = settings
        self.routes = routes
        self.log = log
        hosts = HostNames(listen: settings.listen, names: settings.hostNames)
        forwarded = ForwardedClient(trustedProxies: settings.trustedProxies)
        clients = ClientCounts(limit: settings.perClientConnectionLimit)
    }

    /// Closes every connection that comes from now on (a stop began).
    func stopAccepting() { accepting.store(false, ordering: .sequentiallyConsistent) }

    /// Waits (up to `drainTimeout`) for the requests in flight, and ends the watchdog.
    func drain() {
        let deadline = ContinuousClock.now + settings.drainTimeout
        while inFlight.load(ordering: .sequentiallyConsistent) > 0, ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.01)
        }
        watchdogStop.withLock { $0 = true }
    }

    // MARK: slow clients

    /// A thread that, every half second, shuts the socket of a connection that has been sending its
    /// request line and headers for longer than `headerDeadline`; libmicrohttpd then closes it.
    func startWatchdog() {
        let thread = Thread { [self] in
            while !watchdogStop.withLock({ $0 }) {
                Thread.sleep(forTimeInterval: 0.5)
                dropSlowClients()
            }
        }
        thread.name = "datebook.serve.watchdog"
        thread.start()
    }

    /// Shuts the sockets of connections waiting for their headers longer than `headerDeadline`. Each
    /// stays watched until libmicrohttpd closes it, which gives its client's count back.
    private func dropSlowClients() {
        let now = monotonicNanoseconds()
        let deadline = settings.headerDeadline.components
        let limit = deadline.seconds * 1_000_000_000 + deadline.attoseconds / 1_000_000_000
        watch.withLock { connections in
            for connection in connections.values {
                let since = connection.awaitingSince.load(ordering: .relaxed)
                guard since != 0, now - since > limit,
                      connection.awaitingSince.compareExchange(expected: since, desired: 0, ordering: .relaxed).exchanged else { continue }
                shutdown(connection.fd, Int32(SHUT_RDWR))
            }
        }
    }

    /// Watches a connection from its opening to its closing, and counts it for its peer (a peer
    /// over `perClientConnectionLimit` has the new connection shut at once); a trusted proxy's
    /// connections are not counted (its clients' requests are, in `access`).
    private func watchConnection(_ connection: OpaquePointer, context: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, opened: Bool) {
        guard opened else {
            guard let context, let opaque = context.pointee else { return }
            let watched = Unmanaged<WatchedConnection>.fromOpaque(opaque).takeRetainedValue()
            context.pointee = nil
            watch.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(watched)) }
            if let counted = watched.counted { clients.give(counted) }
            return
        }
        let fd = cmhd_connection_fd(connection)
        let peer = Self.peerAddress(connection)
        var counted: String?
        if !forwarded.trusts(peer) {
            guard clients.take(peer) else {
                shutdown(fd, Int32(SHUT_RDWR))
                return
            }
            counted = peer
        }
        let watched = WatchedConnection(fd: fd, counted: counted)
        watch.withLock { $0[ObjectIdentifier(watched)] = watched }
        context?.pointee = Unmanaged.passRetained(watched).toOpaque()
    }

    /// The peer's address as text (`127.0.0.1`, `::1`), "" when unknown.
    static func peerAddress(_ connection: OpaquePointer) -> String {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer in
            guard let base = buffer.baseAddress else { return "" }
            cmhd_peer_address(connection, base, buffer.count)
            return String(cString: base)
        }
    }

    /// Marks the connection as waiting for a request's headers (from now), or as answering one.
    private static func setAwaitingHeaders(_ connection: OpaquePointer, _ awaiting: Bool) {
        guard let opaque = cmhd_socket_context(connection) else { return }
        let watched = Unmanaged<WatchedConnection>.fromOpaque(opaque).takeUnretainedValue()
        watched.awaitingSince.store(awaiting ? monotonicNanoseconds() : 0, ordering: .relaxed)
    }

    // MARK: libmicrohttpd callbacks

    /// What one request has gathered between the calls of the access handler.
    final class Exchange {
        let started = ContinuousClock.now
        var headers: [String: String] = [:]
        /// Who the request is from: the peer, or the client a trusted proxy names (`ForwardedClient`).
        var client = ""
        /// The client whose requests in flight (`clients`) this one is counted in (through a trusted proxy).
        var counted: String?
        var body: [UInt8] = []
        var tooLarge = false
        var answered = false
    }

    static let accessHandler: MHD_AccessHandlerCallback = { context, connection, url, method, _, upload, uploadSize, exchangeSlot in
        guard let context, let connection, let exchangeSlot, let uploadSize else { return cmhd_no() }
        let core = Unmanaged<ServerCore>.fromOpaque(context).takeUnretainedValue()
        return WebServer.insideCallback {
            core.access(connection, url: url, method: method, upload: upload, uploadSize: uploadSize, exchangeSlot: exchangeSlot)
        }
    }

    private func access(_ connection: OpaquePointer, url: UnsafePointer<CChar>?, method: UnsafePointer<CChar>?, upload: UnsafePointer<CChar>?,
                        uploadSize: UnsafeMutablePointer<Int>, exchangeSlot: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> MHD_Result {
        guard let slot = exchangeSlot.pointee else {
            let exchange = Exchange()
            exchangeSlot.pointee = Unmanaged.passRetained(exchange).toOpaque()
            inFlight.add(1, ordering: .relaxed)
            Self.setAwaitingHeaders(connection, false)
            // Names in lower case, once (`lowercased` three times per header was 2 % of a 304's CPU).
            let fields = Self.values(connection, query: false).map { (name: HeaderText.lowercased($0.name), value: $0.value) }
            exchange.headers = Dictionary(fields.map { ($0.name, $0.value) }) { _, last in last }
            let peer = Self.peerAddress(connection)
            exchange.client = forwarded.client(peer: peer, headers: exchange.headers)
            if let refusal = Self.framingRefusal(fields) {
                exchange.answered = true
                var response = WebResponse.text(400, refusal)
                response.setHeader("Connection", "close")
                return send(response, connection, method: method, url: url, exchange: exchange)
            }
            if !hosts.accepts(exchange.headers["host"]) {
                exchange.answered = true
                var response = WebResponse.text(421, "This server does not answer to that host name; use the address it was set up with.\n")
                response.setHeader("Connection", "close")
                return send(response, connection, method: method, url: url, exchange: exchange)
            }
            if forwarded.trusts(peer) {
                guard clients.take(exchange.client) else {
                    exchange.answered = true
                    var response = WebResponse.text(429, "Too many requests at once from one client; try again when one has finished.\n")
                    response.setHeader("Retry-After", "1")
                    return send(response, connection, method: method, url: url, exchange: exchange)
                }
                exchange.counted = exchange.client
            }
            let declared = exchange.headers["content-length"].flatMap { Int($0) } ?? 0
            if declared > settings.maxBody {
                exchange.answered = true
                return send(routes.failure(413, "The request body is larger than \(settings.maxBody / 1024) KB.\n", path: url.map { String(cString: $0) } ?? "/"),
                            connection, method: method, url: url, exchange: exchange)
            }
            return cmhd_yes()
        }
        let exchange = Unmanaged<Exchange>.fromOpaque(slot).takeUnretainedValue()
        if uploadSize.pointee > 0 {
            if let upload, !exchange.tooLarge, !exchange.answered {
                if exchange.body.count + uploadSize.pointee > settings.maxBody {
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
            return send(routes.failure(413, "The request body is larger than \(settings.maxBody / 1024) KB.\n", path: url.map { String(cString: $0) } ?? "/"),
                        connection, method: method, url: url, exchange: exchange)
        }
        var request = WebRequest(method: method.map { String(cString: $0) } ?? "GET", path: url.map { String(cString: $0) } ?? "/",
                                 query: Dictionary(Self.values(connection, query: true).map { ($0.name, $0.value) }) { _, last in last },
                                 headers: exchange.headers, body: exchange.body,
                                 fromLoopback: cmhd_peer_is_loopback(connection) != 0)
        request.client = exchange.client
        let (response, error, logged) = routes.answer(to: request)
        return send(response, connection, method: method, url: url, exchange: exchange, error: error, logged: logged)
    }

    /// Why a request's framing is refused (400, connection closed), or nil: both `Content-Length` and
    /// `Transfer-Encoding`, or two `Content-Length`s. A proxy in front may read such a request's end
    /// elsewhere than the server does, and smuggle a second request inside the first. `fields`' names are in lower case.
    static func framingRefusal(_ fields: [(name: String, value: String)]) -> String? {
        let lengths = fields.filter { $0.name == "content-length" }
        let encodings = fields.filter { $0.name == "transfer-encoding" }
        if !lengths.isEmpty, !encodings.isEmpty { return "Both Content-Length and Transfer-Encoding: send one of them.\n" }
        if lengths.count > 1 { return "Content-Length given \(lengths.count) times: send it once.\n" }
        if encodings.count > 1 { return "Transfer-Encoding given \(encodings.count) times: send it once.\n" }
        return nil
    }

    static let completedHandler: MHD_RequestCompletedCallback = { context, connection, exchangeSlot, _ in
        guard let context, let exchangeSlot, let slot = exchangeSlot.pointee else { return }
        let core = Unmanaged<ServerCore>.fromOpaque(context).takeUnretainedValue()
        WebServer.insideCallback {
            if let counted = Unmanaged<Exchange>.fromOpaque(slot).takeUnretainedValue().counted { core.clients.give(counted) }
            Unmanaged<Exchange>.fromOpaque(slot).release()
            exchangeSlot.pointee = nil
            core.inFlight.subtract(1, ordering: .relaxed)
            if let connection { setAwaitingHeaders(connection, true) }
        }
    }

    static let acceptHandler: MHD_AcceptPolicyCallback = { context, _, _ in
        guard let context else { return cmhd_no() }
        return Unmanaged<ServerCore>.fromOpaque(context).takeUnretainedValue().accepting.load(ordering: .sequentiallyConsistent)
            ? cmhd_yes() : cmhd_no()
    }

    static let connectionHandler: MHD_NotifyConnectionCallback = { context, connection, socketContext, event in
        guard let context, let connection else { return }
        let core = Unmanaged<ServerCore>.fromOpaque(context).takeUnretainedValue()
        WebServer.insideCallback { core.watchConnection(connection, context: socketContext, opened: cmhd_is_connection_start(event) != 0) }
    }

    /// Queues `response` (with the security headers) and writes the access-log line.
    private func send(_ response: WebResponse, _ connection: OpaquePointer, method: UnsafePointer<CChar>?, url: UnsafePointer<CChar>?,
                      exchange: Exchange, error: (any Error)? = nil, logged: String? = nil) -> MHD_Result {
        var secured = response.secured()
        // A 304's `Content-Length` (the 200's, from its route) is the size libmicrohttpd frames it by.
        var size = secured.body.count
        if secured.status == 304 {
            size = secured.header("Content-Length").flatMap { Int($0) } ?? Int(bitPattern: UInt.max)
            secured.headers.removeAll { HeaderText.sameName($0.name, "content-length") }
        }
        let names = secured.headers.map { strdup($0.name) }, values = secured.headers.map { strdup($0.value) }
        defer { (names + values).forEach { free($0) } }
        let result = names.map { UnsafePointer($0) }.withUnsafeBufferPointer { names in
            values.map { UnsafePointer($0) }.withUnsafeBufferPointer { values in
                secured.body.withUnsafeBytes { body in
                    cmhd_respond(connection, UInt32(secured.status), names.baseAddress, values.baseAddress, names.count, body.baseAddress, size)
                }
            }
        }
        guard settings.accessLog || error != nil else { return result }
        let elapsed = ContinuousClock.now - exchange.started
        let tenths = elapsed.components.seconds * 10_000 + elapsed.components.attoseconds / 100_000_000_000_000
        let methodText = method.map { String(cString: $0) } ?? "-"
        let path = logged ?? url.map { routes.loggedPath(method: methodText, path: String(cString: $0)) } ?? "-"
        var line = "\(exchange.client) \(methodText) \(path) \(secured.status) \(tenths / 10).\(tenths % 10) ms"
        if let error { line += " (\(error))" }
        log(line)
        return result
    }

    /// The headers or the query arguments of a request, in order, duplicates kept.
    private static func values(_ connection: OpaquePointer, query: Bool) -> [(name: String, value: String)] {
        final class Collected { var values: [(name: String, value: String)] = [] }
        let collected = Collected()
        cmhd_values(connection, query ? 1 : 0, { context, _, key, value in
            guard let context, let key else { return cmhd_yes() }
            let collected = Unmanaged<Collected>.fromOpaque(context).takeUnretainedValue()
            collected.values.append((String(cString: key), value.map { Routes.decodingKept(String(cString: $0)) } ?? ""))
            return cmhd_yes()
        }, Unmanaged.passUnretained(collected).toOpaque())
        return collected.values
    }
}

/// CLOCK_MONOTONIC in nanoseconds (never 0 on a running system).
private func monotonicNanoseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
}
