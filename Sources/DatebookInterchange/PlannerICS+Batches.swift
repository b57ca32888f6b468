import DatebookCore
import DatebookICal
import DatebookStore
import Foundation

/// An import read in batches (`PlannerStore.importICS`): each batch is joined as `convert` joins a
/// whole file and saved in the import's one transaction, and what ties components of different
/// batches together is settled here.
///
/// - An event a later batch changes again (a repeated UID, an override's master, the event of a
///   VTODO) is read back from the store, changed and saved again (`rewritten`); it keeps the tasks
///   the file gave it so far, and the symbol and colour it would have had as a whole file.
/// - VEVENTs with a RECURRENCE-ID wait for the end (`finishBatches`): `convert` also joins every
///   master before any override.
/// - A VTODO whose event has not come yet waits until it comes, and goes first among its tasks (it
///   came first in the file); VTODOs of no event wait for the end, where the "Tasks" event gets
///   them in file order.
/// - A VTODO that is part of another (RELATED-TO a VTODO) goes where its top VTODO goes, whichever
///   batch either is in: one naming a VTODO not seen yet waits for it, and every VTODO's UID is kept
///   (as a join key) with the event it went to or waits for, so later parts find their top.
extension PlannerICS {
    /// VEVENTs per batch: 1M VEVENTs + 3M VTODOs peaked at 2.2 GB read whole.
    public static let importBatchEvents = 4_096

    struct Batches {
        /// What later batches need of an event an earlier one saved.
        struct Placed {
            /// The symbol and colour (by `allCases` index) the event takes when a component of its id
            /// gives none: the stored event's before the import; `Placed.byID` when there was none.
            var symbol: UInt8
            var color: UInt8
            /// Whether VTODOs of the file replaced its stored tasks already.
            var hasFileTasks: Bool

            static let byID: UInt8 = .max
        }

        /// A VTODO waiting for its event, or for the end.
        struct Waiting {
            var todo: ICalTodo
            var made: Converted.Todo
        }

        /// The store the batches go to; nil when the file is joined whole (nothing here is used).
        let store: (any PlannerStore)?
        /// True while the last join runs (`finishBatches`).
        var isLast = false
        var placed: [UInt64: Placed] = [:]
        /// The stored look of events first placed by the batch being joined, until `placed`.
        private var looks: [UInt64: (symbol: UInt8, color: UInt8)] = [:]
        var masterSequences: [String: Int] = [:]
        var overrides: [ICalEvent] = []
        private var waiting: [Waiting?] = []
        /// Positions in `waiting` by the join key they wait for: of the event their top VTODO's
        /// RELATED-TO names, or of a VTODO's UID not seen yet.
        private var pending: [UInt64: [Int]] = [:]
        /// By the join key of a VTODO's UID, that of the event it went to, or of what it waits for.
        /// 16 bytes a VTODO (about 70 MB for 3M): any later VTODO may name any earlier one.
        private var todoTargets: [UInt64: UInt64] = [:]
        /// Ids of the last joined batch's events that an earlier batch saved.
        private(set) var rewritten: Set<String> = []
        /// UIDs of the recurring events saved (the CLI names them in warnings about truncated series).
        private(set) var recurringUIDs: [String: String] = [:]

        init(store: (any PlannerStore)? = nil) { self.store = store }

        /// Events saved so far, once the last batch is joined.
        var count: Int { placed.count }

        /// The stored event the join starts `id` from: for an event an earlier batch saved, that copy
        /// (its tasks) with the symbol and colour the stored event had before the import.
        mutating func stored(_ id: String, options: Options) -> Event? {
            guard let store else { return options.existing(id) }
            let key = JoinIndex.key(id)
            guard let entry = placed[key] else {
                let stored = options.existing(id)
                if let stored { looks[key] = (Self.index(stored.symbol), Self.index(stored.color)) }
                return stored
            }
            guard var event = try? store.importedEvent(id: id) else { return nil }
            let look = PlannerICS.defaultLook(id: id)
            event.symbol = entry.symbol == Placed.byID ? look.symbol : Symbol.allCases[Int(entry.symbol)]
            event.color = entry.color == Placed.byID ? look.color : EventColor.allCases[Int(entry.color)]
            return event
        }

        private static func index(_ symbol: Symbol) -> UInt8 { UInt8(Symbol.allCases.firstIndex(of: symbol) ?? 0) }
        private static func index(_ color: EventColor) -> UInt8 { UInt8(EventColor.allCases.firstIndex(of: color) ?? 0) }

        /// Reads back an event an earlier batch saved into this batch's result; its position, or nil
        /// when no earlier batch saved `id`.
        func load(_ id: String, uid: String?, into result: inout ICSImport, index: inout JoinIndex, options: Options) -> Int? {
            guard let store, placed[JoinIndex.key(id)] != nil, let event = try? store.importedEvent(id: id) else { return nil }
            let position = result.events.count
            result.events.append(event)
            _ = index.insert(id, at: position)
            if let uid { result.uids[id] = uid }
            return position
        }

