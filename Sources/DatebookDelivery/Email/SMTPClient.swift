import CLoader
import Foundation

/// Where and how to submit mail.
public struct SMTPConfiguration: Sendable, Equatable {
    /// `smtp://host:587` (STARTTLS) or `smtps://host:465` (implicit TLS).
    public var url: String
    public var username: String?
    public var password: Secret?
    /// For smtp://, refuse to continue unless STARTTLS succeeds (`CURLUSESSL_ALL`).
    /// Turn off only for a local relay.
    public var requireTLS: Bool
    /// Skip certificate verification; the caller logs a warning.
    public var insecure: Bool
    public var caInfo: String?
    public var connectTimeout: TimeInterval
    public var timeout: TimeInterval
    /// How long the server may take to answer the message's end (RFC 5321 4.5.3.2.6: at least
    /// 10 minutes), whatever `timeout` says: a client that gives up sooner gets a second copy to
    /// a server that accepted late on each retry.
    public var dataTimeout: TimeInterval = 600

    public init(
        url: String, username: String? = nil, password: Secret? = nil, requireTLS: Bool = true,
        insecure: Bool = false, caInfo: String? = nil, connectTimeout: TimeInterval = 15, timeout: TimeInterval = 60
    ) {
        self.url = url
        self.username = username
        self.password = password
        self.requireTLS = requireTLS
        self.insecure = insecure
        self.caInfo = caInfo
        self.connectTimeout = connectTimeout
        self.timeout = timeout
    }
}

/// Submits rendered emails over SMTP(S) with libcurl: envelope from the message's
/// addresses, body uploaded through a read callback.
///
/// The easy handle of a successful send is kept (in `connections`) and reused by the next send
/// with the same configuration, so consecutive emails share one SMTP session instead of paying
/// for a connection, greeting, EHLO, STARTTLS and login each time.
public struct SMTPClient: Sendable {
    public var configuration: SMTPConfiguration
    let connections: SMTPConnections

    public init(configuration: SMTPConfiguration) {
        self.init(configuration: configuration, connections: SMTPConnections())
    }

    init(configuration: SMTPConfiguration, connections: SMTPConnections) {
        self.configuration = configuration
        self.connections = connections
    }

    /// Sends `message`; on success returns the server's final reply code (250).
    public func send(_ message: EmailMessage) -> Result<Int, TransportError> {
        submit(message).result
    }

    /// Sends `message` to its envelope's recipients. When the server refused some of them and took
    /// the message for the others, `result` is the refusal and `accepted` names those others (the
    /// progress a retry starts from); otherwise `accepted` is empty.
    public func submit(_ message: EmailMessage) -> (result: Result<Int, TransportError>, accepted: [String]) {
        let config = configuration
        let lower = config.url.lowercased()
        guard lower.hasPrefix("smtp://") || lower.hasPrefix("smtps://") else {
            return (.failure(TransportError(
                kind: .protocolRefused, destination: redactURL(config.url), detail: "email needs an smtp:// or smtps:// URL")), [])
        }
        guard !message.recipients.isEmpty else {
            // A retry whose recipients all accepted before (the outcome was not recorded): done.
            guard message.envelope == nil else { return (.success(250), []) }
            return (.failure(TransportError(kind: .setupFailed, destination: redactURL(config.url), detail: "no recipients")), [])
        }
        let data = message.render()
        if let kept = connections.checkOut(config) {
            let sent = send(data, of: message, on: kept)
            // A kept session the server has since closed fails before the message is accepted:
            // try once more on a fresh connection.
            guard case .failure(let error) = sent.result, error.kind == .connectionFailed, !error.detail.contains("SMTP ")
            else { return sent }
        }
        guard let easy = CurlEasy() else {
            return (.failure(TransportError(kind: .setupFailed, destination: redactURL(config.url), detail: CurlGlobal.problem)), [])
        }
        let secrets = [config.password?.value].compactMap { $0 }
        return send(data, of: message, on: CurlTransfer(easy: easy, url: config.url, redactions: secrets, maxResponseBytes: 1 << 16))
    }

