@testable import DatebookCLI
import Foundation
import Testing

struct DemoTests {
    @Test func demoAgendaMatchesGoldenFile() {
        let sandbox = Sandbox()
        let run = sandbox.run(["demo"])
        #expect(run.code == 0)
        snapshots.expect(run.out, named: "demo-list.txt")
        #expect(run.err.contains("sample planner (9 events)"))
    }

    /// `tasks` across events, grouped by status with counts: the sample planner's tasks, all of
    /// them and the open ones (a wide title, an all-day event and one in the past among them).
    @Test func tasksAcrossEventsMatchGoldenFiles() {
        let sandbox = Sandbox()
        sandbox.run(["demo"])
        snapshots.expect(sandbox.run(["tasks"]).out, named: "demo-tasks.txt")
        snapshots.expect(sandbox.run(["tasks", "--status", "open"]).out, named: "demo-tasks-open.txt")
        #expect(sandbox.run(["tasks", "--status", "doing"]).out.hasPrefix("Doing ("))
    }

    @Test func demoInNewYorkMatchesGoldenFile() {
        var sandbox = Sandbox()
        sandbox.tz = "America/New_York"
        sandbox.now = "2026-03-05 17:20"
        snapshots.expect(sandbox.run(["demo"]).out, named: "demo-list-new-york.txt")
    }

    @Test func runningDemoTwiceDoesNotDuplicateTheSample() throws {
        let sandbox = Sandbox()
        sandbox.run(["demo"])
        sandbox.run(["demo"])
        let export = sandbox.run(["export"])
        let root = try JSONSerialization.jsonObject(with: Data(export.out.utf8)) as? [String: Any]
        #expect((root?["events"] as? [Any])?.count == 9)
    }

    @Test func listFiltersOnePeriod() {
        let sandbox = Sandbox()
        sandbox.run(["demo"])
        let run = sandbox.run(["list", "--period", "next30"])
        #expect(run.out.hasPrefix("Next 30 Days\n"))
        #expect(run.out.contains("Sayulita Trip"))
        #expect(!run.out.contains("Pagliacci"))
        #expect(sandbox.run(["agenda", "--period", "past"]).out.contains("WWDC"))
    }

    @Test func listJSONIsValidAndCarriesBadges() throws {
        let sandbox = Sandbox()
        sandbox.run(["demo"])
        let run = sandbox.run(["list", "--json"])
        let root = try #require(try JSONSerialization.jsonObject(with: Data(run.out.utf8)) as? [String: Any])
        let periods = try #require(root["periods"] as? [[String: Any]])
        #expect(periods.map { $0["period"] as? String } == ["next7", "next30", "future", "past"])
        let first = try #require((periods[0]["events"] as? [[String: Any]])?.first)
        #expect(first["title"] as? String == "Pagliacci")
        #expect(first["badge"] as? Int == 2)
    }

    @Test func emptyStoreSaysHowToAddAnEvent() {
        let run = Sandbox().run(["list"])
        #expect(run.code == 0)
        #expect(run.out.contains("No events"))
    }
}