        /// `load` by join key: the ids an import makes are the 16 hex digits their key spells.
        func load(key: UInt64, into result: inout ICSImport, index: inout JoinIndex, options: Options) -> Int? {
            guard store != nil, placed[key] != nil else { return nil }
            return load(EventID.hex(key), uid: nil, into: &result, index: &index, options: options)
        }

        /// Per event, whether the file's VTODOs replaced its stored tasks in an earlier batch.
        func cleared(_ events: some Collection<Event>) -> [Bool] {
            guard store != nil else { return Array(repeating: false, count: events.count) }
            return events.indices.map { placed[JoinIndex.key(events[$0].id)]?.hasFileTasks == true }
        }

        /// Keeps a VTODO for a later batch until the event or VTODO of join key `key` comes; false when
        /// it cannot wait (a whole file, or the last join).
        mutating func postpone(_ todo: borrowing ICalTodo, _ made: borrowing Converted.Todo, until key: UInt64) -> Bool {
            guard store != nil, !isLast else { return false }
            pending[key, default: []].append(waiting.count)
            todoTargets[made.key] = key
            waiting.append(Waiting(todo: copy todo, made: copy made))
            return true
        }

        /// Records that the VTODO of UID key `key` went to the event of join key `eventKey`.
        mutating func placedTodo(_ key: UInt64, inEvent eventKey: UInt64) {
            if store != nil { todoTargets[key] = eventKey }
        }

        /// The join key of the event where the VTODO of UID key `key`, of an earlier batch, went or waits.
        func todoTarget(_ key: UInt64) -> UInt64? { todoTargets.isEmpty ? nil : todoTargets[key] }

        /// The waiting VTODOs of `events` and of the VTODOs `todos` (every one in the last join), in
        /// file order, taken out. One waiting twice (for a VTODO, then for its event) keeps its line.
        mutating func waiting(for events: [Event], todos: [[Converted.Todo]]) -> [(ICalTodo, Converted.Todo)] {
            guard !pending.isEmpty else { return [] }
            var found: [Int] = []
            if isLast {
                found = Array(waiting.indices)
                pending = [:]
            } else {
                for n in events.indices {
                    if let positions = pending.removeValue(forKey: JoinIndex.key(events[n].id)) { found += positions }
                }
                for part in todos {
                    for todo in part {
                        if let positions = pending.removeValue(forKey: todo.key) { found += positions }
                    }
                }
            }
            let taken = found.compactMap { take($0) }.sorted { $0.0.sourceLine < $1.0.sourceLine }
            if isLast { waiting = [] }
            return taken
        }

        private mutating func take(_ position: Int) -> (ICalTodo, Converted.Todo)? {
            guard let entry = waiting[position] else { return nil }
            waiting[position] = nil
            return (entry.todo, entry.made)
        }

        /// Records the events of a joined batch as saved; `cleared`: by position, whether the file's
        /// VTODOs replaced their stored tasks.
        mutating func placed(_ events: [Event], cleared: [Bool], uids: [String: String]) {
            guard store != nil else { return }
            rewritten = []
            // By position: iterating the events would copy each one (its strings retained and released).
            for at in events.indices {
                let id = events[at].id
                let key = JoinIndex.key(id)
                let fileTasks = at < cleared.count && cleared[at]
                // One probe of the map (millions of keys) through the subscript's `_modify`.
                func place(_ entry: inout Placed?) {
                    if var earlier = entry {
                        rewritten.insert(id)
                        earlier.hasFileTasks = earlier.hasFileTasks || fileTasks
                        entry = earlier
                    } else {
                        let look = looks[key]
                        entry = Placed(symbol: look?.symbol ?? Placed.byID, color: look?.color ?? Placed.byID, hasFileTasks: fileTasks)
                    }
                }
                place(&placed[key])
                if events[at].recurrence != nil, let uid = uids[id] { recurringUIDs[id] = uid }
            }
            looks = [:]
        }
    }

    /// Joins one batch of an import read in batches; its VEVENTs with a RECURRENCE-ID wait for
    /// `finishBatches`.
    static func convertBatch(_ parts: consuming [ICalDocument], fileName: String, options: Options,
                             batches: inout Batches) -> ICSImport {
        // By position: iterating the components would copy each one (its strings retained and released).
        for p in parts.indices where parts[p].events.indices.contains(where: { parts[p].events[$0].recurrenceID != nil }) {
            var masters: [ICalEvent] = []
            for n in parts[p].events.indices {
                if parts[p].events[n].recurrenceID != nil {
                    batches.overrides.append(parts[p].events[n])
                } else {
                    masters.append(parts[p].events[n])
                }
            }
            parts[p].events = masters
        }
        return convert(parts, fileName: fileName, options: options, batches: &batches)
    }

    /// The last join of an import read in batches: the overrides, then the VTODOs that found no event.
    static func finishBatches(fileName: String, options: Options, batches: inout Batches) -> ICSImport {
        batches.isLast = true
        let overrides = batches.overrides
        batches.overrides = []
        return convert([ICalDocument(events: overrides)], fileName: fileName, options: options, batches: &batches)
    }
}
