import Foundation

extension LeadTime {
    /// Reads an alert as a person writes it: `1h` or `1h before start`, `15m before end`,
    /// `at start`, `at end`, `at WHEN` (read by `parser`, in its zone: `at 2026-12-24 09:00`), or
    /// a stored form (`end-15m`, `@2026-12-24T08:00:00Z`); nil when it is none of these.
    public init?(phrase text: String, parser: WhenParser) {
        let words = text.split(whereSeparator: \.isWhitespace).map { $0.lowercased() }
        switch words.count {
        case 0: return nil
        case 1: self.init(text.trimmingCharacters(in: .whitespaces))
        case 2 where words == ["at", "start"]: self.init()
        case 2 where words == ["at", "end"]: self.init(anchor: .end)
        case 3 where words[1] == "before" && ["start", "end"].contains(words[2]):
            guard let lead = LeadTime(duration: words[0]) else { return nil }
            self.init(days: lead.days, seconds: lead.seconds, anchor: words[2] == "end" ? .end : .start)
        default:
            guard let rest = Self.when(in: text), let when = try? parser.parse(rest) else { return nil }
            switch when {
            case .instant(let date): self = .at(date)
            case .date(let day): self = .at(day.start(in: parser.calendar))
            }
        }
    }

    /// Why `at WHEN` was not read, when the parser refused its WHEN (a time the clocks skip, say);
    /// nil for any other phrase.
    public static func refusal(phrase text: String, parser: WhenParser) -> WhenError? {
        guard let rest = when(in: text) else { return nil }
        do {
            _ = try parser.parse(rest)
            return nil
        } catch {
            return error as? WhenError
        }
    }

    /// The WHEN of `at WHEN` (more than one word after `at`, or one that is not `start` or `end`).
    private static func when(in text: String) -> String? {
        let words = text.split(whereSeparator: \.isWhitespace).map { $0.lowercased() }
        guard words.count >= 2, words[0] == "at", !(words.count == 2 && ["start", "end"].contains(words[1])) else { return nil }
        return text.trimmingCharacters(in: .whitespaces).dropFirst(2).trimmingCharacters(in: .whitespaces)
    }

    /// How `show` writes an alert not before the start: `15m before end`, `at end`,
    /// `at 2026-12-24 09:00` (in `zone`).
    public func phrase(in zone: TimeZone) -> String {
        switch anchor {
        case .start: return totalSeconds == 0 ? "at start" : durationText + " before start"
        case .end: return totalSeconds == 0 ? "at end" : durationText + " before end"
        case .instant(let date): return "at " + LocalTime(date, in: zone).listFormat
        }
    }
}
