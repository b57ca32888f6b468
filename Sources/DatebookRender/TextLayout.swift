import DatebookCore

/// Plain-text lines of the digest, fitted to 80 display columns before the template sees them,
/// so the text template only prints lines and cannot overflow whatever the titles hold.
enum TextLayout {
    static let titleColumns = 40
    static let whenColumns = 22
    static let taskColumns = 69

    /// `  🎭 Pagliacci                               Tue, Dec 1 7:00 AM      2 left`,
    /// then the location and the link if any, then one line per open task (in progress first) and per done task.
    static func eventLines(emoji: String, title: String, when: String, badge: String, repeats: String = "", location: String = "",
                           url: String = "", open: [EventTask], done: [EventTask]) -> [String] {
        var line = "  " + TextWidth.pad(emoji, to: 2) + " "
        line += TextWidth.pad(TextWidth.truncate(title, to: titleColumns), to: titleColumns) + "  "
        line += badge.isEmpty ? TextWidth.truncate(when, to: whenColumns + 10)
            : TextWidth.pad(TextWidth.truncate(when, to: whenColumns), to: whenColumns) + "  " + badge
        var lines = [trimmed(line)]
        if !repeats.isEmpty { lines.append("       🔁 " + TextWidth.truncate(repeats, to: taskColumns)) }
        if !location.isEmpty { lines.append("       📍 " + TextWidth.truncate(location, to: taskColumns)) }
        if !url.isEmpty { lines.append("       🔗 " + TextWidth.truncate(url, to: taskColumns)) }
        for task in open + done {
            let box = task.status == .doing ? "[~]" : task.status == .done ? "[x]" : "[ ]"
            lines.append("       " + box + " " + TextWidth.truncate(TextWidth.clean(task.text), to: taskColumns))
        }
        return lines
    }

    static func trimmed(_ line: String) -> String {
        var line = line
        while line.hasSuffix(" ") { line.removeLast() }
        return line
    }
}
