import Foundation

/// One HTTP request as a plain value: what the payload builders produce and `HTTPClient` sends.
public struct HTTPRequest: Sendable, Equatable {
    /// A header line; order is kept because some services care and golden files need it.
    public struct Header: Sendable, Equatable {
        public var name: String
        public var value: String
        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    public var method: String
    public var url: String
    public var headers: [Header]
    public var body: Data
    /// Seconds allowed to establish the connection (TCP + TLS).
    public var connectTimeout: TimeInterval
    /// Seconds allowed for the whole transfer.
    public var timeout: TimeInterval
    /// Abort when fewer than `lowSpeedLimit` bytes/s arrive for `lowSpeedTime` seconds.
    public var lowSpeedLimit: Int
    public var lowSpeedTime: Int
    /// Largest response body accepted; bigger responses fail with `.responseTooLarge`.
    public var maxResponseBytes: Int
    /// Follow redirects (only to http/https, at most 5).
    public var followRedirects: Bool
    /// Skip TLS verification. The caller must log a warning when it sets this.
    public var insecure: Bool
    /// PEM file of certificates to trust instead of the system store (tests, private CAs).
    public var caInfo: String?
    /// Values that must never be shown (topic names, tokens): dry runs and errors replace them.
    public var redactions: [String]

    public init(
        method: String = "POST",
        url: String,
        headers: [Header] = [],
        body: Data = Data(),
        connectTimeout: TimeInterval = 10,
        timeout: TimeInterval = 30,
        lowSpeedLimit: Int = 1,
        lowSpeedTime: Int = 15,
        maxResponseBytes: Int = 1 << 20,
        followRedirects: Bool = false,
        insecure: Bool = false,
        caInfo: String? = nil,
        redactions: [String] = []
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.connectTimeout = connectTimeout
        self.timeout = timeout
        self.lowSpeedLimit = lowSpeedLimit
        self.lowSpeedTime = lowSpeedTime
        self.maxResponseBytes = maxResponseBytes
        self.followRedirects = followRedirects
        self.insecure = insecure
        self.caInfo = caInfo
        self.redactions = redactions
    }

    /// The first header with this name (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// Adds an `Authorization: Basic` header (RFC 7617) and keeps the password and the token out
    /// of every error and dry run.
    public mutating func authorize(username: String, password: String) {
        let token = Data("\(username):\(password)".utf8).base64EncodedString()
        headers.append(Header("Authorization", "Basic " + token))
        redactions += [password, token].filter { !$0.isEmpty }
    }
}

/// What a server answered.
public struct HTTPResponse: Sendable, Equatable {
    public var status: Int
    /// Header lines of the final response, in order, names as sent.
    public var headers: [HTTPRequest.Header]
    public var body: Data
    /// Seconds from the start of the transfer to its end.
    public var totalTime: TimeInterval
    /// The URL that answered, when redirects led away from the request's (unredacted).
    public var redirectedTo: String?

    public init(status: Int, headers: [HTTPRequest.Header] = [], body: Data = Data(), totalTime: TimeInterval = 0,
                redirectedTo: String? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.totalTime = totalTime
        self.redirectedTo = redirectedTo
    }

    /// The first header with this name (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    public var isSuccess: Bool { (200..<300).contains(status) }
}

/// Why a transfer produced no HTTP response (or SMTP reply). Never contains a secret:
/// the URL is stored redacted.
public struct TransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Broad class of failure; drives `RetryPolicy`.
    public enum Kind: String, Sendable, Equatable {
        case timedOut = "timed out"
        case connectionFailed = "connection failed"
        case dnsFailed = "host not found"
        case tlsFailed = "TLS failed"
        case protocolRefused = "protocol refused"
        case responseTooLarge = "response too large"
        case loginDenied = "login denied"
        case rejected = "rejected by server"
        /// The server refused for now (SMTP 4xx); worth retrying.
        case deferred = "temporarily refused by server"
        case setupFailed = "could not start transfer"
        /// The whole message went out (SMTP DATA) but the server's answer never came: it may
        /// have the message. Not retried (each retry could be a second copy).
        case unanswered = "sent, but the server did not answer"
        case other = "transfer failed"
    }

    public var kind: Kind
    /// Redacted destination (`https://hooks.slack.com/****`).
    public var destination: String
    /// libcurl's code (0 when not from libcurl).
    public var curlCode: Int
    /// libcurl's message with secrets removed.
    public var detail: String

    public init(kind: Kind, destination: String, curlCode: Int = 0, detail: String = "") {
        self.kind = kind
        self.destination = destination
        self.curlCode = curlCode
        self.detail = detail
    }

    public var description: String {
        var text = "\(destination): \(kind.rawValue)"
        if !detail.isEmpty { text += " (\(detail))" }
        return text
    }
}
