import CCurl
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
public struct SMTPClient: Sendable {
    public var configuration: SMTPConfiguration

    public init(configuration: SMTPConfiguration) { self.configuration = configuration }

    /// Sends `message`; on success returns the server's final reply code (250).
    public func send(_ message: EmailMessage) -> Result<Int, TransportError> {
        let config = configuration
        let secrets = [config.password?.value].compactMap { $0 }
        let failure = { (kind: TransportError.Kind, detail: String) in
            Result<Int, TransportError>.failure(TransportError(kind: kind, destination: redactURL(config.url), detail: detail))
        }
        let lower = config.url.lowercased()
        guard lower.hasPrefix("smtp://") || lower.hasPrefix("smtps://") else {
            return failure(.protocolRefused, "email needs an smtp:// or smtps:// URL")
        }
        guard !message.to.isEmpty else { return failure(.setupFailed, "no recipients") }
        guard let easy = CurlEasy() else { return failure(.setupFailed, "libcurl unavailable") }
        let transfer = CurlTransfer(easy: easy, url: config.url, redactions: secrets, maxResponseBytes: 1 << 16)
        easy.set(CURLOPT_URL, config.url)
        CurlOptions.applySafetyDefaults(
            easy, protocols: "smtp,smtps", connectTimeout: config.connectTimeout, timeout: config.timeout,
            lowSpeedLimit: 1, lowSpeedTime: 30, insecure: config.insecure, caInfo: config.caInfo)
        if lower.hasPrefix("smtp://") {
            easy.set(CURLOPT_USE_SSL, Int(config.requireTLS ? CURLUSESSL_ALL.rawValue : CURLUSESSL_NONE.rawValue))
        }
        if let username = config.username { easy.set(CURLOPT_USERNAME, username) }
        if let password = config.password { easy.set(CURLOPT_PASSWORD, password.value) }
        easy.set(CURLOPT_MAIL_FROM, "<\(message.from.cleanAddress)>")
        easy.set(CURLOPT_MAIL_RCPT, list: message.to.map { "<\($0.cleanAddress)>" })
        transfer.installUpload(message.render())
        let code = withExtendedLifetime(transfer) { curl_easy_perform(easy.handle) }
        let reply = easy.long(CURLINFO_RESPONSE_CODE)
        guard code == CURLE_OK else {
            var error = transfer.error(for: code)
            if reply == 534 || reply == 535 {
                error.kind = .loginDenied
            } else if reply >= 500, error.kind != .loginDenied, error.kind != .tlsFailed {
                error.kind = .rejected
            } else if (400..<500).contains(reply), error.kind != .tlsFailed {
                error.kind = .deferred
            }
            if reply > 0 { error.detail += "; SMTP \(reply)" }
            return .failure(error)
        }
        return .success(reply)
    }
}
