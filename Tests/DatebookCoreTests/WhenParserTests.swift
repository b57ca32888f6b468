@testable import DatebookCore
import Foundation
import Testing

struct WhenParserTests {
    /// now = Monday 2026-11-30 09:15:00 Europe/Berlin.
    let cal = calendar("Europe/Berlin")
    var parser: WhenParser { WhenParser(now: local("2026-11-30 09:15", cal), calendar: cal) }

    static let instants: [(String, String)] = [
        ("2026-12-03 09:00", "2026-12-03T08:00:00Z"),
        ("2026-12-03T09:00", "2026-12-03T08:00:00Z"),
        ("2026-12-03T09:00+01:00", "2026-12-03T08:00:00Z"),
        ("2026-12-03T09:00:30-05:00", "2026-12-03T14:00:30Z"),
        ("2026-12-03T08:00Z", "2026-12-03T08:00:00Z"),
        ("today 18:00", "2026-11-30T17:00:00Z"),
        ("tomorrow 9am", "2026-12-01T08:00:00Z"),
        ("tomorrow 9:30 pm", "2026-12-01T20:30:00Z"),
        ("yesterday noon", "2026-11-29T11:00:00Z"),
        ("18:00", "2026-11-30T17:00:00Z"),
        ("12am", "2026-11-29T23:00:00Z"),
        ("+2d", "2026-12-02T08:15:00Z"),
        ("+90m", "2026-11-30T09:45:00Z"),
        ("+1h30m", "2026-11-30T09:45:00Z"),
        ("+1w", "2026-12-07T08:15:00Z"),
        ("mon 10:00", "2026-11-30T09:00:00Z"),
        ("fri 17:00", "2026-12-04T16:00:00Z"),
        ("next mon 10:00", "2026-12-07T09:00:00Z"),
        ("Friday 5pm", "2026-12-04T16:00:00Z"),
        ("2027-03-28 02:30", "2027-03-28T01:30:00Z"),   // in the spring-forward gap: moved forward
    ]

    @Test(arguments: instants)
    func readsInstants(text: String, expected: String) throws {
        guard case .instant(let date) = try parser.parse(text) else {
            Issue.record("\(text) should be an instant")
            return
        }
        #expect(ISOInstant.format(date) == expected, "\(text)")
    }