    private func send(_ data: Data, of message: EmailMessage, on transfer: CurlTransfer)
        -> (result: Result<Int, TransportError>, accepted: [String]) {
        let config = configuration
        let easy = transfer.easy
        easy.reset()
        transfer.installReceiveCallbacks()  // the server's replies, for what each recipient was told
        transfer.prepare(url: config.url, redactions: [config.password?.value].compactMap { $0 }, maxResponseBytes: 1 << 16)
        easy.set(CURLOPT_URL, config.url)
        CurlOptions.applySafetyDefaults(
            easy, protocols: "smtp,smtps", connectTimeout: config.connectTimeout, timeout: max(config.timeout, config.dataTimeout),
            lowSpeedLimit: 1, lowSpeedTime: max(30, Int(config.dataTimeout)), insecure: config.insecure, caInfo: config.caInfo)
        if config.url.lowercased().hasPrefix("smtp://") {
            easy.set(CURLOPT_USE_SSL, Int(config.requireTLS ? CURLUSESSL_ALL.rawValue : CURLUSESSL_NONE.rawValue))
        }
        if let username = config.username { easy.set(CURLOPT_USERNAME, username) }
        if let password = config.password { easy.set(CURLOPT_PASSWORD, password.value) }
        easy.set(CURLOPT_MAIL_FROM, "<\(message.from.cleanAddress)>")
        let recipients = message.recipients.map(\.cleanAddress)
        easy.set(CURLOPT_MAIL_RCPT, list: recipients.map { "<\($0)>" })
        // CURLOPT_MAIL_RCPT_ALLOWFAILS (290; spelt ALLLOWFAILS before libcurl 8.2): a refused
        // recipient does not stop the message going to the others.
        easy.set(CURLoption(rawValue: 290), 1)
        transfer.installUpload(data)
        let code = withExtendedLifetime(transfer) { datebook_curl_easy_perform(easy.handle) }
        let reply = easy.long(CURLINFO_RESPONSE_CODE)
        let replies = SMTPReplies(lines: transfer.replyLines)
        let perRecipient = replies.recipients(recipients.count, curlError: code == CURLE_OK ? nil : easy.errorMessage(for: code)).map { lines in
            zip(recipients, lines).reduce(into: RecipientReplies(accepted: [], refused: [])) { result, pair in
                if pair.1.hasPrefix("2") { result.accepted.append(pair.0) } else { result.refused.append(.init(address: pair.0, reply: pair.1)) }
            }
        }
        guard code == CURLE_OK else {
            // The handle is dropped, and with it a session in an unknown state.
            var error = transfer.error(for: code)
            if code == CURLE_OPERATION_TIMEDOUT, reply == 354, transfer.uploadOffset >= transfer.upload.count {
                // The message went out after the server's "354 start mail input"; its answer did not come.
                error.kind = .unanswered
            } else if reply == 534 || reply == 535 {
                error.kind = .loginDenied
            } else if reply >= 500, error.kind != .loginDenied, error.kind != .tlsFailed {
                error.kind = .rejected
            } else if (400..<500).contains(reply), error.kind != .tlsFailed {
                error.kind = .deferred
            }
            if let perRecipient, !perRecipient.refused.isEmpty, perRecipient.accepted.isEmpty {
                error.kind = perRecipient.anyTemporary ? .deferred : .rejected
                error.detail = perRecipient.summary
            } else if reply > 0, let last = replies.last {
                // The server's own words, not libcurl's "Weird server reply".
                error.detail = "the server replied \(last)"
            } else if reply > 0 {
                error.detail += "; SMTP \(reply)"
            }
            return (.failure(error), [])
        }
        transfer.upload = Data()
        connections.checkIn(transfer, for: config)
        if let perRecipient, !perRecipient.refused.isEmpty {
            // Delivered to those accepted; the refused ones are reported, by address.
            return (.failure(TransportError(kind: perRecipient.anyTemporary ? .deferred : .rejected,
                                            destination: transfer.destination, detail: perRecipient.summary)), perRecipient.accepted)
        }
        return (.success(reply), [])
    }
}

/// Idle SMTP sessions (easy handles whose connection libcurl keeps open), by configuration.
/// Shared by copies of one `SMTPClient` and by the `Deliverer`'s email steps; each session is
/// used by one send at a time.
final class SMTPConnections: @unchecked Sendable {  // owns curl easy handles (CurlTransfer), guarded by `lock`
    private let lock = NSLock()
    private var idle: [(configuration: SMTPConfiguration, transfer: CurlTransfer)] = []
    /// Sessions kept at most; more idle connections than this are closed.
    private let capacity = 4

    func checkOut(_ configuration: SMTPConfiguration) -> CurlTransfer? {
        lock.lock()
        defer { lock.unlock() }
        guard let position = idle.lastIndex(where: { $0.configuration == configuration }) else { return nil }
        return idle.remove(at: position).transfer
    }

    func checkIn(_ transfer: CurlTransfer, for configuration: SMTPConfiguration) {
        lock.lock()
        defer { lock.unlock() }
        idle.append((configuration, transfer))
        if idle.count > capacity { idle.removeFirst() }
    }
}
