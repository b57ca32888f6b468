import DatebookCore
import Foundation
import Testing

struct ZoneOffsetsTests {
    /// The remembered offset must equal Foundation's at every instant, across DST changes, zones
    /// with half- and quarter-hour offsets or a 30-minute DST (Lord Howe), and zones whose standard
    /// offset itself changed (Moscow 2011 and 2014, Samoa skipping a day in 2011).
    @Test(arguments: ["Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kathmandu",
                      "Europe/Moscow", "Pacific/Apia", "America/Sao_Paulo", "UTC"])
    func rememberedOffsetMatchesFoundation(zoneName: String) throws {
        let zone = try #require(TimeZone(identifier: zoneName))
        var offsets = ZoneOffsets(zone)
        var instant = Date(timeIntervalSince1970: 1_262_304_000)  // 2010-01-01
        let end = Date(timeIntervalSince1970: 1_893_456_000)  // 2030-01-01
        var checked = 0
        while instant < end {
            let expected = zone.secondsFromGMT(for: instant)
            #expect(offsets.secondsFromGMT(for: instant) == expected, "\(zoneName) at \(instant)")
            #expect(LocalTime(instant, in: &offsets) == LocalTime(instant, in: zone))
            instant += 7 * 3600 + 13 * 60  // steps that fall on every hour and minute of the day
            checked += 1
        }
        #expect(checked > 20_000)
    }

    /// Going back in time is a cache miss, not a wrong answer.
    @Test func instantsOutOfOrder() throws {
        let zone = try #require(TimeZone(identifier: "Europe/Berlin"))
        var offsets = ZoneOffsets(zone)
        let summer = Date(timeIntervalSince1970: 1_782_900_000)  // 2026-07
        let winter = Date(timeIntervalSince1970: 1_764_600_000)  // 2025-12
        #expect(offsets.secondsFromGMT(for: summer) == 7200)
        #expect(offsets.secondsFromGMT(for: winter) == 3600)
        #expect(offsets.secondsFromGMT(for: summer) == 7200)
    }
}
