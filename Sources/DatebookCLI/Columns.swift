import DatebookCore

/// Two-column listings (`help`, `templates`): the first column as wide as its longest entry
/// (display width) plus two spaces, so a long name never runs into its description.
enum Columns {
    static func aligned(_ rows: [(String, String)], indent: String = "  ", minimumWidth: Int = 0) -> String {
        let width = max(minimumWidth, rows.map { TextWidth.displayWidth($0.0) }.max() ?? 0) + 2
        return rows.map { left, right in
            (indent + TextWidth.pad(left, to: width) + right).trimmingTrailingSpaces + "\n"
        }.joined()
    }
}

private extension String {
    var trimmingTrailingSpaces: String {
        var text = self
        while text.hasSuffix(" ") { text.removeLast() }
        return text
    }
}
