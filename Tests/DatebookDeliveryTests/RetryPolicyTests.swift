import Foundation
import DatebookTestSupport
import Testing

@testable import DatebookDelivery

@Suite struct RetryPolicyTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    static let policy = RetryPolicy(baseDelay: 10, maxDelay: 300, maxAttempts: 5, deadline: 3600)

    static func http(_ status: Int, _ headers: [(String, String)] = [], body: String = "") -> DeliveryOutcome {
        .http(HTTPResponse(status: status, headers: headers.map { .init($0.0, $0.1) }, body: Data(body.utf8)))
    }

    static func transport(_ kind: TransportError.Kind) -> DeliveryOutcome {
        .transport(TransportError(kind: kind, destination: "https://hooks.slack.com/****"))
    }

    static func command(_ code: Int32, timedOut: Bool = false) -> DeliveryOutcome {
        .command(CommandResult(termination: .exited(code), stdout: Data(), stderr: Data(), timedOut: timedOut))
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var attempt: Int
        var outcome: DeliveryOutcome
        var random: Double = 0.5
        var expected: RetryDecision
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "2xx delivered", attempt: 1, outcome: http(204), expected: .delivered),
        Case(name: "smtp accepted", attempt: 1, outcome: .accepted, expected: .delivered),
        Case(name: "exit 0 delivered", attempt: 1, outcome: command(0), expected: .delivered),
        Case(name: "500 first attempt: full jitter of 10 s window", attempt: 1, outcome: http(500), random: 0.5, expected: .retry(at: t0 + 5)),
        Case(name: "503 third attempt: window 40 s", attempt: 3, outcome: http(503), random: 0.25, expected: .retry(at: t0 + 10)),
        Case(name: "window capped at maxDelay", attempt: 4, outcome: http(502), random: 0.999, expected: .retry(at: t0 + 79.92)),
        Case(name: "jitter floor of 1 s", attempt: 1, outcome: http(500), random: 0, expected: .retry(at: t0 + 1)),
        Case(name: "429 Retry-After seconds", attempt: 1, outcome: http(429, [("Retry-After", "120")]), expected: .retry(at: t0 + 120)),
        Case(name: "503 Retry-After HTTP-date", attempt: 1,
             outcome: http(503, [("Date", "Wed, 15 Jan 2027 08:00:00 GMT"), ("Retry-After", "Wed, 15 Jan 2027 08:01:30 GMT")]),
             expected: .retry(at: t0 + 90)),
        Case(name: "Discord JSON retry_after fractional", attempt: 1,
             outcome: http(429, [("Retry-After", "2")], body: #"{"message":"You are being rate limited.","retry_after":1.5,"global":false}"#),
             expected: .retry(at: t0 + 1.5)),
        Case(name: "408 retried", attempt: 2, outcome: http(408), random: 0.5, expected: .retry(at: t0 + 10)),
        Case(name: "404 permanent", attempt: 1, outcome: http(404), expected: .failed(reason: "HTTP 404 (webhook deleted?)")),
        Case(name: "401 permanent", attempt: 1, outcome: http(401), expected: .failed(reason: "HTTP 401 (check the token)")),
        Case(name: "400 with Slack reason", attempt: 1, outcome: http(400, body: "invalid_payload"),
             expected: .failed(reason: "HTTP 400 (payload rejected: invalid_payload)")),
        Case(name: "400 body with URL not echoed", attempt: 1, outcome: http(400, body: "bad https://x/SECRET"),
             expected: .failed(reason: "HTTP 400 (payload rejected)")),
        Case(name: "301 permanent", attempt: 1, outcome: http(301), expected: .failed(reason: "HTTP 301 (unexpected redirect; check the URL)")),
        Case(name: "timeout retried", attempt: 1, outcome: transport(.timedOut), random: 0.5, expected: .retry(at: t0 + 5)),
        Case(name: "TLS permanent", attempt: 1, outcome: transport(.tlsFailed),
             expected: .failed(reason: "https://hooks.slack.com/****: TLS failed (certificate not trusted or TLS unavailable; check the server's certificate, or give the channel a caFile)")),
        Case(name: "max attempts", attempt: 5, outcome: http(500), expected: .failed(reason: "HTTP 500 (server error); gave up after 5 attempts")),
        Case(name: "Retry-After beyond deadline", attempt: 1, outcome: http(429, [("Retry-After", "7200")]),
             expected: .failed(reason: "HTTP 429 (rate limited); next retry would pass the delivery deadline")),
        Case(name: "Retry-After within the deadline honoured", attempt: 4, outcome: http(503, [("Retry-After", "3000")]),
             expected: .retry(at: t0 + 3000)),
        Case(name: "exit 75 retried", attempt: 1, outcome: command(75), random: 0.5, expected: .retry(at: t0 + 5)),
        Case(name: "command timeout retried", attempt: 1, outcome: command(0, timedOut: true), random: 0.5, expected: .retry(at: t0 + 5)),
        Case(name: "exit 2 permanent", attempt: 1, outcome: command(2), expected: .failed(reason: "command exit status 2")),
    ]

    @Test(arguments: cases)
    func decision(_ example: Case) {
        let decision = Self.policy.decide(
            attempt: example.attempt, outcome: example.outcome, firstAttempt: Self.t0, now: Self.t0, random: { example.random })
        switch (decision, example.expected) {
        case (.retry(let at), .retry(let expected)):
            #expect(abs(at.timeIntervalSince(expected)) < 0.001, "\(example.name)")
        default:
            #expect(decision == example.expected, "\(example.name)")
        }
    }

    @Test func deadlineCountsFromFirstAttempt() {
        let decision = Self.policy.decide(
            attempt: 2, outcome: Self.http(500), firstAttempt: Self.t0, now: Self.t0 + 3599, random: { 0.5 })
        #expect(decision == .failed(reason: "HTTP 500 (server error); next retry would pass the delivery deadline"))
    }

    @Test func aBackoffThatWouldPassTheDeadlineRetriesAtTheDeadlineThenGivesUp() {
        let last = Self.policy.decide(attempt: 4, outcome: Self.http(500), firstAttempt: Self.t0, now: Self.t0 + 3550, random: { 0.999 })
        #expect(last == .retry(at: Self.t0 + 3600))
        let after = Self.policy.decide(attempt: 4, outcome: Self.http(500), firstAttempt: Self.t0, now: Self.t0 + 3600, random: { 0.999 })
        #expect(after == .failed(reason: "HTTP 500 (server error); next retry would pass the delivery deadline"))
    }

    /// The defaults: no attempt limit, windows doubling from 30 s up to 30 min.
    @Test func theDefaultPolicyRetriesAtLeastEveryHalfHourUntilItsDeadline() {
        let policy = RetryPolicy(deadline: 6 * 3600)
        var now = Self.t0
        var attempt = 1
        var gaps: [TimeInterval] = []
        while case .retry(let at) = policy.decide(attempt: attempt, outcome: Self.http(500), firstAttempt: Self.t0, now: now,
                                                   random: { 0.999 }) {
            gaps.append(at.timeIntervalSince(now))
            now = at
            attempt += 1
        }
        #expect(now == Self.t0 + 6 * 3600)
        #expect(gaps.max() ?? 0 <= 1800)
        #expect(attempt > 8)
    }

    @Test func liveSinkRateLimitFeedsThePolicy() throws {
        let sink = try TestServer(script: "http_sink.py")
        defer { sink.stop() }
        let result = HTTPClient().perform(HTTPRequest(url: "\(sink.baseURL)/discord429?retry_after=2.25"))
        let response = try result.get()
        let decision = Self.policy.decide(attempt: 1, outcome: .http(response), firstAttempt: Self.t0, now: Self.t0, random: { 0 })
        #expect(decision == .retry(at: Self.t0 + 2.25))
    }
}
