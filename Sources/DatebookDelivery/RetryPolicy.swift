import Foundation

/// What one delivery attempt produced.
public enum DeliveryOutcome: Sendable, Equatable {
    /// The server answered (any status).
    case http(HTTPResponse)
    /// No answer: network, TLS, timeout, SMTP rejection, …
    case transport(TransportError)
    /// A command channel finished.
    case command(CommandResult)
    /// A non-HTTP channel accepted the item (SMTP 250, file written).
    case accepted
    /// Not an end: this much of the step was accepted (parts of a split message, email
    /// recipients), reported before the rest is sent or its outcome follows. The step's own
    /// outcome always comes after it.
    case progressed(DeliveryProgress)
}

/// The policy's verdict after an attempt.
public enum RetryDecision: Sendable, Equatable {
    case delivered
    /// Sent, but whether it arrived is unknown (the server did not answer the message's end):
    /// not retried, and recorded with the reason so `status` shows it.
    case uncertain(reason: String)
    case retry(at: Date)
    case failed(reason: String)
}

/// Pure retry state machine: exponential backoff with full jitter, `Retry-After` (seconds
/// or HTTP-date) and Discord's JSON `retry_after` honoured, 4xx other than 408/429 never
/// retried, and a per-delivery deadline. No clock, no randomness of its own.
public struct RetryPolicy: Sendable, Equatable {
    /// Ceiling of the first backoff window, in seconds.
    public var baseDelay: TimeInterval
    /// Largest backoff window (default 30 min): during a long outage a delivery is tried at least
    /// this often, until the deadline.
    public var maxDelay: TimeInterval
    /// No limit by default: the deadline ends the retries (an outage of 60 minutes used up 8
    /// attempts and failed 5 hours before the deadline the docs promised).
    public var maxAttempts: Int
    /// Seconds after the first attempt when the delivery is given up (the scheduler uses
    /// `alerts.lateness`); the last retry is made at the deadline itself.
    public var deadline: TimeInterval

    public init(baseDelay: TimeInterval = 30, maxDelay: TimeInterval = 1800, maxAttempts: Int = .max, deadline: TimeInterval = 6 * 3600) {
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.maxAttempts = maxAttempts
        self.deadline = deadline
    }

    /// - Parameters:
    ///   - attempt: 1 for the first attempt.
    ///   - random: returns a value in `0..<1`; full jitter picks `random() × window`.
    public func decide(
        attempt: Int, outcome: DeliveryOutcome, firstAttempt: Date, now: Date, random: () -> Double
    ) -> RetryDecision {
        let verdict = Self.classify(outcome)
        switch verdict {
        case .delivered: return .delivered
        case .uncertain(let reason): return .uncertain(reason: reason)
        case .permanent(let reason): return .failed(reason: reason)
        case .transient(let reason, let serverDelay):
            guard attempt < maxAttempts else {
                return .failed(reason: "\(reason); gave up after \(attempt) attempts")
            }
            let window = min(maxDelay, baseDelay * pow(2, Double(max(0, attempt - 1))))
            let jittered = max(1, window * min(max(random(), 0), 1))
            let at = now.addingTimeInterval(serverDelay.map { max($0, 0) } ?? jittered)
            let end = firstAttempt.addingTimeInterval(deadline)
            guard at <= end else {
                // A backoff past the deadline still leaves one try at it; a server that asks for
                // longer is taken at its word.
                guard serverDelay == nil, end.timeIntervalSince(now) > 1 else {
                    return .failed(reason: "\(reason); next retry would pass the delivery deadline")
                }
                return .retry(at: end)
            }
            return .retry(at: at)
        }
    }

    /// True when `outcome` is worth retrying (5xx, 408, 429, timeouts, exit 75): when retries run
    /// out on it, the failure is temporary ("try again later"), not a refusal.
    public static func isTransient(_ outcome: DeliveryOutcome) -> Bool {
        if case .transient = classify(outcome) { return true }
        return false
    }

    enum Verdict: Equatable {
        case delivered
        case uncertain(String)
        case transient(String, serverDelay: TimeInterval?)
        case permanent(String)
    }

