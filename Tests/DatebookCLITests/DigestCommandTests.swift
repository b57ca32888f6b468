@testable import DatebookCLI
import DatebookCore
import DatebookStore
import DatebookTestSupport
import Foundation
import Testing

struct DigestCommandTests {
    static func demoSandbox() -> Sandbox {
        let sandbox = Sandbox()
        sandbox.run(["demo"])
        return sandbox
    }

    @Test(arguments: [("text", "en_US", "digest-demo-en_US.txt"), ("markdown", "ja_JP", "digest-demo-ja_JP.md"),
                      ("html", "en_US", "digest-demo-en_US.html"), ("text", "de_DE", "digest-demo-de_DE.txt")])
    func demoDigestFromTheStoreMatchesGoldenFile(format: String, locale: String, snapshot: String) {
        let run = Self.demoSandbox().run(["digest", "--format", format, "--locale", locale])
        #expect(run.code == 0, "\(run.err)")
        snapshots.expect(run.out, named: snapshot)
    }

    @Test func outputFileIsWrittenAndMissingDirectoryIsAnError() throws {
        let sandbox = Self.demoSandbox()
        let path = sandbox.home + "/digest.html"
        let run = sandbox.run(["digest", "--format", "html", "-o", path])
        #expect(run.code == 0 && run.out.isEmpty)
        #expect(try String(contentsOfFile: path, encoding: .utf8).hasPrefix("<!DOCTYPE html>"))
        let missing = sandbox.run(["digest", "-o", sandbox.home + "/nope/digest.txt"])
        #expect(missing.code == ExitCode.dataError)
        #expect(missing.err.contains("nope does not exist; create it first"))
    }

    @Test func userTemplateOverridesBuiltInAndPathTemplateIsUsedDirectly() throws {
        let sandbox = Self.demoSandbox()
        let directory = sandbox.home + "/config/datebook/templates"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try "custom: {{summary}}\n".write(toFile: directory + "/digest.txt.mustache", atomically: true, encoding: .utf8)
        #expect(sandbox.run(["digest"]).out == "custom: 4 events this week, 11 open tasks\n")
        #expect(sandbox.run(["templates"]).out.contains("digest.txt.mustache         overridden by " + directory))
        let file = sandbox.home + "/mine.md.mustache"
        try "{{#sections}}{{title}};{{/sections}} {{locale}} *{{summary}}*\n".write(toFile: file, atomically: true, encoding: .utf8)
        let run = sandbox.run(["digest", "--template", file])
        #expect(run.out == "Next 7 Days;Next 30 Days;Future; en\\_US *4 events this week, 11 open tasks*\n")
    }

    @Test func templatesListsBuiltInsAndShowPrintsOne() {
        let sandbox = Sandbox()
        let list = sandbox.run(["templates"])
        #expect(list.out.contains("digest.html.mustache        built-in"))
        #expect(list.out.contains(sandbox.home + "/config/datebook/templates/"))
        let show = sandbox.run(["templates", "show", "digest.md.mustache"])
        #expect(show.out.hasPrefix("{{! Markdown digest"))
        let unknown = sandbox.run(["templates", "show", "digest.mb.mustache"])
        #expect(unknown.code == ExitCode.usage)
        #expect(unknown.err.contains("did you mean 'digest.md.mustache'?"))
    }

    @Test(arguments: [
        (["digest", "--format", "htm"], "unknown format 'htm' (did you mean 'html'?); expected text, markdown or html", ExitCode.usage),
        (["digest", "--locale", "ja_XX"], "unknown locale 'ja_XX' (did you mean 'ja_JP'?); use an identifier like en_US, de_DE or ja_JP", ExitCode.usage),
        (["digest", "--days", "99"], "--days expects a whole number from 1 to 30, got '99'", ExitCode.usage),
        (["digest", "--from-markdown"], "--from-markdown renders HTML; use it with --format html", ExitCode.usage),
        (["digest", "--template", "nope.txt.mustache"], "no template named 'nope.txt.mustache'", ExitCode.usage),
        (["digest", "--template", "/no/such/file.mustache"], "/no/such/file.mustache: cannot read template: no such file", ExitCode.dataError),
    ])
    func badDigestArgumentsAreExplained(arguments: [String], message: String, code: Int32) {
        let run = Sandbox().run(arguments)
        #expect(run.code == code)
        #expect(run.err.contains(message), "\(run.err)")
    }

