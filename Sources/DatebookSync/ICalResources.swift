import Foundation

/// Line-level work on the iCalendar text of CalDAV resources (one VCALENDAR per resource).
public enum ICalResources {
    /// One VCALENDAR holding the components of every text (their VEVENTs, VTODOs and VTIMEZONEs),
    /// so the iCalendar room reads a calendar's resources as one file: VTODOs then find their
    /// RELATED-TO event in another resource, and lone ones share one "Tasks" event.
    public static func combine(_ texts: [String]) -> Data {
        var out = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//datebook//CalDAV//EN\r\n"
        for text in texts {
            var depth = 0
            var keeping = false
            for line in lines(text) {
                let upper = line.prefix(12).uppercased()
                if line.first == " " || line.first == "\t" {
                    if keeping { out += line + "\r\n" }
                    continue
                }
                if upper.hasPrefix("BEGIN:") { depth += 1 }
                keeping = depth >= 2
                if upper.hasPrefix("END:") { depth -= 1 }
                if keeping { out += line + "\r\n" }
            }
        }
        out += "END:VCALENDAR\r\n"
        return Data(out.utf8)
    }

    /// The UID of the first component that has one (unfolded), or nil.
    public static func uid(of text: String) -> String? {
        var found: String?
        for line in lines(text) {
            if let value = found {
                guard line.first == " " || line.first == "\t" else { return value }
                found = value + line.dropFirst()
            } else if line.prefix(4).uppercased() == "UID:" {
                found = String(line.dropFirst(4))
            } else if line.prefix(4).uppercased() == "UID;", let colon = line.firstIndex(of: ":") {
                found = String(line[line.index(after: colon)...])
            }
        }
        return found
    }

    /// The text's lines without their CR LF (or LF).
    static func lines(_ text: String) -> [Substring] {
        // "\r\n" is one Character in Swift: split on it as well as on a bare "\n".
        text.split(omittingEmptySubsequences: true) { $0 == "\r\n" || $0 == "\n" }
    }
}