    static func classify(_ outcome: DeliveryOutcome) -> Verdict {
        switch outcome {
        case .accepted: return .delivered
        case .progressed(let progress): return .transient("only partly sent (\(progress.summary))", serverDelay: nil)
        case .http(let response): return classify(response)
        case .transport(let error):
            switch error.kind {
            case .timedOut, .connectionFailed, .dnsFailed, .deferred, .other:
                return .transient(error.description, serverDelay: nil)
            case .tlsFailed:
                return .permanent("\(error.description) (certificate not trusted or TLS unavailable; check the server's certificate, or give the channel a caFile)")
            case .loginDenied:
                return .permanent("\(error.description) (check the username and password)")
            case .protocolRefused, .responseTooLarge, .rejected, .setupFailed:
                return .permanent(error.description)
            case .unanswered:
                return .uncertain(error.description)
            }
        case .command(let result):
            if result.timedOut { return .transient("command timed out", serverDelay: nil) }
            switch result.termination {
            case .exited(0): return .delivered
            case .exited(75): return .transient("command exit status 75 (temporary failure)", serverDelay: nil)
            case .exited(let code): return .permanent("command exit status \(code)\(stderrHint(result.stderr))")
            case .signalled(let signal): return .permanent("command killed by signal \(signal)")
            }
        }
    }

    static func classify(_ response: HTTPResponse) -> Verdict {
        let status = response.status
        switch status {
        case 200..<300: return .delivered
        case 408: return .transient("HTTP 408 (request timeout)", serverDelay: retryAfter(response))
        case 429: return .transient("HTTP 429 (rate limited)", serverDelay: retryAfter(response))
        case 501, 505: return .permanent("HTTP \(status) (server does not support this request)")
        case 500..<600: return .transient("HTTP \(status) (server error)", serverDelay: retryAfter(response))
        case 300..<400: return .permanent("HTTP \(status) (unexpected redirect; check the URL)")
        case 400: return .permanent("HTTP 400 (payload rejected\(bodyHint(response.body)))")
        case 401: return .permanent("HTTP 401 (check the token)")
        case 403: return .permanent("HTTP 403 (forbidden; check the token and its permissions)")
        case 404: return .permanent("HTTP 404 (webhook deleted?)")
        case 410: return .permanent("HTTP 410 (webhook deleted)")
        case 413: return .permanent("HTTP 413 (message too large)")
        default: return .permanent("HTTP \(status) (rejected; not retried\(bodyHint(response.body)))")
        }
    }

    /// Seconds to wait from Discord's JSON `retry_after`, or the `Retry-After` header
    /// (delay-seconds or an HTTP-date, relative to the response's `Date` when present).
    static func retryAfter(_ response: HTTPResponse) -> TimeInterval? {
        if let json = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any],
            let value = json["retry_after"] as? NSNumber
        {
            return value.doubleValue
        }
        guard let header = response.header("Retry-After")?.trimmingCharacters(in: .whitespaces) else { return nil }
        if let seconds = Double(header), seconds.isFinite { return seconds }
        guard let when = parseHTTPDate(header) else { return nil }
        let reference = response.header("Date").flatMap(parseHTTPDate)
        guard let reference else { return nil }  // an absolute date needs the server's clock
        return when.timeIntervalSince(reference)
    }

    /// IMF-fixdate, RFC 850 and asctime formats.
    static func parseHTTPDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        for format in ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }

    /// A short server message such as Slack's `invalid_payload`, only when it cannot hold a URL.
    static func bodyHint(_ body: Data) -> String {
        let text = String(decoding: body.prefix(80), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: " _.,:'-"))
        guard !text.isEmpty, body.count <= 80, text.unicodeScalars.allSatisfy(allowed.contains) else { return "" }
        return ": \(text)"
    }

    static func stderrHint(_ stderr: Data) -> String {
        let text = String(decoding: stderr.prefix(200), as: UTF8.self)
            .split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        return text.isEmpty ? "" : ": \(text)"
    }
}
