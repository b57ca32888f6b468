import DatebookCore
import DatebookRender
import Foundation
import Testing

struct DigestGoldenTests {
    static let cases: [(DigestFormat, String, String)] = [
        (.text, "en_US", "digest-en_US.txt"), (.text, "de_DE", "digest-de_DE.txt"), (.text, "ja_JP", "digest-ja_JP.txt"),
        (.markdown, "en_US", "digest-en_US.md"), (.markdown, "de_DE", "digest-de_DE.md"), (.markdown, "ja_JP", "digest-ja_JP.md"),
        (.html, "en_US", "digest-en_US.html"), (.html, "de_DE", "digest-de_DE.html"), (.html, "ja_JP", "digest-ja_JP.html"),
    ]

    /// The demo planner with a to-do of a to-do list due Thursday with priority 1 (issue 31): a row of
    /// Next 7 Days titled with its text, its priority where an event's badge goes.
    @Test(arguments: cases)
    func demoDigestMatchesGoldenFile(format: DigestFormat, locale: String, snapshot: String) throws {
        snapshots.expect(try DigestFixtures.render(format, locale: locale, extra: [DigestFixtures.dueToDo()]), named: snapshot)
    }

    @Test func aDueToDoShowsItsPriorityInEachFormat() throws {
        let extra = [DigestFixtures.dueToDo()]
        let text = try DigestFixtures.render(.text, extra: extra)
        #expect(text.contains("\n  ⭐ Renew passport                            Thu, Dec 3 all day      priority 1\n"), "\(text)")
        #expect(!text.contains("[ ] Renew passport"), "the row is the to-do: no checklist under it")
        let markdown = try DigestFixtures.render(.markdown, extra: extra)
        #expect(markdown.contains("- ⭐ **Renew passport** — Thu, Dec 3 all day · priority 1\n"), "\(markdown)")
        let html = try DigestFixtures.render(.html, extra: extra)
        #expect(html.contains("Thu, Dec 3 all day · priority 1"), "\(html)")
        #expect(try DigestFixtures.render(.text, locale: "de_DE", extra: extra).contains("Priorität 1"))
        // Without a priority the row says nothing in the badge's place.
        #expect(!(try DigestFixtures.render(.text, extra: [DigestFixtures.dueToDo(priority: 0)])).contains("priority"))
    }

    @Test func markdownDigestThroughCmarkMatchesGoldenFile() throws {
        let html = try DigestRenderer(overrideDirectory: nil).renderHTMLFromMarkdown(try DigestFixtures.context())
        snapshots.expect(html, named: "digest-from-markdown-en_US.html")
        #expect(html.contains("<input type=\"checkbox\" checked=\"\" disabled=\"\" /> Buy new tux"))
    }

    @Test func japaneseDatesReadAsTheOriginalPlannersUsersWroteThem() throws {
        let text = try DigestFixtures.render(.text, locale: "ja_JP")
        #expect(text.contains("12月2日(水) 9:00"))
        #expect(try DigestFixtures.render(.text, locale: "de_DE").contains("Mi. 2. Dez. 09:00"))
        #expect(try DigestFixtures.render(.text, locale: "en_US").contains("Wed, Dec 2 9:00\u{202F}AM"))
    }

    @Test func summaryLineCountsTheWeek() throws {
        let text = try DigestFixtures.render(.text)
        #expect(text.split(separator: "\n")[1] == "4 events this week, 11 open tasks")
    }

    /// When counting stopped at the cap, the summary's overdue count is a lower bound and says so.
    @Test func summaryMarksACappedOverdueCount() throws {
        let overdue = DigestFixtures.event("Late", hour: 7)
        let occurrence = Occurrence(event: overdue, calendar: DigestFixtures.calendar)
        let input = DigestInput(now: DigestFixtures.now, calendar: DigestFixtures.calendar,
                                windows: [DigestWindowResult(kind: .overdue, occurrences: [occurrence], total: 500, openTasks: 900,
                                                             capped: true)],
                                eventDays: [], week: (0, 0))
        let context = DigestContext(input, locale: try DigestLocale(identifier: "en_US", timeZone: DigestFixtures.zone))
        let text = try DigestRenderer(overrideDirectory: nil).render(context, format: .text)
        #expect(text.split(separator: "\n")[1] == "0 events this week, 0 open tasks, 500+ overdue")
        #expect(text.contains("OVERDUE · 900+ OPEN TASKS"))
        #expect(text.contains("and 499+ more"))
    }

    @Test func textDigestStaysWithin80Columns() throws {
        let long = String(repeating: "Very long title ", count: 625)
        let extra = [DigestFixtures.event(long, tasks: [String(repeating: "t", count: 10_000)]),
                     DigestFixtures.event("控えめな日本語のタイトルがとても長い場合でも八十桁に収まること", hour: 19)]
        for locale in ["en_US", "de_DE", "ja_JP"] {
            let text = try DigestFixtures.render(.text, locale: locale, extra: extra)
            for line in text.split(separator: "\n") {
                #expect(TextWidth.displayWidth(String(line)) <= 80, "\(locale): \(line)")
            }
        }
    }

    @Test func emptySectionsAreLeftOutAndTodayAndOverdueAppear() throws {
        let plain = try DigestFixtures.render(.markdown)
        #expect(!plain.contains("## Today"))
        #expect(!plain.contains("## Overdue"))
        var overdue = DigestFixtures.event("Tax return", tasks: ["Collect receipts"], hour: 7)
        overdue.tasks[0].status = .doing
        let text = try DigestFixtures.render(.markdown, extra: [overdue, DigestFixtures.event("Dinner")])
        #expect(text.contains("## Overdue · 1 open task\n"))
        #expect(text.contains("## Today · 1 open task\n"))
        #expect(text.contains("1 overdue"))
    }

    @Test func futureShowsTheFirstFewAndCountsTheRest() throws {
        let later = (0..<8).map { n -> Event in
            var event = DigestFixtures.event("Later \(n)", tasks: [])
            event.start = .allDay(CalendarDate(year: 2027, month: 3, day: n + 1))
            return event
        }
        let text = try DigestFixtures.render(.text, extra: later)
        #expect(text.contains("  … and 6 more\n"))
        #expect(text.contains("Mar 1, 2027 all day") || text.contains("Mon, Mar 1 all day"))
    }
}
