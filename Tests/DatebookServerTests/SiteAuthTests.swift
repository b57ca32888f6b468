@testable import DatebookServer
import Foundation
import Testing

struct SiteAuthTests {
    @Test(arguments: [
        ("/", "/"), ("/events/ab12", "/events/ab12"), ("/?a=1&b=2", "/?a=1&b=2"),
        ("//evil.example/", "/"), ("/\\evil.example", "/"), ("/\t/evil.example", "/"), ("/\n/evil.example", "/"),
        ("https://evil.example/", "/"), ("evil.example", "/"), ("", "/"), ("/ /x", "/"), ("/événement", "/"),
    ])
    func aFormsNextIsAlwaysAPathOnThisServer(next: String, expected: String) {
        #expect(SiteAuth.localPath(next) == expected)
    }

    @Test func withoutATokenEveryoneIsAuthorizedAndWithOneOnlyTheBearerOrTheSession() {
        #expect(SiteAuth(token: nil, secureCookie: false).isAuthorized(WebRequest(method: "GET", path: "/")))
        let auth = SiteAuth(token: "t0ken", secureCookie: false)
        #expect(!auth.isAuthorized(WebRequest(method: "GET", path: "/")))
        #expect(auth.isAuthorized(WebRequest(method: "GET", path: "/", headers: ["Authorization": "Bearer t0ken"])))
        #expect(!auth.isAuthorized(WebRequest(method: "GET", path: "/", headers: ["Authorization": "Bearer t0ke"])))
        #expect(!auth.isAuthorized(WebRequest(method: "GET", path: "/", headers: ["Cookie": "datebook_session=t0ken"])))
        let session = auth.sessions.start(now: Date(), lifetime: 60)
        #expect(auth.isAuthorized(WebRequest(method: "GET", path: "/", headers: ["Cookie": "a=b; datebook_session=\(session.id)"])))
        #expect(session.csrf.count == 64 && session.id != session.csrf && session.csrf != auth.anonymousCSRF)
    }

    @Test func aSessionEndsAtItsExpiryAndEachLoginHasItsOwn() {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let table = SessionTable()
        let first = table.start(now: start, lifetime: 3600), second = table.start(now: start, lifetime: 3600)
        #expect(first.id != second.id && first.csrf != second.csrf)
        #expect(table.find(first.id, now: start.addingTimeInterval(3599)) == first)
        #expect(table.find(first.id, now: start.addingTimeInterval(3600)) == nil)
        table.end(second.id)
        #expect(table.find(second.id, now: start) == nil)
    }

    @Test func failuresHoldAClientBackForTwiceAsLongEachTimeAndASuccessClearsThem() {
        let limiter = FailureLimiter(free: 2, longest: 8)
        let t = Date(timeIntervalSince1970: 1_800_000_000)
        limiter.failed("10.0.0.1", now: t)
        limiter.failed("10.0.0.1", now: t)
        #expect(limiter.retryAfter("10.0.0.1", now: t) == nil, "the free failures cost nothing")
        var waits: [Int] = []
        for n in 0..<5 {
            let now = t.addingTimeInterval(Double(n) * 100)
            limiter.failed("10.0.0.1", now: now)
            waits.append(limiter.retryAfter("10.0.0.1", now: now) ?? 0)
        }
        #expect(waits == [1, 2, 4, 8, 8])
        #expect(limiter.retryAfter("10.0.0.2", now: t.addingTimeInterval(400)) == nil, "another client is not held back")
        #expect(limiter.retryAfter("10.0.0.1", now: t.addingTimeInterval(408.5)) == nil)
        limiter.succeeded("10.0.0.1")
        limiter.failed("10.0.0.1", now: t.addingTimeInterval(500))
        #expect(limiter.retryAfter("10.0.0.1", now: t.addingTimeInterval(500)) == nil)
    }

    @Test(arguments: [
        ("x", false), (" ", false), ("correct horse", false), (String(repeating: "ab", count: 10), false),
        ("0123456789abcdef0123456789abcdef", true), ("Zm9vYmFyYmF6cXV4MTIzNDU2", true), ("s3cret-token-of-enough-length-2026", true),
    ])
    func tokensUnder128BitsAreWeak(token: String, strong: Bool) {
        #expect((TokenStrength.weakness(token, key: "serve.token") == nil) == strong, "\(token): \(TokenStrength.bits(token)) bits")
    }

    @Test(arguments: [
        ("127.0.0.1:8650", true), ("localhost:8650", true), ("LOCALHOST.", true), ("[::1]:8650", true), ("127.8.9.10", true),
        ("planner.example.org", true), (nil, true),
        ("rebind.attacker.example:8651", false), ("10.0.0.5:8650", false), ("127.0.0.1.attacker.example", false), ("localhost.attacker.example", false),
    ] as [(String?, Bool)])
    func onlyLoopbackNamesTheListenAddressAndTheBaseURLHostAreAnswered(host: String?, accepted: Bool) {
        let names = HostNames(listen: ListenAddress(host: "127.0.0.1", port: 8650), names: ["planner.example.org"])
        #expect(names.accepts(host) == accepted, "\(host ?? "no Host")")
        #expect(HostNames(listen: ListenAddress(host: "0.0.0.0", port: 8650), names: []).accepts("10.0.0.5:8650"), "a wildcard listener answers any numeric address")
    }
}
