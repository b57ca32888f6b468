import DatebookCore
import Foundation

/// A series' first occurrence read from its own row, where nothing in its recurrence can move it:
/// then "the first occurrence at or after X", for an X before the series starts, is its start,
/// and no expansion is needed.
///
/// RFC 5545 makes DTSTART the first instance of an RRULE even when the rule would not give it,
/// and `RecurrenceExpander` does so (`CountedSteps`, `DaySteps`, and a refused or unreadable
/// rule yields DTSTART alone). What can remove it or come before it is an EXDATE or EXRULE, an
/// RDATE, an UNTIL (before DTSTART there is no occurrence at all) and a COUNT below 1: a rule
/// with any of them is left to the expansion. So is a timed start whose wall-clock time does not
/// name it back in its zone (the second 02:30 of a night the clocks go back), since the
/// expansion walks wall-clock times.
///
/// The digest's Future section asks this for every series that begins past the materialised
/// horizon (1,115 of 2,000 on the 20k bench planner): on a loaded two-core host its
/// `SeriesReach.first` expansions were 40 % of a digest's 100 ms of CPU (perf, SQLite).
/// `SeriesStartTests` checks that `SeriesReach.first` answers as the plain expansion does.
public enum SeriesStart {
    /// The key of the first occurrence of the event starting at `start` that repeats by
    /// `recurrence`, when it is certainly its start; nil when only an expansion can tell.
    public static func certainFirstKey(start: EventStart, timeZone: String, recurrence: String) -> Int64? {
        guard plainRule(recurrence) else { return nil }
        let key = start.occurrenceKey
        guard case .instant(let date) = start else { return key }
        guard date.timeIntervalSince1970 == TimeInterval(key) else { return nil }
        // The expansion reads an instant as a wall-clock time in its zone and back. With no change
        // of offset in the three hours before (DST moves clocks by at most two), that wall-clock
        // time has not been shown before and names the instant again; else walk it as the expansion does.
        let zone = TimeZone(identifier: timeZone) ?? TimeZone(secondsFromGMT: 0) ?? .current
        if zone.secondsFromGMT(for: date) == zone.secondsFromGMT(for: date.addingTimeInterval(-3 * 3_600)) { return key }
        return ICalLocalDateTime.of(date, in: zone).instant(in: zone) == date ? key : nil
    }

    /// A recurrence of one RRULE line with no UNTIL and no COUNT below 1.
    static func plainRule(_ recurrence: String) -> Bool {
        // One line of printable ASCII (what `--repeat` and planner documents hold) is read here;
        // anything else (several lines, other characters) by `RecurrenceText`, as the expansion reads it.
        let oneLine = recurrence.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
        let upper = recurrence.trimmingWhitespace().uppercased()
        let rule: String
        if oneLine, !["RDATE", "EXDATE", "EXRULE"].contains(where: upper.hasPrefix) {
            rule = upper.hasPrefix("RRULE:") ? String(upper.dropFirst(6)) : upper
        } else {
            let text = RecurrenceText(recurrence)
            guard let parsed = text.rule, text.rdates.isEmpty, text.exdates.isEmpty, text.exrules.isEmpty,
                  !recurrence.contains(where: \.isNewline) else { return false }
            rule = parsed
        }
        for part in rule.split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1)
            switch pair.first.map({ $0.trimmingWhitespace().uppercased() }) {
            case "UNTIL": return false
            case "COUNT":
                guard pair.count == 2, let count = Int(pair[1].trimmingWhitespace()), count >= 1 else { return false }
            default: continue
            }
        }
        return true
    }
}
