import DatebookDelivery
import Foundation

/// The second real CalDAV server of the tests, beside `Radicale`: Xandikos (PyPI `xandikos`, installed
/// by `scripts/setup.sh --test`) on a free 127.0.0.1 port with its own folder, the principal `/ann/`
/// and its calendars under `/ann/calendars/`. It asks for no login (the sync's basic auth is ignored).
/// It leaves calendar data out of `sync-collection` answers, so the sync's `calendar-multiget` path
/// runs against it. Starting it fails the test when it is missing or does not answer; never skipped.
public final class Xandikos: CalDAVTestServer, @unchecked Sendable {  // owns a child process
    public let process = Process()
    public let port: Int
    public let directory: URL
    public let username = "ann"
    public let password = "unused by xandikos"
    let client = HTTPClient(maxHostConnections: 2, maxTotalConnections: 2)

    public init() throws {
        directory = URL(fileURLWithPath: makeScratchFolder("xandikos"))
        guard let python = TestPython.imports(["xandikos"]) ? TestPython.executable : nil else { throw RadicaleError.missing }
        port = try freePort()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-m", "xandikos", "serve", "-d", directory.appendingPathComponent("data").path, "--autocreate",
                             "--current-user-principal", "/\(username)/", "-l", "127.0.0.1", "-p", String(port),
                             "--state-dir", directory.appendingPathComponent("state").path, "--no-detect-systemd"]
        let log = directory.appendingPathComponent("xandikos.log")
        guard try startServer(process, log: log, home: directory, client: client, probe: HTTPRequest(method: "GET", url: baseURL + "/", timeout: 2))
        else {
            let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            stop()
            throw RadicaleError.didNotStart(String(output.suffix(2000)))
        }
    }

    public var baseURL: String { "http://127.0.0.1:\(port)" }
    public func calendarPath(_ name: String) -> String { "/\(username)/calendars/\(name)/" }

    public func stop() { stopServer(process, removing: directory) }

    /// From aiohttp's access log: `127.0.0.1 [date] "PUT /ann/calendars/personal/a.ics HTTP/1.1" 201 …`.
    /// A request's line is written just after its answer, so a marker request is sent first and the
    /// log read until the marker's line is in it (every request answered before is then logged too);
    /// the markers are left out.
    public func requests() -> [String] {
        let marker = "/datebook-test-marker-\(UUID().uuidString)"
        _ = try? send("GET", marker, body: "", headers: [])
        func logged() -> [String] {
            let text = (try? String(contentsOf: directory.appendingPathComponent("xandikos.log"), encoding: .utf8)) ?? ""
            return text.split(separator: "\n").compactMap { line -> String? in
                guard let open = line.range(of: "] \""), let end = line.range(of: " HTTP/", range: open.upperBound..<line.endIndex) else { return nil }
                let request = line[open.upperBound..<end.lowerBound]
                return request.split(separator: " ").count == 2 ? String(request) : nil
            }
        }
        var lines = logged()
        for _ in 0..<100 where !lines.contains("GET " + marker) {
            usleep(50_000)
            lines = logged()
        }
        return lines.filter { !$0.contains("/datebook-test-marker-") }
    }

    deinit { stop() }
}

/// Starts a test server's `process` with its output in `log`, HOME and the XDG folders in `home`
/// (no user's settings read), watched by the reaper; waits up to 60 s (the machine may be busy
/// building) until `probe` is answered. False when it was not.
func startServer(_ process: Process, log: URL, home: URL, client: HTTPClient, probe: HTTPRequest) throws -> Bool {
    _ = FileManager.default.createFile(atPath: log.path, contents: Data())
    let handle = try FileHandle(forWritingTo: log)
    process.standardOutput = handle
    process.standardError = handle
    process.environment = ["HOME": home.path, "XDG_CONFIG_HOME": home.appendingPathComponent("config").path,
                           "XDG_DATA_HOME": home.appendingPathComponent("share").path, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"]
    try process.run()
    Reaper.watch(process)
    for _ in 0..<600 {
        if !process.isRunning { return false }
        if case .success = client.perform(probe) { return true }
        usleep(100_000)
    }
    return false
}

/// What the tests ask of a CalDAV server they start (`Radicale`, `Xandikos`): calendars made and
/// changed over plain HTTP, as another device would.
public protocol CalDAVTestServer: AnyObject {
    var baseURL: String { get }
    var username: String { get }
    var password: String { get }
    /// The path of the calendar collection `name` (`/ann/name/` on Radicale).
    func calendarPath(_ name: String) -> String
    /// Sends one request as the test user, returning the response.
    func send(_ method: String, _ path: String, body: String, headers: [HTTPRequest.Header]) throws -> HTTPResponse
    /// The requests the server has received so far, as `METHOD /path`, in order (from its log).
    func requests() -> [String]
}

extension Xandikos {
    public func send(_ method: String, _ path: String, body: String, headers: [HTTPRequest.Header]) throws -> HTTPResponse {
        var all = headers
        if !body.isEmpty, !all.contains(where: { $0.name == "Content-Type" }) {
            all.append(HTTPRequest.Header("Content-Type", "application/xml; charset=utf-8"))
        }
        return try client.perform(HTTPRequest(method: method, url: baseURL + path, headers: all, body: Data(body.utf8), timeout: 60)).get()
    }
}

extension Radicale: CalDAVTestServer {
    public func calendarPath(_ name: String) -> String { "/\(username)/\(name)/" }

    public func send(_ method: String, _ path: String, body: String, headers: [HTTPRequest.Header]) throws -> HTTPResponse {
        try request(method, path, body: body, headers: headers)
    }
}

extension CalDAVTestServer {
    /// Creates the calendar `name` (MKCALENDAR) with a display name.
    public func makeCalendar(named name: String, displayName: String) throws {
        let body = """
            <?xml version="1.0" encoding="utf-8"?>
            <C:mkcalendar xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">
            <D:set><D:prop><D:displayname>\(displayName)</D:displayname></D:prop></D:set></C:mkcalendar>
            """
        let response = try send("MKCALENDAR", calendarPath(name), body: body, headers: [])
        guard response.status == 201 else { throw RadicaleError.refused("MKCALENDAR \(name)", response.status) }
    }

    /// Stores `text` as FILE of the calendar (a change made "on the server", as a phone would).
    public func store(_ calendar: String, _ file: String, _ text: String) throws {
        let response = try send("PUT", calendarPath(calendar) + file, body: text,
                                headers: [HTTPRequest.Header("Content-Type", "text/calendar; charset=utf-8")])
        guard response.isSuccess else { throw RadicaleError.refused("PUT \(file)", response.status) }
    }

    /// `store` under Radicale's name (Radicale's own `put` is the same).
    public func put(_ calendar: String, _ file: String, _ text: String) throws { try store(calendar, file, text) }
    /// `fetch` under Radicale's name.
    public func get(_ calendar: String, _ file: String) throws -> String? { try fetch(calendar, file) }

    /// Removes FILE of the calendar (a deletion made "on the server").
    public func delete(_ calendar: String, _ file: String) throws {
        let response = try send("DELETE", calendarPath(calendar) + file, body: "", headers: [])
        guard response.isSuccess else { throw RadicaleError.refused("DELETE \(file)", response.status) }
    }

    /// The server's copy of FILE of the calendar, or nil when it has none.
    public func fetch(_ calendar: String, _ file: String) throws -> String? {
        let response = try send("GET", calendarPath(calendar) + file, body: "", headers: [])
        return response.status == 404 ? nil : String(decoding: response.body, as: UTF8.self)
    }
}
