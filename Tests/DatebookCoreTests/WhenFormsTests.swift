@testable import DatebookCore
import Foundation
import Testing

/// Every form of ``WhenForms/table`` read with a fixed `now` (Thursday 2026-12-03 07:34, local) in
/// three zones, and the forms that move across a DST change.
struct WhenFormsTests {
    static let zones = ["America/New_York", "Europe/Berlin", "Asia/Kolkata"]

    /// The wall-clock result in the zone of `now` ("2026-12-24 18:00"), or the date of an all-day one.
    static let expected: [String: String] = [
        "2026-12-24 18:00": "2026-12-24 18:00",
        "2026-12-24": "2026-12-24",
        "18:00": "2026-12-03 18:00",
        "6am": "2026-12-03 06:00",
        "6:30 pm": "2026-12-03 18:30",
        "noon": "2026-12-03 12:00",
        "today 18:00": "2026-12-03 18:00",
        "tomorrow": "2026-12-04",
        "tomorrow at 9am": "2026-12-04 09:00",
        "in 2 hours": "2026-12-03 09:34",
        "in 3 days": "2026-12-06 07:34",
        "in 3 days at 9am": "2026-12-06 09:00",
        "+1h30m": "2026-12-03 09:04",
        "monday 10:00": "2026-12-07 10:00",
        "next monday": "2026-12-07",
        "next week": "2026-12-07",
        "dec 24 18:00": "2026-12-24 18:00",
        "Dec 24": "2026-12-24",
        "24 dec": "2026-12-24",
        "24 december 2027 9:30": "2027-12-24 09:30",
        "12/24": "2026-12-24",
    ]

    static func wallClock(_ when: When, in zone: TimeZone) -> String {
        switch when {
        case .date(let day): return day.description
        case .instant(let date):
            let t = LocalTime(date, in: zone)
            return t.date.description + " " + CivilDate.pad2(t.hour) + ":" + CivilDate.pad2(t.minute)
        }
    }

    static func parser(now: String, zone: String, locale: String = "en_US") -> WhenParser {
        let cal = calendar(zone)
        return WhenParser(now: local(now, cal), calendar: cal, locale: Locale(identifier: locale))
    }

    @Test(arguments: zones)
    func everyFormOfTheTableReadsAsItsMeaningSays(zone: String) throws {
        let parser = Self.parser(now: "2026-12-03 07:34", zone: zone)
        for (form, _) in WhenForms.table {
            if form.contains("+01:00") {
                #expect(try parser.parse(form) == .instant(Date(timeIntervalSince1970: 1_798_131_600)), "\(form)")  // 2026-12-24T17:00Z
                continue
            }
            guard let want = Self.expected[form] else {
                Issue.record("no expected value for '\(form)'")
                continue
            }
            #expect(Self.wallClock(try parser.parse(form), in: parser.calendar.timeZone) == want, "\(form) in \(zone)")
        }
    }

    @Test(arguments: [
        ("nov 2", "2027-11-02"),            // passed this year: next year's
        ("dec 3", "2026-12-03"),            // today is not passed
        ("December 24, 2027", "2027-12-24"),
        ("24th dec 8pm", "2026-12-24 20:00"),
        ("in an hour", "2026-12-03 08:34"),
        ("in 90m", "2026-12-03 09:04"),
        ("in 1 week", "2026-12-10 07:34"),
        ("at 9", "2026-12-03 09:00"),
        ("next week 9:00", "2026-12-07 09:00"),
        ("12/24/2027", "2027-12-24"),
        ("feb 29 2028", "2028-02-29"),
        ("THU 6 PM", "2026-12-03 18:00"),
    ])
    func readsTheVariantsPeopleType(text: String, want: String) throws {
        let parser = Self.parser(now: "2026-12-03 07:34", zone: "Europe/Berlin")
        #expect(Self.wallClock(try parser.parse(text), in: parser.calendar.timeZone) == want, "\(text)")
    }

    @Test(arguments: [
        ("de_DE", "24.12.", "2026-12-24"),
        ("de_DE", "24.12.2027", "2027-12-24"),
        ("de_DE", "24. Dezember 18:00", "2026-12-24 18:00"),
        ("de_DE", "Dez 24", "2026-12-24"),
        ("de_DE", "Montag 10:00", "2026-12-07 10:00"),
        ("de_DE", "nächster mittwoch", nil),
        ("en_GB", "24/12", "2026-12-24"),
        ("en_US", "12/24", "2026-12-24"),
        ("fr_FR", "24 décembre", "2026-12-24"),
        ("fr_FR", "lundi 9:00", "2026-12-07 09:00"),
    ] as [(String, String, String?)])
    func readsMonthAndWeekdayNamesAndTheNumericOrderOfTheLocale(locale: String, text: String, want: String?) throws {
        let parser = Self.parser(now: "2026-12-03 07:34", zone: "Europe/Berlin", locale: locale)
        guard let want else {
            #expect(throws: WhenError.self) { try parser.parse(text) }
            return
        }
        #expect(Self.wallClock(try parser.parse(text), in: parser.calendar.timeZone) == want, "\(text) in \(locale)")
    }