    /// The user's `locales/LANG.json` beside their templates overrides words; a broken one is
    /// refused naming the file, line and key, for `digest` and for the scheduler's digests alike.
    @Test func aUsersCatalogueOverridesWordsAndABrokenOneIsNamed() throws {
        let sandbox = Self.demoSandbox()
        let folder = sandbox.home + "/config/datebook/templates/locales"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try "{\n  \"left\": \"noch {count} zu tun\"\n}\n".write(toFile: folder + "/de.json", atomically: true, encoding: .utf8)
        let run = sandbox.run(["digest", "--locale", "de_DE"])
        #expect(run.out.contains("noch 2 zu tun") && run.out.contains("NÄCHSTE 7 TAGE"), "\(run.out)")
        try "{\n  \"left\": \"noch {cuont}\"\n}\n".write(toFile: folder + "/de.json", atomically: true, encoding: .utf8)
        let broken = sandbox.run(["digest", "--locale", "de_DE"])
        #expect(broken.code == ExitCode.dataError)
        #expect(broken.err == "datebook: \(folder)/de.json:2: key 'left': missing placeholder {count}\n")
        #expect(sandbox.run(["digest", "--locale", "en_US"]).code == 0, "another language's file is not read")
    }

    @Test func templateSyntaxErrorNamesFileLineAndColumn() throws {
        let sandbox = Sandbox()
        let file = sandbox.home + "/broken.txt.mustache"
        try "ok\n  {{#sections}}\n{{title}}\n".write(toFile: file, atomically: true, encoding: .utf8)
        let run = sandbox.run(["digest", "--template", file])
        #expect(run.code == ExitCode.dataError)
        #expect(run.err == "datebook: \(file):2:3: unclosed section 'sections'\n")
        try "{{<missing-layout}}{{/missing-layout}}".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(sandbox.run(["digest", "--template", file]).err.contains("no template named 'missing-layout'"))
    }

    @Test func fromMarkdownRendersTaskListsThroughCmark() {
        let run = Self.demoSandbox().run(["digest", "--format", "html", "--from-markdown"])
        #expect(run.code == 0)
        #expect(run.out.contains("<input type=\"checkbox\" checked=\"\" disabled=\"\" /> Buy new tux"))
    }

    @Test func overdueShowsPastEventsWithOpenTasksWithinTheLookBack() {
        let sandbox = Self.demoSandbox()
        sandbox.run(["add", "Tax return", "--at", "2026-11-20 10:00", "--task", "Collect receipts"])
        sandbox.run(["add", "Old and done", "--at", "2026-11-21 10:00"])
        let run = sandbox.run(["digest", "--format", "markdown"])
        #expect(run.out.contains("## Overdue · 1 open task\n"))
        #expect(run.out.contains("**Tax return** — Fri, Nov 20 10:00"))
        #expect(!run.out.contains("Old and done"))
        #expect(!run.out.contains("WWDC"))
        #expect(sandbox.run(["digest", "--overdue-days", "3000"]).out.contains("WWDC"))
    }

    /// Overdue lists the most recent occurrences and counts the older ones.
    @Test func overdueShowsTheMostRecentAndCountsTheRest() {
        let sandbox = Sandbox()
        for day in 1...23 {
            sandbox.run(["add", "Late \(day)", "--at", String(format: "2026-11-%02d 08:00", day), "--task", "Do it"])
        }
        let run = sandbox.run(["digest", "--format", "markdown"])
        #expect(run.out.contains("## Overdue · 23 open tasks\n"))
        #expect(!run.out.contains("**Late 1**") && !run.out.contains("**Late 2**") && !run.out.contains("**Late 3**"))
        #expect(run.out.contains("**Late 4**") && run.out.contains("**Late 23**"))
        #expect(run.out.contains("and 3 more"))
        let late23 = run.out.range(of: "**Late 23**")?.lowerBound, late4 = run.out.range(of: "**Late 4**")?.lowerBound
        #expect(late4 != nil && late23 != nil && late4 ?? run.out.endIndex < late23 ?? run.out.startIndex)
    }

