import Foundation
import Testing

/// Events made, changed and removed from the pages, over real HTTP, checked with the command line
/// reading the store back (`datebook list`/`show`).
@Suite(.serialized) struct ServeEventFormTests {
    static func sandbox(config: String = "{}") throws -> (ServeSandbox, csrf: String) {
        let sandbox = try ServeSandbox(config: config)
        try #require(sandbox.run(["demo"]).status == 0)
        try sandbox.start()
        let page = try sandbox.get("/events/new")
        #expect(page.status == 200)
        return (sandbox, try #require(firstMatch(#"name="csrf" value="([0-9a-f]+)""#, in: page.text)))
    }

    static let newEvent = ["title": "Dentist", "start": "2026-12-02 09:00", "end": "2026-12-02 10:00", "timeZone": "Europe/Berlin",
                           "color": "red", "symbol": "", "location": "Praxis Dr. Who", "url": "https://example.org/dentist",
                           "alerts": "1d, 1h", "recurrence": "", "until": "", "count": "", "notes": "Bring the card",
                           "tasks": "Call ahead\r\nFind the card", "occurrence": ""]

    /// The id in a 303's `Location: /events/ID`.
    static func createdID(_ response: RawResponse) throws -> String {
        #expect(response.status == 303, "\(response.text)")
        return try #require(response.header("Location").flatMap { firstMatch("^/events/([0-9a-f]+)$", in: $0) })
    }

    @Test func theNewEventFormMakesAnEventTheCommandLineShows() throws {
        let (sandbox, csrf) = try Self.sandbox()
        let id = try Self.createdID(try sandbox.post("/events", form: Self.newEvent.merging(["csrf": csrf]) { $1 }))
        let shown = try sandbox.run(["show", id]).out
        for text in ["Dentist", "Wed 2026-12-02 09:00 – Wed 2026-12-02 10:00", "Europe/Berlin", "color red", "Praxis Dr. Who",
                     "https://example.org/dentist", "1d, 1h before", "Bring the card", "[ ] Call ahead", "[ ] Find the card"] {
            #expect(shown.contains(text), "show lacks \(text):\n\(shown)")
        }
        let page = try sandbox.get("/events/\(id)")
        for text in ["Where: Praxis Dr. Who", "<a href=\"https://example.org/dentist\" rel=\"noopener noreferrer\">", "Wed, Dec 2 9:00"] {
            #expect(page.text.contains(text), "the event page lacks \(text)")
        }
        #expect(try sandbox.get("/").text.contains("href=\"/events/\(id)?at=2026-12-02T08:00:00Z\">Dentist<"))
    }

    /// Each refused value: 400, the form again with what was typed, the message beside the field
    /// (the command line's, with the page's field names), and nothing stored.
    @Test(arguments: [
        ("start", "tomorow 9am", "cannot read time &quot;tomorow 9am&quot;: &quot;tomorow&quot; is not a date, time or day word (did you mean 'tomorrow'?)"),
        ("start", "2027-03-28 02:30", "&quot;02:30&quot; is not a time on the clock in Europe/Berlin on 2027-03-28: it goes from 02:00 "
            + "straight to 03:00 (did you mean '2027-03-28 03:30'?)"),
        ("end", "2026-12-01 09:00", "Ends '2026-12-01 09:00' is before the start; give an end after Starts"),
        ("color", "blu", "unknown color 'blu'"),
        ("alerts", "1 day", "cannot read alert lead time '1'"),
        ("recurrence", "fortnightly", "Repeats 'fortnightly': expected daily, weekly"),
        ("count", "0", "Times expects a whole number of at least 1"),
        ("url", "javascript:alert(1)", "Link: "),
        ("timeZone", "Mars/Olympus", "unknown time zone 'Mars/Olympus'"),
        ("title", " ", "Title is empty"),
    ])
    func aRefusedFieldIsShownBesideItAndNothingIsStored(field: String, value: String, message: String) throws {
        let (sandbox, csrf) = try Self.sandbox()
        var form = Self.newEvent.merging(["csrf": csrf, field: value]) { $1 }
        if field == "count" { form["recurrence"] = "weekly" }
        let before = try sandbox.run(["list", "--json"]).out
        let response = try sandbox.post("/events", form: form)
        #expect(response.status == 400)
        let inputID = ["timeZone": "zone"][field] ?? field
        let error = try #require(firstMatch(#"<p class="error" id="e-\#(field)">([^<]*)</p>"#, in: response.text), "no message beside \(field)")
        #expect(error.contains(message), "\(field): \(error)")
        #expect(response.text.contains("id=\"f-\(inputID)\""))
        #expect(response.text.contains("aria-invalid=\"true\" aria-describedby=\"e-\(field)\""))
        #expect(response.text.contains("value=\"Praxis Dr. Who\""), "the form keeps what was typed")
        #expect(try sandbox.run(["list", "--json"]).out == before)
    }

    @Test func theFormSpeaksTheReadersLanguage() throws {
        let (sandbox, csrf) = try Self.sandbox(config: "{ locale: \"de_DE\" }")
        let response = try sandbox.post("/events", form: Self.newEvent.merging(["csrf": csrf, "end": "2026-12-01 09:00"]) { $1 })
        #expect(response.status == 400)
        let zone = try sandbox.post("/events", form: Self.newEvent.merging(["csrf": csrf, "timeZone": "Mars/Olympus"]) { $1 })
        #expect(zone.text.contains("unbekannte Zeitzone 'Mars/Olympus'"), "the zone's message in German")
        for text in ["<html lang=\"de-DE\">", ">Beginn</label>", ">Ende</label>", "Nicht gespeichert", ">Speichern</button>",
                     "Ende '2026-12-01 09:00' liegt vor dem Beginn; geben Sie ein Ende nach Beginn an"] {
            #expect(response.text.contains(text), "no \(text)")
        }
    }

    /// The WHEN parser's refusals (start, end, until) and a refused repeat rule, beside their field
    /// in the reader's language; English keeps the command line's own words.
    @Test(arguments: [
        ("de_DE", "Zeitangabe 'tomorow 9am' nicht lesbar: 'tomorow' ist unbekannt (meinten Sie 'tomorrow'?)", "wird nicht angenommen: erwartet daily"),
        ("ja_JP", "日時 'tomorow 9am' を読み取れません: 'tomorow' は解釈できません", "は受け付けられません"),
        ("fr_FR", "impossible de lire la date 'tomorow 9am' : 'tomorow' n'est pas compris", "est refusé : attendu daily"),
        ("es_ES", "no se puede leer la fecha 'tomorow 9am': no se entiende 'tomorow'", "no se acepta: se esperaba daily"),
        ("en_US", "cannot read time \"tomorow 9am\": \"tomorow\" is not", "expected daily, weekly, monthly, yearly, none or an RRULE"),
    ])
    func theParsersAndRepeatRulesRefusalsAreInTheReadersLanguage(locale: String, when: String, refusedRule: String) throws {
        let (sandbox, csrf) = try Self.sandbox(config: "{ locale: \"\(locale)\" }")
        func refusal(_ fields: [String: String], _ field: String) throws -> String {
            let response = try sandbox.post("/events", form: Self.newEvent.merging(fields.merging(["csrf": csrf]) { $1 }) { $1 })
            #expect(response.status == 400)
            let html = try #require(firstMatch(#"<p class="error" id="e-\#(field)">([^<]*)</p>"#, in: response.text), "no message beside \(field)")
            return html.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
        }
        for (fields, field) in [(["start": "tomorow 9am"], "start"), (["end": "tomorow 9am"], "end"),
                                (["recurrence": "weekly", "until": "tomorow 9am"], "until")] {
            let shown = try refusal(fields, field)
            #expect(shown.contains(when), "\(field): \(shown)")
        }
        for rule in ["fortnightly", "FREQ=FORTNIGHTLY"] {
            let shown = try refusal(["recurrence": rule], "recurrence")
            #expect(shown.contains(refusedRule) || locale == "en_US" && shown.contains("is refused"), "\(rule): \(shown)")
            #expect(shown.contains(rule), "\(rule): \(shown)")
        }
    }

    @Test func editingTheWholeEventKeepsWhatTheFormLeftAlone() throws {
        let (sandbox, csrf) = try Self.sandbox()
        let id = try Self.createdID(try sandbox.post("/events", form: Self.newEvent.merging(["csrf": csrf]) { $1 }))
        let edit = try sandbox.get("/events/\(id)/edit")
        #expect(edit.status == 200)
        for text in ["value=\"Dentist\"", "value=\"2026-12-02 09:00\"", "value=\"2026-12-02 10:00\"", "value=\"1d, 1h\"",
                     "<option value=\"red\" selected>", "Bring the card</textarea>"] {
            #expect(edit.text.contains(text), "the edit form lacks \(text)")
        }
        var form = ["csrf": csrf, "occurrence": ""]
        for name in ["title", "start", "end", "timeZone", "location", "url", "alerts", "recurrence", "until", "count", "notes"] {
            form[name] = firstMatch(#"name="\#(name)" type="text" value="([^"]*)""#, in: edit.text) ?? ""
        }
        form["notes"] = "Bring the card"
        form["color"] = "red"
        form["symbol"] = firstMatch(#"<option value="([^"]+)" selected>"#, in: edit.text) ?? ""
        form["title"] = "Dentist (moved)"
        form["start"] = "2026-12-03 15:00"
        form["recurrence"] = "weekly"
        form["until"] = "2026-12-31"
        let response = try sandbox.post("/events/\(id)", form: form)
        #expect(response.status == 303 && response.header("Location") == "/events/\(id)")
        let shown = try sandbox.run(["show", id]).out
        for text in ["Dentist (moved)", "Thu 2026-12-03 15:00", "FREQ=WEEKLY;UNTIL=20261231T225959Z", "1d, 1h before", "Praxis Dr. Who", "[ ] Call ahead"] {
            #expect(shown.contains(text), "show lacks \(text):\n\(shown)")
        }
        let page = try sandbox.get("/events/\(id)").text
        #expect(page.contains("Repeats: Every week, until Dec 31, 2026"), "\(page)")
    }

    @Test func oneOccurrenceIsMovedAndAnotherCancelled() throws {
        let (sandbox, csrf) = try Self.sandbox()
        try #require(sandbox.run(["add", "Standup", "--at", "2026-12-07 09:00", "--repeat", "FREQ=WEEKLY;BYDAY=MO", "--task", "Notes"]).status == 0)
        let agenda = try sandbox.get("/").text
        let id = try #require(firstMatch(#"href="/events/([0-9a-f]+)\?at=2026-12-07T08:00:00Z">Standup<"#, in: agenda))
        // The clicked occurrence, not the first.
        let second = try sandbox.get("/events/\(id)?at=2026-12-14T08:00:00Z").text
        #expect(second.contains("Mon, Dec 14 9:00") && second.contains("Repeats: Every Monday"), "\(second)")
        let edit = try sandbox.get("/events/\(id)/edit?occurrence=2026-12-14T08:00:00Z")
        #expect(edit.status == 200 && edit.text.contains("value=\"2026-12-14 09:00\"") && !edit.text.contains("name=\"recurrence\""))
        let moved = try sandbox.post("/events/\(id)", form: ["csrf": csrf, "occurrence": "2026-12-14T08:00:00Z", "title": "Standup",
                                                              "start": "2026-12-15 14:00", "end": "", "timeZone": "Europe/Berlin",
                                                              "alerts": "", "location": "", "url": "", "notes": ""])
        #expect(moved.status == 303)
        let cancelled = try sandbox.post("/events/\(id)/delete", form: ["csrf": csrf, "occurrence": "2026-12-21T08:00:00Z"])
        #expect(cancelled.status == 303 && cancelled.header("Location") == "/")
        let list = try sandbox.run(["list", "--period", "next30"]).out.split(separator: "\n").filter { $0.contains("Standup") }
        #expect(list.contains { $0.contains("Tue 2026-12-15 14:00") }, "\(list)")
        #expect(!list.contains { $0.contains("2026-12-14") || $0.contains("2026-12-21") }, "\(list)")
        #expect(list.contains { $0.contains("2026-12-28 09:00") }, "\(list)")
        let page = try sandbox.get("/events/\(id)").text
        #expect(page.contains("except Dec 14, Dec 21") || page.contains("except Dec 21"), "\(page)")
        #expect(try sandbox.get("/events/\(id)/edit?occurrence=2026-12-21T08:00:00Z").status == 404)

        // Deleting the series takes its moved occurrence (the override) with it.
        #expect(try sandbox.post("/events/\(id)/delete", form: ["csrf": csrf]).status == 303)
        let left = try sandbox.run(["list", "--period", "all"]).out.split(separator: "\n").filter { $0.contains("Standup") }
        #expect(left.isEmpty, "\(left)")
        #expect(!(try sandbox.get("/").text.contains("Standup")))
    }

    @Test func deletingAnEventRemovesItEverywhere() throws {
        let (sandbox, csrf) = try Self.sandbox()
        let id = try Self.createdID(try sandbox.post("/events", form: Self.newEvent.merging(["csrf": csrf]) { $1 }))
        #expect(try sandbox.post("/events/\(id)/delete", form: [:]).status == 403, "no CSRF value, nothing happens")
        #expect(try sandbox.run(["show", id]).status == 0)
        let response = try sandbox.post("/events/\(id)/delete", form: ["csrf": csrf])
        #expect(response.status == 303 && response.header("Location") == "/")
        #expect(try sandbox.run(["show", id]).status != 0)
        #expect(try sandbox.get("/events/\(id)").status == 404)
    }

    @Test func aTaskIsRenamedRemovedAndTheCheckboxComesBackToItsPlace() throws {
        let (sandbox, csrf) = try Self.sandbox()
        let id = try Self.createdID(try sandbox.post("/events", form: Self.newEvent.merging(["csrf": csrf]) { $1 }))
        let page = try sandbox.get("/events/\(id)").text
        let first = try #require(firstMatch(#"<li class="task todo" id="t-([0-9a-f]+)">"#, in: page))
        let renamed = try sandbox.post("/events/\(id)/task", form: ["csrf": csrf, "task": first, "text": "Call on Monday", "next": "/events/\(id)#t-\(first)"])
        #expect(renamed.status == 303 && renamed.header("Location") == "/events/\(id)#t-\(first)")
        #expect(try sandbox.post("/events/\(id)/task", form: ["csrf": csrf, "task": first, "text": "  "]).status == 400)
        var shown = try sandbox.run(["show", id]).out
        #expect(shown.contains("[ ] Call on Monday") && shown.contains("[ ] Find the card"))
        #expect(try sandbox.post("/events/\(id)/task", form: ["csrf": csrf, "task": first, "remove": "1"]).status == 303)
        shown = try sandbox.run(["show", id]).out
        #expect(!shown.contains("Call on Monday") && shown.contains("[ ] Find the card"))
        let agenda = try sandbox.get("/").text
        #expect(agenda.contains(#"name="next" value="/#t-\#(id)-"#), "the agenda's checkbox comes back to its task")
    }
}
