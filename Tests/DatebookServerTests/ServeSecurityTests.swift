import DatebookTestSupport
import Foundation
import Testing

/// The attacks of issue 32 against a real `datebook serve`, over real HTTP on 127.0.0.1.
@Suite(.serialized) struct ServeSecurityTests {
    static let token = "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZg"

    static func guarded(_ extra: String = "") throws -> ServeSandbox {
        let sandbox = try ServeSandbox(config: #"{ serve: { token: { env: "DATEBOOK_TOKEN" }"# + extra + " } }")
        sandbox.environment["DATEBOOK_TOKEN"] = token
        try #require(sandbox.run(["demo"]).status == 0)
        try sandbox.start()
        return sandbox
    }

    /// Signs in through the form; the session cookie (`datebook_session=…`).
    static func login(_ sandbox: ServeSandbox) throws -> String {
        let csrf = try #require(firstMatch(#"name="csrf" value="([0-9a-f]+)""#, in: sandbox.get("/login").text))
        let right = try sandbox.post("/login", form: ["csrf": csrf, "token": token, "next": "/"])
        return String(try #require(right.header("Set-Cookie")).split(separator: ";")[0])
    }

    // MARK: DNS rebinding

    @Test func aRebindingPageNeitherReadsNorChangesThePlanner() throws {
        let sandbox = try ServePagesTests.demo()
        let id = try ServeAPITests.pagliacci(sandbox)
        let before = try sandbox.run(["list", "--json"]).out
        let read = try rawRequest(sandbox.port, "GET /api/v1/agenda HTTP/1.1\r\nHost: rebind.attacker.example:8651\r\nConnection: close\r\n\r\n")
        #expect(read.status == 421 && !read.text.contains("Pagliacci"))
        let body = #"{"status": "done"}"#
        let write = try rawRequest(sandbox.port, "PATCH /api/v1/events/\(id)/tasks/2 HTTP/1.1\r\nHost: rebind.attacker.example:8651\r\n"
                                   + "Origin: http://rebind.attacker.example:8651\r\nX-Datebook-CSRF: 1\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body)
        #expect(write.status == 421)
        let foreignOrigin = try request(sandbox.port, "PATCH", "/api/v1/events/\(id)/tasks/2",
                                        headers: ["Origin": "http://attacker.example", "X-Datebook-CSRF": "1"], body: Array(body.utf8))
        #expect(foreignOrigin.status == 403, "a foreign Origin changes nothing even on loopback")
        let noHeader = try request(sandbox.port, "PATCH", "/api/v1/events/\(id)/tasks/2", body: Array(body.utf8))
        #expect(noHeader.status == 403 && noHeader.text.contains("X-Datebook-CSRF"), "a write without the token or the CSRF header")
        #expect(try sandbox.run(["list", "--json"]).out == before)
        let own = try request(sandbox.port, "PATCH", "/api/v1/events/\(id)/tasks/2",
                              headers: ["Origin": "http://127.0.0.1:\(sandbox.port)", "X-Datebook-CSRF": "1"], body: Array(body.utf8))
        #expect(own.status == 200, "the page's own origin with the header may write")
    }

    @Test func theFeedLinkNeverComesFromTheRequestsHost() throws {
        let sandbox = try ServePagesTests.demo()
        let page = try rawRequest(sandbox.port, "GET / HTTP/1.1\r\nHost: localhost:\(sandbox.port)\r\nConnection: close\r\n\r\n")
        #expect(page.status == 200)
        #expect(page.text.contains("webcal://127.0.0.1:\(sandbox.port)/calendar.ics") && !page.text.contains("webcal://localhost"))
    }

    // MARK: tokens, failures, sessions

    @Test func aWeakTokenIsRefusedWithAHint() throws {
        for weak in ["x", " ", "password123"] {
            let sandbox = try ServeSandbox(config: #"{ serve: { token: { env: "DATEBOOK_TOKEN" } } }"#)
            sandbox.environment["DATEBOOK_TOKEN"] = weak
            let run = try sandbox.run(["serve", "--listen", "127.0.0.1:0"])
            #expect(run.status == 64, "'\(weak)'")
            #expect(run.err.contains("serve.token is too weak") && run.err.contains("openssl rand -base64 32") && !run.err.contains(weak + " "), "\(run.err)")
        }
    }

    @Test func doctorChecksTheTokenItsFileAndPlainHTTPOffLoopback() throws {
        let sandbox = try ServeSandbox()
        let file = sandbox.directory + "/token"
        try "hunter2".write(toFile: file, atomically: true, encoding: .utf8)
        chmod(file, 0o644)
        try #"{ serve: { listen: "0.0.0.0:8650", token: { file: "\#(file)" }, feedToken: "f33d" } }"#.write(toFile: sandbox.config, atomically: true, encoding: .utf8)
        let run = try sandbox.run(["doctor"])
        #expect(run.status == 65)
        for text in ["fail  serve: serve.token is too weak", "openssl rand -base64 32", "warn  serve: serve.token's file \(file) is readable by others (mode 644)",
                     "warn  serve: serve listens on 0.0.0.0:8650 over plain HTTP", "warn  serve: serve.feedToken is too weak"] {
            #expect(run.out.contains(text), "no '\(text)' in:\n\(run.out)")
        }
        #expect(!run.out.contains("hunter2"))
        try Self.token.write(toFile: file, atomically: true, encoding: .utf8)
        chmod(file, 0o600)
        try #"{ serve: { listen: "127.0.0.1:8650", token: { file: "\#(file)" } } }"#.write(toFile: sandbox.config, atomically: true, encoding: .utf8)
        let fixed = try sandbox.run(["doctor"]).out
        #expect(fixed.contains("ok    serve: serve.token") && !fixed.contains("warn  serve") && !fixed.contains("fail  serve"), "\(fixed)")
    }

    @Test func wrongLoginsAreHeldBackThen429EvenForTheRightToken() throws {
        let sandbox = try Self.guarded()
        let csrf = try #require(firstMatch(#"name="csrf" value="([0-9a-f]+)""#, in: sandbox.get("/login").text))
        var statuses: [Int] = []
        for n in 0..<40 {
            statuses.append(try sandbox.post("/login", form: ["csrf": csrf, "token": "guess-\(n)", "next": "/"]).status)
        }
        #expect(statuses.prefix(5).allSatisfy { $0 == 401 } && statuses.filter { $0 == 429 }.count >= 30, "\(statuses)")
        let right = try sandbox.post("/login", form: ["csrf": csrf, "token": Self.token, "next": "/"])
        #expect(right.status == 429 && right.header("Set-Cookie") == nil && Int(right.header("Retry-After") ?? "") != nil)
        let api = try sandbox.get("/api/v1/agenda", headers: ["Authorization": "Bearer \(Self.token)"])
        #expect(api.status == 429 && api.header("Retry-After") != nil, "the API's bearer token shares the hold-back")
    }

    @Test func guessingTheFeedTokenIsHeldBackToo() throws {
        let sandbox = try Self.guarded(", feedToken: \"f33d-t0ken-2b7e151628aed2a6abf7158809cf4f3c\"")
        let statuses = try (0..<20).map { try sandbox.get("/feeds/guess-\($0)/calendar.ics").status }
        #expect(statuses.prefix(5).allSatisfy { $0 == 404 } && statuses.filter { $0 == 429 }.count >= 12, "\(statuses)")
        #expect(try sandbox.get("/calendar.ics?token=guess").status == 429)
    }

    @Test func eachLoginHasItsOwnSessionAndCSRFAndLogoutEndsIt() throws {
        let sandbox = try Self.guarded()
        let first = try Self.login(sandbox), second = try Self.login(sandbox)
        #expect(first != second)
        let firstPage = try sandbox.get("/", headers: ["Cookie": first]), secondPage = try sandbox.get("/", headers: ["Cookie": second])
        let firstCSRF = try #require(firstMatch(#"name="csrf" value="([0-9a-f]+)""#, in: firstPage.text))
        let secondCSRF = try #require(firstMatch(#"name="csrf" value="([0-9a-f]+)""#, in: secondPage.text))
        #expect(firstCSRF != secondCSRF)
        #expect(firstPage.text.contains(#"<form method="post" action="/logout" class="logout"><input type="hidden" name="csrf" value="\#(firstCSRF)">"#))
        let id = try ServeAPITests.pagliacci(sandbox)
        let crossed = try sandbox.post("/events/\(id)/tasks", form: ["csrf": firstCSRF, "text": "crossed"], headers: ["Cookie": second])
        #expect(crossed.status == 403, "one session's CSRF value does not open another's forms")
        let own = try sandbox.post("/events/\(id)/tasks", form: ["csrf": secondCSRF, "text": "own"], headers: ["Cookie": second])
        #expect(own.status == 303)
        let cookie = try sandbox.post("/login", form: ["csrf": try #require(firstMatch(#"name="csrf" value="([0-9a-f]+)""#, in: sandbox.get("/login").text)),
                                                        "token": Self.token, "next": "/"]).header("Set-Cookie") ?? ""
        #expect(cookie.contains("Max-Age=43200") && cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
        let logout = try sandbox.post("/logout", form: ["csrf": firstCSRF], headers: ["Cookie": first])
        #expect(logout.status == 303 && logout.header("Set-Cookie")?.contains("Max-Age=0") == true)
        #expect(try sandbox.get("/", headers: ["Cookie": first]).status == 401)
        #expect(try sandbox.get("/", headers: ["Cookie": second]).status == 200, "another session lives on")
    }

    @Test(arguments: [["Origin": "https://attacker.example"], ["Origin": "null"], ["Sec-Fetch-Site": "cross-site"], ["Sec-Fetch-Site": "same-site"]])
    func aFormFromAnotherSiteChangesNothing(headers: [String: String]) throws {
        let sandbox = try ServePagesTests.demo()
        let id = try ServeAPITests.pagliacci(sandbox)
        let before = try sandbox.run(["list", "--json"]).out
        let csrf = try #require(firstMatch(#"name="csrf" value="([0-9a-f]+)""#, in: sandbox.get("/events/\(id)").text))
        let response = try sandbox.post("/events/\(id)/tasks", form: ["csrf": csrf, "text": "sneaked in"], headers: headers)
        #expect(response.status == 403, "\(headers)")
        #expect(try sandbox.run(["list", "--json"]).out == before)
        let same = try sandbox.post("/events/\(id)/tasks", form: ["csrf": csrf, "text": "from the page"],
                                    headers: ["Origin": "http://127.0.0.1:\(sandbox.port)", "Sec-Fetch-Site": "same-origin"])
        #expect(same.status == 303)
    }

    // MARK: the listener and the log

    @Test func aSecondServeOnABusyPortFailsNamingTheFirstsPid() throws {
        let sandbox = try ServePagesTests.demo()
        let pid = try #require(sandbox.server?.processIdentifier)
        let second = try sandbox.run(["serve", "--listen", "127.0.0.1:\(sandbox.port)"])
        #expect(second.status == 69)
        #expect(second.err.contains("address in use by pid \(pid)"), "\(second.err)")
        #expect(try sandbox.get("/healthz").status == 200)
    }

    @Test func theFeedTokenNeverReachesTheLogAndTheLogCanBeOff() throws {
        let feedToken = "f33d-t0ken-2b7e151628aed2a6abf7158809cf4f3c"
        let sandbox = try Self.guarded(", feedToken: \"\(feedToken)\"")
        #expect(try sandbox.get("/feeds/\(feedToken)/calendar.ics").status == 200)
        #expect(try sandbox.get("/feeds/\(feedToken)x/calendar.ics").status == 404)
        #expect(!sandbox.logText.contains(feedToken) && sandbox.logText.contains("GET /feeds/****/calendar.ics 200 "), "\(sandbox.logText)")
        let quiet = try ServeSandbox(config: "{ serve: { accessLog: false } }")
        try quiet.start()
        #expect(try quiet.get("/healthz").status == 200)
        #expect(!quiet.logText.contains("GET /healthz"))
    }

    // MARK: the feed

    /// A WAL checkpoint and a write that changes nothing leave the feed's bytes and tag as they were.
    @Test func theFeedFollowsThePlannerNotTheStoresFiles() throws {
        let sandbox = try ServeAPITests.demoWithAlert()
        let first = try sandbox.get("/calendar.ics")
        let etag = try #require(first.header("ETag"))
        #expect(etag.hasPrefix("W/\""))
        #expect(first.header("Last-Modified") != nil)
        let python = try #require(TestPython.executable)
        for statement in ["UPDATE events SET title = title", "PRAGMA wal_checkpoint(TRUNCATE)"] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: python)
            process.arguments = ["-c", "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute(sys.argv[2]); c.commit(); c.close()",
                                 sandbox.store, statement]
            try process.run()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "\(statement)")
            let again = try sandbox.get("/calendar.ics")
            #expect(again.header("ETag") == etag && again.body == first.body, "after \(statement)")
        }
        try #require(sandbox.run(["task", "done", "Pagliacci", "2"]).status == 0)
        let changed = try sandbox.get("/calendar.ics")
        #expect(changed.header("ETag") != etag && changed.body != first.body)
    }

    @Test func a304HasTheContentLengthOfThe200AndWeakTagsStarAndDatesMatch() throws {
        let sandbox = try ServeAPITests.demoWithAlert()
        let first = try sandbox.get("/calendar.ics")
        let etag = try #require(first.header("ETag")), modified = try #require(first.header("Last-Modified"))
        let strong = String(etag.dropFirst(2))
        for headers in [["If-None-Match": etag], ["If-None-Match": strong], ["If-None-Match": "\"other\", " + etag], ["If-None-Match": "*"],
                        ["If-Modified-Since": modified]] {
            let response = try sandbox.get("/calendar.ics", headers: headers)
            #expect(response.status == 304, "\(headers)")
            #expect(response.header("Content-Length") == String(first.body.count), "\(headers): a 304 with Content-Length \(response.header("Content-Length") ?? "none")")
            #expect(response.header("Transfer-Encoding") == nil, "\(headers)")
            #expect(response.body.isEmpty && response.header("ETag") == etag && response.header("Last-Modified") == modified)
        }
        #expect(try sandbox.get("/calendar.ics", headers: ["If-None-Match": "W/\"other\""]).status == 200)
        #expect(try sandbox.get("/calendar.ics", headers: ["If-Modified-Since": "Thu, 01 Jan 2004 00:00:00 GMT"]).status == 200)
    }

    /// Read off the socket: each 304 is its head alone (no `0` chunk, no `Content-Length: 0`), and the
    /// connection carries the next request.
    @Test func a304KeepsTheConnectionAndSendsOnlyItsHead() throws {
        let sandbox = try ServeAPITests.demoWithAlert()
        let first = try sandbox.get("/calendar.ics")
        let etag = try #require(first.header("ETag"))
        let connection = try RawConnection(port: sandbox.port)
        let conditional = "GET /calendar.ics HTTP/1.1\r\nHost: 127.0.0.1:\(sandbox.port)\r\nIf-None-Match: \(etag)\r\n\r\n"
        #expect(connection.send(conditional + conditional))
        var bytes: [UInt8] = []
        let separator = Array("\r\n\r\n".utf8)
        func heads() -> Int { bytes.indices.dropLast(3).filter { Array(bytes[$0..<$0 + 4]) == separator }.count }
        while heads() < 2 {
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = recv(connection.fd, &buffer, buffer.count, 0)
            try #require(count > 0, "the connection closed after \(heads()) of two 304s: \(String(decoding: bytes, as: UTF8.self))")
            bytes += buffer.prefix(count)
        }
        let text = String(decoding: bytes, as: UTF8.self)
        let responses = text.components(separatedBy: "\r\n\r\n")
        #expect(responses.count == 3 && responses[2].isEmpty, "bytes after the second head: \(responses.last ?? "")")
        for head in responses.prefix(2) {
            let lines = head.components(separatedBy: "\r\n")
            #expect(lines.first == "HTTP/1.1 304 Not Modified", "\(head)")
            #expect(lines.filter { $0.lowercased().hasPrefix("content-length:") } == ["Content-Length: \(first.body.count)"], "\(head)")
            #expect(!lines.contains { $0.lowercased().hasPrefix("transfer-encoding:") || $0.lowercased() == "connection: close" }, "\(head)")
        }
        // The same connection answers a third request, a full 200.
        #expect(connection.send("GET /calendar.ics HTTP/1.1\r\nHost: 127.0.0.1:\(sandbox.port)\r\nConnection: close\r\n\r\n"))
        let third = try connection.readResponse()
        #expect(third.status == 200 && third.body == first.body)
    }

    @Test func withATokenAndNoFeedTokenThePageOffersAWorkingSecretLink() throws {
        let sandbox = try Self.guarded()
        let page = try sandbox.get("/", headers: ["Cookie": try Self.login(sandbox)])
        let path = try #require(firstMatch(#"webcal://127\.0\.0\.1:[0-9]+(/feeds/[0-9a-f]{64}/calendar\.ics)"#, in: page.text), "\(page.text)")
        #expect(page.text.contains("anyone who has it can read the whole planner"))
        let feed = try sandbox.get(path)
        #expect(feed.status == 200 && feed.text.hasPrefix("BEGIN:VCALENDAR"))
        #expect(try sandbox.get("/calendar.ics").status == 401)
        sandbox.stop()
        try sandbox.start()
        #expect(try sandbox.get(path).status == 200, "the link outlives a restart")
    }
}
