import DatebookCore
import Foundation
import Testing

/// `POST /api/v1/events`, `PATCH` and `DELETE /api/v1/events/{id}` over real HTTP: the `list --json`
/// shape, errors naming the body's key with the command line's messages, the CLI reading the change.
@Suite(.serialized) struct ServeEventAPITests {
    static let write = ["X-Datebook-CSRF": "1", "Content-Type": "application/json"]

    static func send(_ sandbox: ServeSandbox, _ method: String, _ path: String, _ body: String = "") throws -> RawResponse {
        try request(sandbox.port, method, path, headers: write, body: Array(body.utf8))
    }

    static func object(_ text: String) throws -> JSONNode {
        try JSONParser.parse(Array(text.utf8))
    }

    @Test func anEventIsMadeChangedAndRemoved() throws {
        let sandbox = try ServePagesTests.demo()
        let made = try Self.send(sandbox, "POST", "/api/v1/events", """
            {"title": "Call Ann", "start": "2026-12-03T10:00+01:00", "end": "2026-12-03 10:30", "color": "cyan", "location": "Phone",
             "url": "tel:+49301234", "alerts": ["10m"], "repeats": "weekly", "count": 3, "tasks": ["Agenda", {"text": "Notes"}]}
            """)
        #expect(made.status == 201, "\(made.text)")
        let event = try Self.object(made.text)
        guard case .string(let id)? = event["id"]?.value else { Issue.record("no id: \(made.text)"); return }
        #expect(made.header("Location") == "/api/v1/events/\(id)")
        #expect(event["repeats"]?.value == .string("FREQ=WEEKLY;COUNT=3") && event["url"]?.value == .string("tel:+49301234"))
        #expect(event["start"]?.value == .string("2026-12-03T10:00:00+01:00"))
        #expect(try sandbox.run(["show", id]).out.contains("10m before"))

        let changed = try Self.send(sandbox, "PATCH", "/api/v1/events/\(id)", #"{"title": "Call Ann and Bo", "location": null}"#)
        #expect(changed.status == 200, "\(changed.text)")
        let shown = try sandbox.run(["show", id]).out
        #expect(shown.contains("Call Ann and Bo") && !shown.contains("Phone") && shown.contains("[ ] Agenda"), "\(shown)")

        // One occurrence moved, another cancelled, as `edit --occurrence` and `rm --occurrence` do.
        let moved = try Self.send(sandbox, "PATCH", "/api/v1/events/\(id)", #"{"occurrence": "2026-12-10T10:00:00+01:00", "start": "2026-12-11 11:00"}"#)
        #expect(moved.status == 200 && moved.text.contains("\"start\": \"2026-12-11T11:00:00+01:00\""), "\(moved.text)")
        #expect(try Self.send(sandbox, "DELETE", "/api/v1/events/\(id)?occurrence=2026-12-17T09:00:00Z").status == 204)
        let list = try sandbox.run(["list"]).out.split(separator: "\n").filter { $0.contains("Call Ann") }
        #expect(list.count == 2 && list.contains { $0.contains("Fri 2026-12-11 11:00") }, "\(list)")

        #expect(try Self.send(sandbox, "DELETE", "/api/v1/events/\(id)").status == 204)
        #expect(try sandbox.run(["show", id]).status != 0)
        #expect(try sandbox.get("/api/v1/events/\(id)").status == 404)
        // The moved occurrence (an override, an event of its own) went with its series.
        let left = try sandbox.run(["list", "--period", "all"]).out.split(separator: "\n").filter { $0.contains("Call Ann") }
        #expect(left.isEmpty, "\(left)")
        #expect(!(try sandbox.get("/calendar.ics").text.contains("Call Ann")))
    }

    /// Each refused body: 400 (404 for an occurrence that is not there) with the key and the
    /// message of `add`/`edit`, and the store unchanged.
    @Test(arguments: [
        (#"{"title": "X", "start": "tomorow"}"#, "start", "cannot read time"),
        (#"{"title": "X"}"#, "start", "start is needed"),
        (#"{"title": "", "start": "tomorrow"}"#, "title", "title is empty"),
        (#"{"title": "X", "start": "tomorrow", "color": "blu"}"#, "color", "unknown color 'blu'"),
        (#"{"title": "X", "start": "tomorrow 9am", "end": "yesterday"}"#, "end", "end 'yesterday' is before the start; give an end after start"),
        (#"{"title": "X", "start": "tomorrow", "alerts": "1d"}"#, "alerts", "expected an array of strings"),
        (#"{"title": "X", "start": "tomorrow", "alerts": ["soon"]}"#, "alerts", "cannot read alert lead time 'soon'"),
        (#"{"title": "X", "start": "tomorrow", "until": "2027-01-01"}"#, "until", "until and count need repeats"),
        (#"{"title": "X", "start": "tomorrow", "repeats": "weekly", "until": "2026-01-01"}"#, "until", "is before the event's start"),
        (#"{"title": "X", "start": "tomorrow", "url": "javascript:alert(1)"}"#, "url", "url: "),
        (#"{"title": "X", "start": "tomorrow", "timeZone": "Mars/Olympus"}"#, "timeZone", "unknown time zone 'Mars/Olympus'"),
        (#"{"title": "X", "start": "tomorrow", "colour": "red"}"#, "colour", "unknown key \"colour\""),
        (#"{"title": "X", "start": 5}"#, "start", "expected a string, got 5"),
        (#"["title"]"#, "body", "expected an object"),
        (#"{"title": "X""#, "body", "the body is not JSON"),
    ])
    func aRefusedBodyNamesItsKey(body: String, field: String, message: String) throws {
        let sandbox = try ServePagesTests.demo()
        let before = try sandbox.run(["list", "--json"]).out
        let response = try Self.send(sandbox, "POST", "/api/v1/events", body)
        #expect(response.status == 400)
        let error = try Self.object(response.text)
        #expect(error["field"]?.value == .string(field), "\(response.text)")
        guard case .string(let text)? = error["error"]?.value else { Issue.record("no error: \(response.text)"); return }
        #expect(text.contains(message), "\(text)")
        #expect(try sandbox.run(["list", "--json"]).out == before)
    }

    @Test func writesNeedTheCSRFHeaderAndAnOccurrenceMustExist() throws {
        let sandbox = try ServePagesTests.demo()
        let id = try ServeAPITests.pagliacci(sandbox)
        let before = try sandbox.run(["list", "--json"]).out
        #expect(try request(sandbox.port, "POST", "/api/v1/events", body: Array(#"{"title": "X", "start": "tomorrow"}"#.utf8)).status == 403)
        #expect(try request(sandbox.port, "DELETE", "/api/v1/events/\(id)").status == 403)
        #expect(try request(sandbox.port, "PATCH", "/api/v1/events/\(id)", headers: ["X-Datebook-CSRF": "1", "Origin": "https://evil.example"],
                            body: Array(#"{"title": "X"}"#.utf8)).status == 403)
        let missing = try Self.send(sandbox, "PATCH", "/api/v1/events/\(id)", #"{"occurrence": "2026-12-01T00:00:00Z", "title": "Y"}"#)
        #expect(missing.status == 404 && missing.text.contains("\"field\": \"occurrence\""), "\(missing.text)")
        #expect(try sandbox.run(["list", "--json"]).out == before)
    }
}
