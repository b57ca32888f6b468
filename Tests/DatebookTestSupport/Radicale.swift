import DatebookDelivery
import Foundation

/// A real CalDAV server for tests: Radicale (PyPI `radicale`, installed by `scripts/setup.sh --test`)
/// on a free 127.0.0.1 port, with its own storage folder and one htpasswd user (plain text).
/// Starting it fails loudly (the test fails) when Radicale is missing or does not answer; it is
/// never skipped. `stop()` (or deinit) kills it and removes the folder.
public final class Radicale: @unchecked Sendable {  // owns a child process
    public let process = Process()
    public let port: Int
    public let directory: URL
    /// Radicale's log (level info: one line per request).
    public let log: URL
    public let username = "ann"
    public let password = "correct horse"
    private let client = HTTPClient(maxHostConnections: 2, maxTotalConnections: 2)

    /// The self-signed certificate it serves with `tls` (trust it as a CA file), else nil.
    public let certificate: String?

    /// - Parameter tls: serve HTTPS with a throwaway self-signed certificate for 127.0.0.1.
    public init(tls: Bool = false) throws {
        directory = URL(fileURLWithPath: makeScratchFolder("radicale"))
        let pair = tls ? try makeCertificate(in: directory) : nil
        certificate = pair?.cert
        let users = directory.appendingPathComponent("users")
        try Data("\(username):\(password)\n".utf8).write(to: users)
        guard let python = Self.python() else { throw RadicaleError.missing }
        port = try freePort()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [
            "-m", "radicale", "--storage-filesystem-folder=" + directory.appendingPathComponent("collections").path,
            "--server-hosts=127.0.0.1:\(port)", "--auth-type=htpasswd", "--auth-htpasswd-filename=" + users.path,
            "--auth-htpasswd-encryption=plain", "--auth-delay=0", "--logging-level=info",
        ] + (pair.map { ["--server-ssl=True", "--server-certificate=" + $0.cert, "--server-key=" + $0.key] } ?? [])
        log = directory.appendingPathComponent("radicale.log")
        // Its own HOME: Radicale reads ~/.config/radicale/config, which must be no user's.
        let answered = try startServer(process, log: log, home: directory, client: client,
                                       probe: HTTPRequest(method: "GET", url: baseURL + "/.well-known/caldav", timeout: 2, caInfo: certificate))
        guard answered else {
            let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            stop()
            throw RadicaleError.didNotStart(String(output.suffix(2000)))
        }
    }

    public var baseURL: String { (certificate == nil ? "http" : "https") + "://127.0.0.1:\(port)" }
    /// The user's principal and calendar home (Radicale's layout: `/USER/`).
    public var homeURL: String { baseURL + "/\(username)/" }

    /// The test Python (`TestPython`: `.build/venv` from `scripts/setup.sh --test`) when it imports radicale.
    static func python() -> String? {
        TestPython.imports(["radicale"]) ? TestPython.executable : nil
    }

    /// The requests Radicale has received so far, as `METHOD /path`, in order (from its log).
    public func requests() -> [String] {
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line -> String? in
            guard let info = line.range(of: "[INFO] "), let marker = line.range(of: " request for '") else { return nil }
            let method = line[info.upperBound..<marker.lowerBound]
            guard method.allSatisfy(\.isUppercase), let end = line[marker.upperBound...].firstIndex(of: "'") else { return nil }
            return "\(method) \(line[marker.upperBound..<end])"
        }
    }

    /// Sends one request as the test user (or with `password`), returning the response.
    @discardableResult
    public func request(_ method: String, _ path: String, body: String = "", headers: [HTTPRequest.Header] = [],
                        password: String? = nil) throws -> HTTPResponse {
        let token = Data("\(username):\(password ?? self.password)".utf8).base64EncodedString()
        var all = [HTTPRequest.Header("Authorization", "Basic " + token)] + headers
        if !body.isEmpty, !all.contains(where: { $0.name == "Content-Type" }) {
            all.append(HTTPRequest.Header("Content-Type", "application/xml; charset=utf-8"))
        }
        let url = path.hasPrefix("http") ? path : baseURL + path
        return try client.perform(HTTPRequest(method: method, url: url, headers: all, body: Data(body.utf8), caInfo: certificate)).get()
    }

    /// Has Radicale read every item of `/ann/CALENDAR/` once (a PROPFIND, Depth 1, waited for as
    /// long as it takes): it builds its item cache on the first read, which for files written into
    /// its folder directly can outlast a client's 15 s without a byte.
    public func warm(_ calendar: String) throws {
        let token = Data("\(username):\(password)".utf8).base64EncodedString()
        let request = HTTPRequest(method: "PROPFIND", url: baseURL + "/\(username)/\(calendar)/",
                                  headers: [HTTPRequest.Header("Authorization", "Basic " + token), HTTPRequest.Header("Depth", "1")],
                                  timeout: 600, lowSpeedTime: 600, maxResponseBytes: 1 << 30, caInfo: certificate)
        let response = try client.perform(request).get()
        guard response.status == 207 else { throw RadicaleError.refused("PROPFIND \(calendar)", response.status) }
    }

    /// Creates the calendar `/ann/NAME/` (MKCALENDAR) with a display name.
    public func makeCalendar(_ name: String, displayName: String) throws {
        let body = """
            <?xml version="1.0" encoding="utf-8"?>
            <C:mkcalendar xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">
            <D:set><D:prop><D:displayname>\(displayName)</D:displayname></D:prop></D:set></C:mkcalendar>
            """
        let response = try request("MKCALENDAR", "/\(username)/\(name)/", body: body)
        guard response.status == 201 else { throw RadicaleError.refused("MKCALENDAR \(name)", response.status) }
    }

    /// Stores `text` as `/ann/CALENDAR/FILE` (a change made "on the server", as a phone would).
    public func put(_ calendar: String, _ file: String, _ text: String) throws {
        let response = try request("PUT", "/\(username)/\(calendar)/\(file)", body: text,
                                   headers: [HTTPRequest.Header("Content-Type", "text/calendar; charset=utf-8")])
        guard response.isSuccess else { throw RadicaleError.refused("PUT \(file)", response.status) }
    }

    /// The server's copy of `/ann/CALENDAR/FILE`, or nil when it has none.
    public func get(_ calendar: String, _ file: String) throws -> String? {
        let response = try request("GET", "/\(username)/\(calendar)/\(file)")
        return response.status == 404 ? nil : String(decoding: response.body, as: UTF8.self)
    }

    public func delete(_ calendar: String, _ file: String) throws {
        let response = try request("DELETE", "/\(username)/\(calendar)/\(file)")
        guard response.isSuccess else { throw RadicaleError.refused("DELETE \(file)", response.status) }
    }

    public func stop() { stopServer(process, removing: directory) }

    deinit { stop() }
}

public enum RadicaleError: Error, CustomStringConvertible {
    case missing
    case didNotStart(String)
    case refused(String, Int)

    public var description: String {
        switch self {
        case .missing: "Radicale is not installed for the test Python \(TestPython.executable ?? "python3") (run scripts/setup.sh --test)"
        case .didNotStart(let log): "Radicale did not start:\n\(log)"
        case let .refused(what, status): "Radicale answered \(status) to \(what)"
        }
    }
}
