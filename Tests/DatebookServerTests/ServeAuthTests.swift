import Foundation
import Testing

/// A server on 0.0.0.0 (reached through 127.0.0.1) with a token: nothing without it, nothing changed.
@Suite(.serialized) struct ServeAuthTests {
    static let token = "correct-horse-battery-staple"

    static func guarded() throws -> ServeSandbox {
        let sandbox = try ServeSandbox(config: #"{ serve: { token: { env: "DATEBOOK_TOKEN" } } }"#)
        sandbox.environment["DATEBOOK_TOKEN"] = token
        try #require(sandbox.run(["demo"]).status == 0)
        try sandbox.start(listen: "0.0.0.0:0")
        return sandbox
    }

    @Test func anyAddressButLoopbackNeedsAToken() throws {
        let sandbox = try ServeSandbox()
        let run = try sandbox.run(["serve", "--listen", "0.0.0.0:0"])
        #expect(run.status == 64)
        #expect(run.err.contains("refusing to listen on 0.0.0.0:0 without a token") && run.err.contains("serve.token"))
    }

    @Test func withoutTheTokenPagesAskForItAndTheAPIRefuses() throws {
        let sandbox = try Self.guarded()
        let page = try sandbox.get("/")
        #expect(page.status == 401)
        #expect(page.text.contains("<form method=\"post\" action=\"/login\"") && page.text.contains("<label for=\"token\">"))
        #expect(!page.text.contains("Pagliacci"))
        for headers in [[:], ["Authorization": "Bearer wrong"], ["Authorization": "Basic \(Self.token)"], ["Cookie": "datebook_session=guess"]] {
            let api = try sandbox.get("/api/v1/agenda", headers: headers)
            #expect(api.status == 401, "\(headers)")
            #expect(api.text.contains("\"field\": \"Authorization\""))
        }
        #expect(try sandbox.get("/calendar.ics").status == 401)
        #expect(try sandbox.get("/healthz").status == 200)
        #expect(!sandbox.logText.contains(Self.token))
    }

    @Test func aWrongTokenChangesNothing() throws {
        let sandbox = try Self.guarded()
        let id = try #require(firstMatch(#""id": "([0-9a-f]+)", "title": "Pagliacci""#, in: sandbox.run(["list", "--json"]).out))
        let before = try sandbox.run(["list", "--json"]).out
        let patch = try request(sandbox.port, "PATCH", "/api/v1/events/\(id)/tasks/2", headers: ["Authorization": "Bearer nope"],
                                body: Array(#"{"status": "done"}"#.utf8))
        #expect(patch.status == 401)
        let form = try sandbox.post("/events/\(id)/tasks", form: ["text": "sneaked in", "csrf": "x"])
        #expect(form.status == 401)
        #expect(try sandbox.run(["list", "--json"]).out == before)
    }

    @Test func theBearerTokenOpensTheAPI() throws {
        let sandbox = try Self.guarded()
        let api = try sandbox.get("/api/v1/agenda?period=next7", headers: ["Authorization": "Bearer \(Self.token)"])
        #expect(api.status == 200 && api.text.contains("Pagliacci"), "\(api.status) \(api.text.prefix(300)) \(sandbox.logText)")
    }

    @Test func theLoginFormSetsAStrictHttpOnlyCookieThatOpensThePages() throws {
        let sandbox = try Self.guarded()
        let login = try sandbox.get("/login?next=/events/x")
        let csrf = try #require(firstMatch(#"name="csrf" value="([0-9a-f]+)""#, in: login.text))
        let wrong = try sandbox.post("/login", form: ["csrf": csrf, "token": "guess", "next": "/"])
        #expect(wrong.status == 401 && wrong.header("Set-Cookie") == nil && wrong.text.contains("That is not the token."))
        let offsite = try sandbox.post("/login", form: ["csrf": csrf, "token": Self.token, "next": "//evil.example/"])
        #expect(offsite.status == 303 && offsite.header("Location") == "/")
        let right = try sandbox.post("/login", form: ["csrf": csrf, "token": Self.token, "next": "/"])
        let cookie = try #require(right.header("Set-Cookie"))
        #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && !cookie.contains(Self.token))
        let session = String(cookie.split(separator: ";")[0])
        let page = try sandbox.get("/", headers: ["Cookie": session])
        #expect(page.status == 200 && page.text.contains("Pagliacci"))
    }
}
