import Foundation

/// What a row that stands for a whole series says of its rule (`repeats weekly`): Future lists
/// each series once, at its next occurrence, in `list`, the digest, `preview` and the web agenda.
public enum SeriesRule {
    /// `daily`, `weekly`, `monthly` or `yearly` for a rule of FREQ alone, else nil.
    public static func frequency(_ recurrence: String) -> String? {
        guard let rule = rule(recurrence) else { return nil }
        let named = ["FREQ=DAILY": "daily", "FREQ=WEEKLY": "weekly", "FREQ=MONTHLY": "monthly", "FREQ=YEARLY": "yearly"]
        return named[rule.uppercased()]
    }

    /// The RRULE value of a stored recurrence (its first line), nil when it repeats on extra dates only.
    public static func rule(_ recurrence: String) -> String? {
        let first = recurrence.split(whereSeparator: \.isNewline).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        guard !first.isEmpty, !["RDATE", "EXDATE", "EXRULE"].contains(where: first.uppercased().hasPrefix) else { return nil }
        return first.uppercased().hasPrefix("RRULE:") ? String(first.dropFirst(6)) : first
    }

    /// `repeats weekly`, or `repeats FREQ=MONTHLY;BYDAY=1MO` for a rule with more parts.
    public static func english(_ recurrence: String) -> String {
        "repeats " + (frequency(recurrence) ?? rule(recurrence) ?? "on extra dates")
    }
}
