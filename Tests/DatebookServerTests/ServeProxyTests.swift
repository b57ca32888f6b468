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

    /// The access log names the client a trusted proxy names, and a direct peer by its own address
    /// whatever it claims (a real `serve`; the test's connections come from 127.0.0.1, the proxy, and 127.0.0.2).
    @Test func theAccessLogNamesTheClientBehindATrustedProxyOnly() throws {
        let sandbox = try ServeSecurityTests.guarded(#", trustedProxies: ["127.0.0.1"]"#)
        #expect(try request(sandbox.port, "GET", "/healthz", headers: ["X-Forwarded-For": "198.51.100.7"]).status == 200)
        #expect(try request(sandbox.port, "GET", "/healthz", headers: ["X-Forwarded-For": "203.0.113.5"], source: "127.0.0.2").status == 200)
        #expect(eventually { sandbox.logText.contains("198.51.100.7 GET /healthz 200 ") && sandbox.logText.contains("127.0.0.2 GET /healthz 200 ") },
                "\(sandbox.logText)")
        #expect(!sandbox.logText.contains("203.0.113.5"))
    }

    /// Through a trusted proxy, `perClientConnectionLimit` counts each named client's requests in
    /// flight (the proxy's connections working for it), and the proxy's own connections are not
    /// limited; a direct peer is still limited by its connections.
    @Test func throughATrustedProxyEachClientHasItsOwnLimitAndTheProxyNone() throws {
        let running = try RunningServer {
            $0.trustedProxies = ["127.0.0.1"]
            $0.perClientConnectionLimit = 2
        }
        let first = ["X-Forwarded-For": "198.51.100.7"], second = ["X-Forwarded-For": "198.51.100.8"]
        // Two requests of the first client in flight: their bodies are still to come (no thread is held).
        let held = try (0..<2).map { _ in
            let connection = try RawConnection(port: running.port)
            connection.send("POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Forwarded-For: 198.51.100.7\r\nContent-Length: 4\r\n\r\nab")
            return connection
        }
        #expect(eventually { running.server.clients.holding("198.51.100.7") == 2 })
        let over = try request(running.port, "GET", "/healthz", headers: first)
        #expect(over.status == 429 && over.header("Retry-After") == "1", "\(over.status)")
        #expect(try request(running.port, "GET", "/healthz", headers: second).status == 200)
        // The proxy itself holds more connections than the limit, each answered.
        let proxied = try (0..<5).map { _ in try RawConnection(port: running.port) }
        for connection in proxied {
            connection.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Forwarded-For: 198.51.100.9\r\n\r\n")
            #expect(try connection.readResponse().status == 200)
        }
        for connection in held {
            connection.send("cd")
            #expect(try connection.readResponse().status == 200)
        }
        #expect(eventually { running.server.clients.holding("198.51.100.7") == 0 })
        #expect(try request(running.port, "GET", "/healthz", headers: first).status == 200)
        // A direct peer (127.0.0.2 is no proxy) is held to 2 connections.
        let direct = (0..<4).compactMap { _ in try? RawConnection(port: running.port, source: "127.0.0.2") }
        #expect(eventually { direct.filter { $0.isClosedByPeerNow() }.count >= 2 }, "127.0.0.2 keeps more than 2 connections")
        #expect(running.log.contains { $0.hasPrefix("198.51.100.7 POST /echo 200 ") } && running.log.contains { $0.hasPrefix("198.51.100.7 GET /healthz 429 ") },
                "\(running.log)")
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