    /// Days are calendar days in the zone (23 or 25 hours across a change); hours are exact.
    @Test(arguments: [
        ("Europe/Berlin", "2027-03-27 12:00", "in 1 day", "2027-03-28 12:00"),
        ("Europe/Berlin", "2027-03-27 12:00", "in 24 hours", "2027-03-28 13:00"),
        ("Europe/Berlin", "2027-03-27 12:00", "tomorrow 2:30", "2027-03-28 03:30"),   // in the gap: moved forward
        ("Europe/Berlin", "2027-03-27 12:00", "tomorrow at 9am", "2027-03-28 09:00"),
        ("Europe/Berlin", "2027-10-30 12:00", "in 1 day", "2027-10-31 12:00"),
        ("Europe/Berlin", "2027-10-30 12:00", "in 24 hours", "2027-10-31 11:00"),
        ("America/New_York", "2027-03-13 12:00", "in 1 day", "2027-03-14 12:00"),
        ("America/New_York", "2027-03-13 12:00", "in 24 hours", "2027-03-14 13:00"),
        ("America/New_York", "2027-03-13 12:00", "next week 9am", "2027-03-15 09:00"),
        ("Asia/Kolkata", "2027-03-27 12:00", "in 24 hours", "2027-03-28 12:00"),
    ])
    func shiftsAcrossADaylightSavingChange(zone: String, now: String, text: String, want: String) throws {
        let parser = Self.parser(now: now, zone: zone)
        #expect(Self.wallClock(try parser.parse(text), in: parser.calendar.timeZone) == want, "\(text) in \(zone)")
    }

    @Test(arguments: [
        ("24dec18:00", "24dec18:00", "24 dec 18:00"),
        ("tomorrow9am", "tomorrow9am", "tomorrow 9am"),
        ("24apr", "24apr", "24 apr"),
        ("dec 24 25:00", "25:00", nil),
        ("in 2 hourz", "hourz", "in 2 hours"),
        ("in two hours", "two", "in 2 hours"),
        ("next weak", "weak", "week"),
        ("decmber 24", "decmber", "december"),
        ("tomorow at 9am", "tomorow", "tomorrow"),
        ("tomorrow at 9 o'clock", "o'clock", nil),
        ("dec 32", "32", "dec 24"),
        ("feb 30 2027", "30", nil),
        ("24/12", "24/12", "12/24"),
        ("tomorrow 9", "9", "9:00"),
        ("tomorrow monday", "monday", nil),
    ] as [(String, String, String?)])
    func namesTheWordItCouldNotReadWithTheInputAsTyped(text: String, token: String, suggestion: String?) {
        let parser = Self.parser(now: "2026-12-03 07:34", zone: "Europe/Berlin")
        do {
            let when = try parser.parse(text)
            Issue.record("\(text) read as \(when)")
        } catch let error as WhenError {
            #expect(error.token == token, "\(text)")
            #expect(error.suggestion == suggestion, "\(text)")
            #expect(error.description.hasPrefix("cannot read time \"\(text)\": \"\(token)\" is not "), "\(error)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}

/// A new event's symbol comes from its title's words, else the neutral clock: never at random.
struct SymbolFromTitleTests {
    @Test(arguments: [
        ("Dentist", Symbol.facemask), ("Flight to Lisbon", .airplane), ("Mum's birthday", .gift),
        ("Team sync", .person3), ("Pay the rent", .creditcard), ("Walk the dogs", .leaf),
        ("Concerts in the park", .micCircle), ("Something else", .clock), ("", .clock), ("Ünïcode wörds", .clock),
    ])
    func picksTheSymbolOfTheFirstTitleWordThatHasOne(title: String, symbol: Symbol) {
        #expect(Symbol.suggested(forTitle: title) == symbol, "\(title)")
    }

    @Test func theSameTitleAlwaysGetsTheSameSymbol() {
        let symbols = Set((0..<20).map { _ in Symbol.suggested(forTitle: "Quarterly review") })
        #expect(symbols == [Symbol.neutral])
    }
}
