import DatebookCore
import DatebookStore

/// Finds the event an EVENT argument names: a whole id, an id prefix of at least 4 characters, or an exact title.
enum EventResolver {
    static func resolve(_ reference: String, in store: any PlannerStore, context: Context) throws -> Event {
        let trimmed = reference.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { throw CLIError.usage("EVENT is empty: give an id prefix (4+ characters) or a title") }
        // A whole id first: planner JSON may bring ids that are not hex (`fill1-0015`).
        if let exact = try store.event(id: trimmed) { return exact }
        var candidates: [Event] = []
        let hex = trimmed.allSatisfy { $0.isHexDigit }
        if hex, trimmed.count >= EventID.minimumPrefix {
            candidates = try store.events(idPrefix: trimmed)
        }
        if candidates.isEmpty {
            candidates = try store.events(titled: trimmed)
        }
        // Then a prefix of such an id (a title wins over it, as before).
        if candidates.isEmpty, !hex, trimmed.count >= EventID.minimumPrefix, !trimmed.contains(" ") {
            candidates = try store.events(idPrefix: trimmed)
        }
        switch candidates.count {
        case 1:
            return candidates[0]
        case 0:
            var message = "no event matches '\(trimmed)'"
            if hex, trimmed.count < EventID.minimumPrefix {
                message += " (an id prefix needs at least \(EventID.minimumPrefix) characters)"
            }
            throw CLIError.usage(message + "; 'datebook list' shows ids and titles")
        default:
            let list = candidates.prefix(5).map { event in
                event.shortID + " " + TextWidth.clean(event.title) + " (" + Rows.when(event.start, context) + ")"
            }.joined(separator: ", ")
            throw CLIError.usage("'\(trimmed)' matches \(candidates.count) events: \(list); give an id prefix instead")
        }
    }
}

extension Character {
    fileprivate var isHexDigit: Bool { isASCII && (isNumber || ("a"..."f").contains(lowercased()) ) }
}
