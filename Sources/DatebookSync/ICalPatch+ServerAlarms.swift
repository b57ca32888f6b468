import DatebookCore
import DatebookICal
import DatebookInterchange
import DatebookStore
import Foundation

/// The VALARMs of a server's text that datebook did not write: an alert removed in datebook that
/// one of them gives is removed from the server by removing exactly that block; the others, and
/// every line around them, stay byte for byte.
extension ICalPatch {
    /// The name of the change whose lines are the TRIGGER lines (as `ICalAlarm.triggerLine` writes
    /// them) of the server's VALARMs to remove, one per block; it writes no line itself.
    public static let serverAlarmsRemoved = "VALARM:server"

    /// One VALARM block of the target component: its line range (BEGIN to END), whether datebook
    /// wrote it, and its TRIGGER line (unfolded).
    struct AlarmBlock {
        var lines: Range<Int>
        var marked: Bool
        var trigger: String?
    }

    /// The target component's VALARM blocks, in order.
    static func alarmBlocks(_ lines: [String], _ range: ClosedRange<Int>) -> [AlarmBlock] {
        var blocks: [AlarmBlock] = []
        var index = range.lowerBound + 1
        while index < range.upperBound {
            guard lines[index].uppercased() == "BEGIN:VALARM" else {
                index += 1
                continue
            }
            var end = index + 1
            var block = AlarmBlock(lines: index..<index, marked: false, trigger: nil)
            while end < range.upperBound, lines[end].uppercased() != "END:VALARM" {
                let line = unfold(lines[end])
                block.marked = block.marked || line.uppercased() == alarmMarker
                if propertyName(line) == "TRIGGER", block.trigger == nil { block.trigger = line }
                end += 1
            }
            block.lines = index..<(end + 1)
            blocks.append(block)
            index = end + 1
        }
        return blocks
    }

    /// The server's blocks (not datebook's) whose alert is one of `triggers`, each trigger taking one block.
    static func serverAlarmBlocks(_ lines: [String], _ range: ClosedRange<Int>, removing triggers: [String]) -> [Range<Int>] {
        guard !triggers.isEmpty else { return [] }
        var left = triggers
        return alarmBlocks(lines, range).compactMap { block in
            guard !block.marked, let trigger = block.trigger.flatMap(alarm(trigger:)).flatMap(PlannerICS.alert),
                  let at = left.firstIndex(of: PlannerICS.alarm(trigger).triggerLine) else { return nil }
            left.remove(at: at)
            return block.lines
        }
    }

    /// The alarm a TRIGGER line gives (`TRIGGER;RELATED=END:-PT15M`, `TRIGGER;VALUE=DATE-TIME:20261224T080000Z`);
    /// nil for one datebook does not read.
    static func alarm(trigger line: String) -> ICalAlarm? {
        guard let colon = line.firstIndex(of: ":") else { return nil }
        let parameters = line[..<colon].uppercased().split(separator: ";").dropFirst()
        let value = String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
        if parameters.contains("VALUE=DATE-TIME") {
            guard value.count == 16, value.hasSuffix("Z"),
                  let instant = ISOInstant.parse(String(value.prefix(4)) + "-" + value.dropFirst(4).prefix(2) + "-" + value.dropFirst(6).prefix(2)
                                                 + "T" + value.dropFirst(9).prefix(2) + ":" + value.dropFirst(11).prefix(2) + ":"
                                                 + value.dropFirst(13).prefix(2) + "Z") else { return nil }
            return .at(instant)
        }
        guard let seconds = durationSeconds(value) else { return nil }
        return parameters.contains("RELATED=END") ? .beforeEnd(-seconds) : .beforeStart(-seconds)
    }

    /// An RFC 5545 duration (`-PT15M`, `P1D`, `-P1W`, `P1DT1H30M`) in seconds; nil when malformed.
    /// Read by `LeadTime(duration:)` once its date part (weeks, days) and time part are checked.
    static func durationSeconds(_ text: String) -> Int? {
        var rest = Substring(text.uppercased())
        var sign = 1
        if rest.first == "-" || rest.first == "+" {
            sign = rest.first == "-" ? -1 : 1
            rest = rest.dropFirst()
        }
        guard rest.first == "P" else { return nil }
        let parts = rest.dropFirst().split(separator: "T", maxSplits: 1, omittingEmptySubsequences: false)
        let date = parts[0], time = parts.count > 1 ? parts[1] : ""
        guard parts.count == 1 || !time.isEmpty, date.allSatisfy({ $0.isNumber || $0 == "W" || $0 == "D" }),
              time.allSatisfy({ $0.isNumber || "HMS".contains($0) }),
              let lead = LeadTime(duration: String(date + time).lowercased()) else { return nil }
        return sign * lead.totalSeconds
    }
}
