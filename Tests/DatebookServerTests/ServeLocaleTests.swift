import DatebookTestSupport
import Foundation
import Testing

/// The pages of `datebook serve` in the config's `locale`: every word from the message catalogue.
@Suite(.serialized) struct ServeLocaleTests {
    static let snapshots = GoldenFiles()

    /// The sample planner served with `locale`, `now` and `tz` fixed.
    static func demo(locale: String, config extra: String = "") throws -> ServeSandbox {
        let sandbox = try ServeSandbox(config: "{ locale: \"\(locale)\"\(extra) }")
        try #require(sandbox.run(["demo"]).status == 0)
        try sandbox.start()
        return sandbox
    }

    /// The page with what changes per run (the CSRF value, the port) replaced by names.
    static func stable(_ page: String, _ sandbox: ServeSandbox) throws -> String {
        let csrf = try #require(firstMatch(#"name="csrf" value="([0-9a-f]+)""#, in: page))
        return page.replacingOccurrences(of: csrf, with: "CSRF").replacingOccurrences(of: ":\(sandbox.port)/", with: ":PORT/")
    }

    /// English words the pages used to hard-code; none may show in another language.
    static let english = ["Nothing planned", "Subscribe", "Calendar feed", "Mark done", "Mark not done", "Next 7 Days",
                          "open task", "left<", "To do<", "Doing<", "Done<", "New task", "Add task", "Tasks<", "Repeats", "Open the event"]

    @Test(arguments: [("de_DE", "de-DE", "Nächste 7 Tage"), ("ja_JP", "ja-JP", "今後7日間")])
    func theAgendaSpeaksTheConfiguredLanguage(locale: String, lang: String, next7: String) throws {
        let sandbox = try Self.demo(locale: locale)
        let page = try sandbox.get("/")
        #expect(page.status == 200)
        #expect(page.text.contains("<html lang=\"\(lang)\">") && page.text.contains(next7))
        for word in Self.english { #expect(!page.text.contains(word), "English '\(word)' on the \(locale) agenda") }
        Self.snapshots.expect(try Self.stable(page.text, sandbox), named: "agenda-\(locale).html")

        let id = try #require(firstMatch(#"href="/events/([0-9a-f]+)(?:\?at=[^"]*)?">Camping Trip<"#, in: page.text))
        let event = try sandbox.get("/events/\(id)")
        #expect(event.status == 200 && event.text.contains("<html lang=\"\(lang)\">"))
        for word in Self.english { #expect(!event.text.contains(word), "English '\(word)' on the \(locale) event page") }
        let missing = try sandbox.get("/events/ffffffffffffffff")
        #expect(missing.status == 404 && !missing.text.contains("No such event") && missing.text.contains("<html lang=\"\(lang.prefix(2))\">"))
    }

    @Test func theLoginFormUsesTheCatalogue() throws {
        let sandbox = try Self.demo(locale: "de_DE", config: ", serve: { token: \"s3cret-token-of-enough-length-2026\" }")
        let login = try sandbox.get("/")
        #expect(login.status == 401)
        for text in ["<html lang=\"de\">", ">Token (serve.token in der Konfiguration)</label>", ">Anmelden</button>"] {
            #expect(login.text.contains(text), "no \(text) on the login form")
        }
    }
}
