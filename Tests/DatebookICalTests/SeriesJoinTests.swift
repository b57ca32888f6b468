@testable import DatebookICal
import Foundation
import Testing

/// `ICalRecurrence.join` undoes `split`: the export writes a series split by RANGE=THISANDFUTURE
/// overrides as its master's one rule plus overrides without rules, and only when that rule gives
/// exactly the parts' instances.
struct SeriesJoinTests {
    static let berlin = TestSupport.zone("Europe/Berlin")
    static let start = ICalDateValue.zoned(TestSupport.instant(2027, 3, 1, 9, zone: "Europe/Berlin"), tzid: "Europe/Berlin")

    /// The master and the part `split` makes of `rule` at Mon 2027-03-22 09:00, moved to Tue 10:00 (across the DST change).
    static func parts(_ rule: String) throws -> (master: ICalSeriesPart, tail: ICalRecurrence.Tail) {
        let from = TestSupport.instant(2027, 3, 22, 9, zone: "Europe/Berlin")
        let moved = TestSupport.instant(2027, 3, 23, 10, zone: "Europe/Berlin")
        let split = try #require(ICalRecurrence.split(rrule: rule, rdates: [], exdates: [], start: start, at: from,
                                                      shift: moved.timeIntervalSince(from), timeZone: berlin))
        return (try #require(split.before), ICalRecurrence.Tail(from: from, start: .zoned(moved, tzid: "Europe/Berlin"), part: split.after))
    }

    @Test(arguments: ["FREQ=WEEKLY", "FREQ=WEEKLY;COUNT=10", "FREQ=WEEKLY;UNTIL=20270503T070000Z", "FREQ=WEEKLY;INTERVAL=3"])
    func joiningTheSplitPartsGivesTheRuleTheyCameFrom(_ rule: String) throws {
        let (master, tail) = try Self.parts(rule)
        let joined = try #require(ICalRecurrence.join(master: master, start: Self.start, tails: [tail], timeZone: Self.berlin))
        let window = DateInterval(start: TestSupport.instant(2027, 1, 1, zone: "UTC"), end: TestSupport.instant(2028, 1, 1, zone: "UTC"))
        let original = try ICalRecurrence.occurrences(rrule: rule, rdates: [], exdates: [], start: Self.start, duration: 0,
                                                      timeZone: Self.berlin, window: window, cap: 500).starts
        let again = try ICalRecurrence.occurrences(rrule: joined.rrule, rdates: joined.rdates, exdates: joined.exdates,
                                                   start: Self.start, duration: 0, timeZone: Self.berlin, window: window, cap: 500).starts
        #expect(again == original)
    }

    @Test func aPartWithAnotherRuleIsNotJoined() throws {
        var (master, tail) = try Self.parts("FREQ=WEEKLY")
        tail.part.rrule = "FREQ=DAILY"
        #expect(ICalRecurrence.join(master: master, start: Self.start, tails: [tail], timeZone: Self.berlin) == nil)
        master.rrule = nil
        #expect(ICalRecurrence.join(master: master, start: Self.start, tails: [tail], timeZone: Self.berlin) == nil)
    }
}
