import DatebookStore
import Foundation

extension PlannerICS {
    /// The parts a series was split into by RANGE=THISANDFUTURE overrides during one join, so that a
    /// later override — the next link of a chain, or one instance of a moved part — reaches the part
    /// that now holds its instance. RECURRENCE-IDs name instances of the original series (RFC 5545,
    /// as recurring-ical-events reads them), so each part records the original instance it took
    /// over from and how far it moved the instances, both on the wall clock of the series' zone.
    struct SeriesParts {
        struct Part {
            /// The original instance the part begins at, as a wall-clock time read as UTC.
            var from: Date
            /// How far the part moved its instances, in wall-clock seconds.
            var shift: TimeInterval
            /// The part's event in the join's result.
            var position: Int
        }

        /// By the master's position in the join's result, sorted by `from`.
        private var parts: [Int: [Part]] = [:]

        mutating func add(_ part: Part, master: Int) {
            var list = parts[master] ?? []
            list.removeAll { $0.from == part.from }
            list.insert(part, at: list.firstIndex { $0.from > part.from } ?? list.count)
            parts[master] = list
        }

        /// The part holding the original instance at `wall` (a wall-clock time read as UTC): the last
        /// to begin before it; nil when the master itself holds it.
        func part(of master: Int, holding wall: Date) -> Part? {
            parts[master]?.last { $0.from < wall }
        }
    }
}
