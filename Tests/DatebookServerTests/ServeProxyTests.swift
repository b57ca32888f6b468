@testable import DatebookServer
import DatebookTestSupport
import Foundation
import Testing

/// `serve.trustedProxies`: behind a reverse proxy, failed logins are counted per client the proxy
/// names, and a peer that is not a trusted proxy is counted under its own address whatever it sends.
@Suite(.serialized) struct ServeProxyTests {
    /// Wrong logins until the first 429; the statuses seen.
    static func guess(_ sandbox: ServeSandbox, csrf: String, times: Int, source: String, forwarded: (Int) -> [String: String]) throws -> [Int] {
        try (0..<times).map { n in
            try sandbox.post("/login", form: ["csrf": csrf, "token": "guess-\(n)", "next": "/"], headers: forwarded(n), source: source).status
        }
    }

    @Test func twoClientsBehindATrustedProxyHaveTheirOwnFailureCounts() throws {
        let sandbox = try ServeSecurityTests.guarded(#", trustedProxies: ["127.0.0.1"]"#)
        let csrf = try #require(firstMatch(#"name="csrf" value="([0-9a-f]+)""#, in: sandbox.get("/login").text))
        let first = try Self.guess(sandbox, csrf: csrf, times: 12, source: "127.0.0.1") { _ in ["X-Forwarded-For": "198.51.100.7"] }
        #expect(first.last == 429, "\(first)")
        // The second client, named by the other header form, has failed nothing yet.
        let second = try sandbox.post("/login", form: ["csrf": csrf, "token": ServeSecurityTests.token, "next": "/"],
                                      headers: ["Forwarded": #"for="[2001:db8::2]:4711";proto=https"#])
        #expect(second.status == 303 && second.header("Set-Cookie") != nil, "\(second.status)")
        let firstAgain = try sandbox.post("/login", form: ["csrf": csrf, "token": ServeSecurityTests.token, "next": "/"],
                                          headers: ["X-Forwarded-For": "198.51.100.7"])
        #expect(firstAgain.status == 429)
    }

    @Test func aForgedHeaderFromAnUntrustedPeerChangesNothing() throws {
        let sandbox = try ServeSecurityTests.guarded(#", trustedProxies: ["127.0.0.1"]"#)
        let csrf = try #require(firstMatch(#"name="csrf" value="([0-9a-f]+)""#, in: sandbox.get("/login").text))
        // 127.0.0.2 is no proxy: a new forged address per request still counts under 127.0.0.2.
        let forged = try Self.guess(sandbox, csrf: csrf, times: 12, source: "127.0.0.2") { ["X-Forwarded-For": "203.0.113.\($0)"] }
        #expect(forged.last == 429, "\(forged)")
        // … and naming another client's address from there does not hold that client back.
        _ = try Self.guess(sandbox, csrf: csrf, times: 6, source: "127.0.0.2") { _ in ["Forwarded": "for=198.51.100.9"] }
        let named = try sandbox.post("/login", form: ["csrf": csrf, "token": ServeSecurityTests.token, "next": "/"],
                                     headers: ["Forwarded": "for=198.51.100.9"])
        #expect(named.status == 303)
    }

    @Test(arguments: [
        ("10.0.0.9", ["x-forwarded-for": "198.51.100.7"], "10.0.0.9"),
        ("127.0.0.1", ["x-forwarded-for": "198.51.100.7"], "198.51.100.7"),
        ("127.0.0.1", ["x-forwarded-for": "6.6.6.6, 198.51.100.7, 127.0.0.1"], "198.51.100.7"),
        ("127.0.0.1", ["forwarded": #"for=6.6.6.6, for="[2001:DB8::1]:80";by=x"#], "2001:db8::1"),
        ("127.0.0.1", ["forwarded": "for=198.51.100.7:4711", "x-forwarded-for": "6.6.6.6"], "198.51.100.7"),
        ("::ffff:127.0.0.1", ["x-forwarded-for": "198.51.100.7"], "198.51.100.7"),
        ("127.0.0.1", [:], "127.0.0.1"),
        ("127.0.0.1", ["x-forwarded-for": "127.0.0.1"], "127.0.0.1"),
    ])
    func theClientIsTheRightmostAddressNotATrustedProxy(peer: String, headers: [String: String], client: String) {
        #expect(ForwardedClient(trustedProxies: ["127.0.0.1"]).client(peer: peer, headers: headers) == client)
    }
}