struct EditingTests {
    @Test func addShowEditTaskAndRemoveAnEvent() throws {
        let sandbox = Sandbox()
        let added = sandbox.run(["add", "Team sync", "--at", "tomorrow 10:00", "--symbol", "person.3.fill", "--event-color", "indigo",
                                 "--task", "Agenda", "--task", "Slides", "--alert", "15m", "--notes", "Room 4"])
        #expect(added.code == 0, "\(added.err)")
        #expect(added.out.contains("👥 Team sync"))
        #expect(added.out.contains("Tue 2026-12-01 10:00"))
        #expect(added.out.contains("2 left"))

        var show = sandbox.run(["show", "Team sync"])
        #expect(show.out.contains("alerts   15m before"))
        #expect(show.out.contains("1. [ ] Agenda"))
        #expect(show.out.contains("notes    Room 4"))

        #expect(sandbox.run(["task", "start", "Team sync", "Slides"]).code == 0)
        #expect(sandbox.run(["task", "done", "Team sync", "1"]).out.contains("(1 left)"))
        #expect(sandbox.run(["task", "add", "Team sync", "Book room"]).code == 0)
        show = sandbox.run(["show", "Team sync"])
        #expect(show.out.contains("1. [x] Agenda"))
        #expect(show.out.contains("2. [~] Slides"))
        #expect(show.out.contains("3. [ ] Book room"))
        #expect(sandbox.run(["task", "undo", "Team sync", "1"]).out.contains("[ ]"))
        #expect(sandbox.run(["task", "rm", "Team sync", "3"]).out.contains("removed task 3 'Book room'"))

        let id = String(show.out.split(separator: "\n")[1].split(separator: " ").last ?? "")
        let edited = sandbox.run(["edit", String(id.prefix(4)), "--title", "Team retro", "--at", "2026-12-02 15:00", "--event-color", "mint"])
        #expect(edited.code == 0, "\(edited.err)")
        #expect(edited.out.contains("Team retro"))
        #expect(edited.out.contains("Wed 2026-12-02 15:00"))

        let tasks = sandbox.run(["tasks", "--status", "open"])
        #expect(tasks.out.contains("To do (1)"))
        #expect(tasks.out.contains("Doing (1)"))

        // One event's tasks: only its own, by status; an unknown event is the usual resolver error.
        sandbox.run(["add", "Other", "--at", "2026-12-03 10:00", "--task", "Elsewhere"])
        let own = sandbox.run(["tasks", "Team retro"])
        #expect(own.code == 0)
        #expect(own.out.contains("To do (1)") && own.out.contains("Doing (1)") && own.out.contains("Agenda"))
        #expect(!own.out.contains("Elsewhere"))
        #expect(sandbox.run(["tasks", "Team retro", "--status", "done"]).out.contains("No tasks with status done in "))
        #expect(sandbox.run(["tasks", "Nope"]).code == 64)

        #expect(sandbox.run(["rm", "Team retro"]).code == 0)
        #expect(sandbox.run(["show", "Team retro"]).code == 64)
    }

    @Test func allDayEventsShowAsDates() {
        let sandbox = Sandbox()
        let run = sandbox.run(["add", "Christmas", "--at", "2026-12-25", "--symbol", "gift"])
        #expect(run.out.contains("Fri 2026-12-25 all day"))
        #expect(sandbox.run(["add", "Party", "--at", "2026-12-31 20:00", "--all-day"]).out.contains("Thu 2026-12-31 all day"))
    }

    @Test func exportImportRoundTripsThroughTheCLI() throws {
        let first = Sandbox()
        first.run(["demo"])
        first.run(["add", "Ümlaut \"quoted\" 日本", "--at", "+3d", "--task", "a", "--alert", "1d", "--notes", "x\ny"])
        let exported = first.run(["export"]).out
        let path = first.home + "/planner.json"
        #expect(first.run(["export", "-o", path]).code == 0)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == exported)
        let second = Sandbox()
        let imported = second.run(["import", path])
        #expect(imported.out == "imported 10 events from \(path)\n")
        #expect(second.run(["export"]).out == exported)
    }

    @Test func calendarMarksEventDays() {
        let sandbox = Sandbox()
        sandbox.run(["demo"])
        snapshots.expect(sandbox.run(["cal", "2026-12"]).out, named: "cal-2026-12.txt")
        snapshots.expect(sandbox.run(["cal", "--color", "always"]).out, named: "cal-color.txt")
        // On a terminal colour is automatic and NO_COLOR turns it off; an explicit --color always wins (no-color.org).
        #expect(sandbox.run(["cal"], terminal: true).out.contains("\u{1B}["))
        #expect(!sandbox.run(["cal"], environment: ["NO_COLOR": "1"], terminal: true).out.contains("\u{1B}["))
        #expect(!sandbox.run(["cal"]).out.contains("\u{1B}["))
        #expect(sandbox.run(["cal", "--color", "always"]).out.contains("\u{1B}[1;7m30\u{1B}[0m"))
    }
}
