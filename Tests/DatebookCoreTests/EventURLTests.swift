import DatebookCore
import Testing

struct EventURLTests {
    static let rules = EventValidation(ruleProblem: { _ in nil })

    @Test(arguments: ["https://meet.example.org/abc-defg", "http://example.org", "HTTPS://Example.org/a?b=c&d=e#f",
                      "mailto:ann@example.org?subject=Dinner", "tel:+49-30-1234567", "https://example.org/%E2%9C%93"])
    func linksOfTheFourSchemesAreAccepted(_ url: String) {
        #expect(EventURL.problem(url) == nil)
    }

    @Test(arguments: [
        ("javascript:alert(1)", "the scheme 'javascript:' is not allowed; use http, https, mailto, tel"),
        ("JavaScript:alert(1)", "the scheme 'javascript:' is not allowed; use http, https, mailto, tel"),
        ("file:///etc/passwd", "the scheme 'file:' is not allowed; use http, https, mailto, tel"),
        ("data:text/html,<b>x</b>", "the scheme 'data:' is not allowed; use http, https, mailto, tel"),
        ("example.org/meeting", "expected a link with a scheme (https://…, mailto:…, tel:…), got \"example.org/meeting\""),
        (":nothing", "expected a link with a scheme (https://…, mailto:…, tel:…), got \":nothing\""),
        ("https://", "expected https://HOST/…, got \"https://\""),
        ("https:example.org", "expected https://HOST/…, got \"https:example.org\""),
        ("mailto:", "expected something after 'mailto:'"),
        ("https://example.org/a b", "the link contains U+0020, which a URL cannot hold (percent-encode it)"),
        ("https://example.org/\n", "the link contains U+000A, which a URL cannot hold (percent-encode it)"),
        ("https://example.org/<script>", "the link contains '<', which a URL cannot hold (percent-encode it)"),
        ("https://example.org/ä", "the link contains 'ä', which a URL cannot hold (percent-encode it)"),
    ])
    func otherLinksAreRefusedWithTheReason(_ url: String, _ reason: String) {
        #expect(EventURL.problem(url) == reason)
    }

    @Test func aLinkOverTheLimitIsRefused() {
        let long = "https://example.org/" + String(repeating: "a", count: Limits.urlBytes)
        #expect(EventURL.problem(long) == "is \(long.utf8.count) bytes long; the limit is \(Limits.urlBytes) bytes (shorten it)")
    }

    @Test func aLocationIsOneLineWithoutControlCharacters() {
        #expect(EventURL.cleanLocation("  Room 4\nsecond floor\t\u{1B}[31mred\u{7F} ") == "Room 4 second floor  [31mred")
    }

    /// Someone else's calendar: a bad link is dropped with the reason, a long location is cut, a
    /// multi-line one joined; own input is refused instead.
    @Test func repairDropsABadLinkAndCutsALongLocation() {
        var event = Event(id: "e1", title: "Meeting", start: .allDay(CalendarDate(year: 2026, month: 12, day: 1)),
                          timeZone: "UTC", symbol: .star, color: .red, location: String(repeating: "x", count: 10_000) + "\nfloor 2",
                          url: "javascript:alert(1)")
        #expect(Self.rules.problems(event).map(\.field) == ["location", "url"])
        let repair = Self.rules.repair(&event)
        #expect(repair.refusals == [])
        #expect(repair.changes.map(\.description) == [
            "location: was 10008 bytes long; cut to 1000 bytes (the limit is 1000)",
            "url: the scheme 'javascript:' is not allowed; use http, https, mailto, tel; the event has no link",
        ])
        #expect(event.location == String(repeating: "x", count: 1_000))
        #expect(event.url == "")
    }
}