    /// A start in the hour Berlin skips on 28 March 2027 (02:00 → 03:00), in Lord Howe's half hour
    /// (2026-10-04, 02:00 → 02:30) and on the day Samoa skipped (30 December 2011): refused where an
    /// event's start is read, naming the gap and the time it would otherwise have been moved to.
    @Test(arguments: [
        ("Europe/Berlin", "2027-03-28 02:30", "02:30", "Europe/Berlin on 2027-03-28: it goes from 02:00 straight to 03:00",
         "2027-03-28 03:30"),
        ("Europe/Berlin", "2027-03-28 02:00", "02:00", "Europe/Berlin on 2027-03-28: it goes from 02:00 straight to 03:00",
         "2027-03-28 03:00"),
        ("Australia/Lord_Howe", "2026-10-04 02:15:30", "02:15:30",
         "Australia/Lord_Howe on 2026-10-04: it goes from 02:00 straight to 02:30", "2026-10-04 02:45:30"),
        ("Pacific/Apia", "2011-12-30 10:00", "10:00", "Pacific/Apia on 2011-12-30: it goes from 00:00 straight to 00:00 on 2011-12-31",
         "2011-12-31 10:00"),
    ] as [(String, String, String, String, String)])
    func aSkippedTimeIsRefusedNamingTheGap(zone: String, text: String, token: String, gap: String, moved: String) throws {
        var strict = WhenParser(now: local("2026-11-30 09:15", cal), calendar: calendar(zone))
        #expect(throws: Never.self) { try strict.parse(text) }  // moved on by the gap, as RFC 5545 reads it
        strict.refusesSkippedTimes = true
        let error = try #require(throws: WhenError.self) { try strict.parse(text) }
        #expect(error.token == token && error.suggestion == moved)
        #expect(error.description
                    == "cannot read time \"\(text)\": \"\(token)\" is not a time on the clock in \(gap) (did you mean '\(moved)'?)")
        #expect(throws: Never.self) { try strict.parse(moved) }
    }

    @Test func theTimesEitherSideOfAGapAndTheRepeatedHourAreKept() throws {
        var strict = parser
        strict.refusesSkippedTimes = true
        for (text, expected) in [("2027-03-28 01:59", "2027-03-28T00:59:00Z"), ("2027-03-28 03:00", "2027-03-28T01:00:00Z"),
                                 ("2026-10-25 02:30", "2026-10-25T00:30:00Z"), ("2027-03-28", nil), ("+2d", "2026-12-02T08:15:00Z")] {
            let when = try strict.parse(text)
            if case .instant(let date) = when { #expect(ISOInstant.format(date) == expected, "\(text)") } else { #expect(expected == nil) }
        }
    }

    @Test(arguments: [("2026-12-24", "2026-12-24"), ("today", "2026-11-30"), ("tomorrow", "2026-12-01"),
                      ("next fri", "2026-12-04"), ("mon", "2026-11-30"), ("next mon", "2026-12-07"), ("sun", "2026-12-06")])
    func readsDates(text: String, expected: String) throws {
        #expect(try parser.parse(text) == .date(CalendarDate(iso: expected)!))
    }

    @Test(arguments: [
        ("tomorow 9am", "tomorow", "tomorrow"),
        ("next fryday", "fryday", "friday"),
        ("2026-13-01", "2026-13-01", nil),
        ("2026-02-30 10:00", "2026-02-30", nil),
        ("today 25:00", "25:00", nil),
        ("today 13pm", "13pm", nil),
        ("+2x", "+2x", nil),
        ("2026-12-03T09:00+1", "+1", nil),
        ("banana", "banana", nil),
    ] as [(String, String, String?)])
    func namesTheTokenItCouldNotRead(text: String, token: String, suggestion: String?) {
        #expect(throws: WhenError.self) { try parser.parse(text) }
        do {
            _ = try parser.parse(text)
        } catch let error as WhenError {
            #expect(error.token == token, "\(text)")
            #expect(error.suggestion == suggestion, "\(text)")
            #expect(error.description.contains("\"\(token)\""))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}

struct LeadTimeTests {
    @Test(arguments: [("1d", "1d"), ("1h", "1h"), ("10m", "10m"), ("90m", "1h30m"), ("1h30m", "1h30m"),
                      ("2w", "2w"), ("7d", "1w"), ("45s", "45s"), ("0m", "0m"), ("1D", "1d")])
    func parsesAndPrintsCanonically(text: String, canonical: String) {
        #expect(LeadTime(text)?.description == canonical)
    }

    @Test(arguments: ["", "d", "1", "1x", "h1", "-1d", "1.5h"])
    func rejectsMalformed(text: String) {
        #expect(LeadTime(text) == nil)
    }

    /// A one-day alert before a 09:00 event on the day after the change still fires at 09:00.
    @Test func oneDayBeforeIsOneCalendarDayAcrossDST() {
        let cal = calendar("Europe/Berlin")
        let start = local("2026-03-30 09:00", cal)
        #expect(LeadTime("1d")?.due(before: start, calendar: cal) == local("2026-03-29 09:00", cal))
        #expect(LeadTime("1h")?.due(before: start, calendar: cal) == local("2026-03-30 08:00", cal))
    }
}

struct SuggestionTests {
    @Test func suggestsNearbyWordsOnly() {
        #expect(Suggestion.nearest(to: "lst", in: ["list", "add", "show"]) == "list")
        #expect(Suggestion.nearest(to: "--perod", in: ["--period", "--json"]) == "--period")
        #expect(Suggestion.nearest(to: "purpel", in: EventColor.allCases.map(\.rawValue)) == "purple")
        #expect(Suggestion.nearest(to: "zzzzzz", in: ["list", "add"]) == nil)
    }

    @Test func suggestsTheKeyThatSharesTheFirstWordOfACamelCaseName() {
        let channelKeys = ["type", "url", "timeout", "caFile", "insecure", "username", "requireTLS"]
        #expect(Suggestion.nearest(to: "caInfo", in: channelKeys) == "caFile")
        #expect(Suggestion.nearest(to: "requireSSL", in: channelKeys) == "requireTLS")
        #expect(Suggestion.nearest(to: "caInfo", in: ["caFile", "caPath"]) == nil)
        #expect(Suggestion.nearest(to: "verifyPeer", in: channelKeys) == nil)
    }

    /// Two neighbouring letters swapped is one typo, as near as one wrong letter, short words included.
    @Test(arguments: [("lsit", "list"), ("exprot", "export"), ("sohw", "show"), ("--jsno", "--json"), ("cla", "cal"), ("tsaks", "tasks")])
    func suggestsTheWordWithTwoLettersSwapped(typo: String, word: String) {
        let commands = ["add", "list", "agenda", "show", "edit", "rm", "task", "tasks", "cal", "demo", "import", "export",
                        "feed", "digest", "templates", "send", "channels", "tick", "run", "status", "preview", "help"]
        #expect(Suggestion.nearest(to: typo, in: commands + ["--json", "--period"]) == word)
        #expect(Suggestion.editDistance(typo, word) == 1)
    }
}