    /// A weekly event is listed at each occurrence in the near periods and once, at its next
    /// occurrence, in Future; the calendar marks each of its days, as `list` and `cal` show them.
    @Test func recurringEventAppearsInEachPeriodAndMarksEveryDayInTheCalendar() {
        var sandbox = Sandbox()
        sandbox.now = "2026-12-01 09:00"
        sandbox.run(["add", "Team sync", "--at", "2026-12-07 10:00", "--repeat", "weekly", "--symbol", "person.3"])
        sandbox.run(["add", "Dentist", "--at", "2026-12-15 10:00"])
        let markdown = sandbox.run(["digest", "--format", "markdown"]).out
        let sections = markdown.components(separatedBy: "\n## ").dropFirst().map { $0.components(separatedBy: "\n").first ?? "" }
        #expect(sections.map { $0.components(separatedBy: " ·").first ?? "" } == ["Next 7 Days", "Next 30 Days", "Future"])
        for day in ["Mon, Dec 7", "Mon, Dec 14", "Mon, Dec 21", "Mon, Dec 28", "Mon, Jan 4"] {
            #expect(markdown.contains("**Team sync** — \(day) 10:00"), "\(day)")
        }
        #expect(!markdown.contains("Mon, Jan 11"))
        #expect(markdown.components(separatedBy: "**Team sync**").count - 1 == 5)
        #expect(markdown.contains("5 events this week") == false)
        #expect(markdown.contains("1 event this week"))
        let text = sandbox.run(["digest"]).out
        for mark in ["  7*", " 14*", " 15*", " 21*", " 28*"] { #expect(text.contains(mark), "\(mark)") }
        #expect(!text.contains("30*") && !text.contains("22*") && !text.contains("* 7"))
    }

    /// Outside the materialised horizon (now − 7 days … now + 92 days) recurring events are still
    /// read where the digest needs them: the month's earlier days, and Future each series once
    /// at its next occurrence, however far ahead.
    @Test func recurringEventsBeyondTheHorizonMarkEarlierDaysAndReachFuture() {
        var sandbox = Sandbox()
        sandbox.now = "2026-12-20 09:00"
        sandbox.run(["add", "Choir", "--at", "2026-12-02 19:00", "--repeat", "weekly", "--until", "2027-01-31"])
        sandbox.run(["add", "Anniversary", "--at", "2026-06-10", "--repeat", "yearly"])
        let text = sandbox.run(["digest"]).out
        for mark in ["  2*", "  9*", " 16*", " 23*", " 30*"] { #expect(text.contains(mark), "\(mark)") }
        #expect(!text.contains("  3*") && !text.contains(" 10*"))
        let markdown = sandbox.run(["digest", "--format", "markdown"]).out
        #expect(markdown.contains("**Anniversary** — Thu, Jun 10"), "\(markdown)")
        #expect(markdown.contains("**Choir** — Wed, Jan 20"))
        #expect(!markdown.contains("**Choir** — Wed, Jan 27"))
    }

    /// A recurring event with open tasks is overdue once, at its latest past occurrence, when its
    /// series has ended; a series that goes on carries its tasks to its next occurrence.
    @Test func recurringEventIsOverdueOnceAndOnlyWhenItsSeriesEnded() {
        var sandbox = Sandbox()
        sandbox.now = "2026-12-01 09:00"
        sandbox.run(["add", "Course", "--at", "2026-10-05 18:00", "--repeat", "weekly", "--until", "2026-11-16", "--task", "Homework"])
        sandbox.run(["add", "Standup", "--at", "2026-11-02 09:30", "--repeat", "weekly", "--task", "Notes"])
        let markdown = sandbox.run(["digest", "--format", "markdown"]).out
        #expect(markdown.contains("## Overdue · 1 open task\n"))
        #expect(markdown.components(separatedBy: "**Course**").count - 1 == 1)
        #expect(markdown.contains("**Course** — Mon, Nov 16 6:00"))
        #expect(markdown.contains("**Standup** — Mon, Dec 7 9:30"))
        #expect(!markdown.contains("**Standup** — Mon, Nov"))
    }
}

struct DigestStoreQueryTests {
    @Test func firstOccurrencesStopsAtTheLimitAndTotalsCountTheWindowExactly() throws {
        let scratch = makeScratchFolder("digest")
        defer { removeScratchFolder(scratch) }
        let path = scratch + "/digest.sqlite3"
        let store = try Store(path: path)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Asia/Tokyo") ?? .gmt
        let base = Date(timeIntervalSince1970: 1_800_000_000)
        var events = (0..<50).map { n in
            Event(id: "e\(n)", title: "E\(n)", start: .instant(base.addingTimeInterval(TimeInterval(n * 3600))),
                  timeZone: "Asia/Tokyo", symbol: .star, color: .red,
                  tasks: [EventTask(id: "t", text: "x", status: n.isMultiple(of: 2) ? .todo : .done)])
        }
        // An all-day event on the first day: it starts at midnight Tokyo, 9 h before its UTC key.
        let firstDay = CalendarDate(base, in: calendar.timeZone)
        events.append(Event(id: "allday", title: "All day", start: .allDay(firstDay), timeZone: "Asia/Tokyo", symbol: .star, color: .red))
        try store.save(events)
        let first = try store.firstOccurrences(from: firstDay.start(in: calendar), to: nil, calendar: calendar, limit: 3,
                                                onlyOpen: false, singleOnly: false, newest: false)
        #expect(first.map(\.event.id) == ["allday", "e0", "e1"])
        let totals = try store.totals(from: base, to: base.addingTimeInterval(10 * 3600), calendar: calendar, singleOnly: false, cap: .max)
        #expect(totals == WindowTotals(events: 10, openTasks: 5))
        let capped = try store.totals(from: nil, to: nil, calendar: calendar, singleOnly: false, cap: 20)
        #expect(capped.events == 20 && capped.capped)
        let open = try store.firstOccurrences(from: base, to: nil, calendar: calendar, limit: 100, onlyOpen: true,
                                                   singleOnly: false, newest: false)
        #expect(open.count == 25)
        #expect(try store.hasOccurrence(from: firstDay.start(in: calendar), to: base, calendar: calendar))
        #expect(try !store.hasOccurrence(from: base.addingTimeInterval(-3600), to: base, calendar: calendar))
    }
}

/// The config's `locale` reaches alerts sent by hand and by the scheduler.
struct AlertLanguageCommandTests {
    @Test func alertsSpeakTheConfiguredLanguage() throws {
        let sandbox = Sandbox()
        sandbox.run(["add", "Zahnarzt", "--at", "2026-11-30 11:00", "--task", "Karte mitnehmen", "--alert", "1h"])
        let config = try sandbox.writeConfig("""
        { locale: "de_DE", channels: {
            notes: { type: "file", path: "\(sandbox.home)/alerts.txt", format: "text" },
            titles: { type: "command", argv: ["/bin/sh", "-c", "printf '%s\\n' \\"$DATEBOOK_TITLE\\" >> \(sandbox.home)/titles.txt"] } },
          alerts: { channels: ["titles"] } }
        """)
        #expect(sandbox.run(["--config", config, "send", "alert", "Zahnarzt", "--channel", "notes"]).code == 0)
        var scheduled = sandbox
        scheduled.now = "2026-11-30 10:00"
        #expect(scheduled.run(["--config", config, "tick"]).code == 0)
        let written = try String(contentsOfFile: sandbox.home + "/alerts.txt", encoding: .utf8)
        #expect(written.contains("Mo 2026-11-30 11:00 (Europe/Berlin)\n1 offene Aufgabe:\n  [ ] Karte mitnehmen"), "\(written)")
        var titles = try String(contentsOfFile: sandbox.home + "/titles.txt", encoding: .utf8)
        #expect(titles.hasSuffix("in 1 Stunde: Zahnarzt\n"), "\(titles)")
        #expect(sandbox.run(["--config", config, "channels", "test", "titles"]).code == 0)
        titles = try String(contentsOfFile: sandbox.home + "/titles.txt", encoding: .utf8)
        #expect(titles.hasSuffix("datebook-Test\n"), "\(titles)")
    }
}
