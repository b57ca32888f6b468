@testable import DatebookCLI
import Foundation
import Testing

/// `add --at` as people type it: the config's locale, the warning for a start already past, and
/// the symbol chosen from the title.
struct WhenInputTests {
    static func sandbox() -> Sandbox {
        var sandbox = Sandbox()
        sandbox.now = "2026-12-03 07:34"
        return sandbox
    }

    @Test func aStartThatHasPassedWarnsAndNamesTheWhenForTomorrow() {
        let sandbox = Self.sandbox()
        let run = sandbox.run(["add", "Dentist", "--at", "6am"])
        #expect(run.code == 0)
        #expect(run.out.contains("Thu 2026-12-03 06:00"), "\(run.out)")
        #expect(run.err == "datebook: warning: 'Dentist' starts in the past (it is now Thu 2026-12-03 07:34); "
                + "for tomorrow's use --at \"tomorrow 6am\"\n")
        let tomorrow = sandbox.run(["add", "Dentist", "--at", "tomorrow 6am"])
        #expect(tomorrow.code == 0 && tomorrow.err.isEmpty, "\(tomorrow.err)")
        #expect(tomorrow.out.contains("Fri 2026-12-04 06:00"))
    }

    @Test(arguments: [
        (["--at", "today 6am"], true), (["--at", "2026-12-01"], true), (["--at", "6am", "--repeat", "daily"], false),
        (["--at", "today"], false), (["--at", "in 1 minute"], false), (["--at", "6am", "--end", "9am"], true),
    ])
    func onlyAnOnlyOccurrenceThatHasBegunWarns(options: [String], warns: Bool) {
        let run = Self.sandbox().run(["add", "Gym"] + options)
        #expect(run.code == 0, "\(run.err)")
        #expect(run.err.contains("starts in the past") == warns, "\(options): \(run.err)")
    }

    @Test func monthAndWeekdayNamesFollowTheConfigsLocale() throws {
        let sandbox = Self.sandbox()
        let config = try sandbox.writeConfig("{ locale: \"de_DE\" }")
        let run = sandbox.run(["--config", config, "add", "Bescherung", "--at", "24. Dezember 18:00"])
        #expect(run.code == 0, "\(run.err)")
        #expect(run.out.contains("Thu 2026-12-24 18:00"), "\(run.out)")
        let numeric = sandbox.run(["--config", config, "add", "Silvester", "--at", "31.12."])
        #expect(numeric.out.contains("Thu 2026-12-31 all day"), "\(numeric.out)")
        let american = sandbox.run(["add", "Silvester", "--at", "31.12."])
        #expect(american.code == 64)
        #expect(american.err.contains("\"31.12.\" is not a date in en_US's order month/day"), "\(american.err)")
    }

    @Test func anUnreadableWhenQuotesTheInputAsTypedAndSuggestsAForm() {
        let run = Self.sandbox().run(["add", "Party", "--at", "24dec18:00"])
        #expect(run.code == 64)
        #expect(run.err.hasPrefix("datebook: cannot read time \"24dec18:00\": \"24dec18:00\" is not a time like 18:00, 6am or 6:30 pm "
                                  + "(did you mean '24 dec 18:00'?)"), "\(run.err)")
    }

    @Test func aNewEventsSymbolComesFromItsTitle() {
        let sandbox = Self.sandbox()
        #expect(sandbox.run(["add", "Dentist", "--at", "tomorrow 9am"]).out.contains("😷 Dentist"))
        #expect(sandbox.run(["add", "Quarterly review", "--at", "tomorrow 9am"]).out.contains("🕒 Quarterly review"))
        #expect(sandbox.run(["add", "Dentist again", "--at", "tomorrow 10am", "--symbol", "star"]).out.contains("⭐ Dentist again"))
    }
}
