import DatebookCore
import DatebookICal
import DatebookStore
import Foundation

/// Converts between iCalendar and planner events (the planner side of `DatebookICal`).
///
/// Ids are stable: `<16 hex>@datebook` UIDs (what `encode` writes) map back to that id; any other
/// UID becomes `EventID.stable(calendar + UID)`, so importing the same file again updates instead of
/// duplicating, and two feeds with the same UID stay apart. A RECURRENCE-ID override becomes its own
/// event and an EXDATE of its master; a cancelled instance becomes only the EXDATE.
public enum PlannerICS {
    public static let uidSuffix = "@datebook"

    /// The calendar `datebook import` records its events under (`event_sources`); its ids keep
    /// the ones datebook wrote into the UIDs (`…@datebook`), so export then import restores them.
    public static let importCalendar = "import"

    /// The id an event of `calendar` (not `importCalendar`) with this UID gets: an event made in
    /// datebook for a CalDAV calendar takes it, so the server's copy maps back to it.
    public static func eventID(uid: String, calendar: String) -> String { EventID.stable(calendar + "\u{0}" + uid) }

    /// A stored source (`UID`, or `UID#RECURRENCE-ID` for a moved instance) taken apart. Only a
    /// suffix written by `RecurrenceText.format` counts: a UID may hold `#` itself (the one made
    /// for a VEVENT without a UID does).
    public static func source(_ stored: String) -> (uid: String, recurrenceID: ICalDateValue?) {
        guard let hash = stored.lastIndex(of: "#") else { return (stored, nil) }
        let suffix = String(stored[stored.index(after: hash)...])
        // `YYYYMMDD`, or `YYYYMMDDTHHMMSS` with or without `Z`.
        let bytes = Array(suffix.utf8)
        func digits(_ range: Range<Int>) -> Bool { bytes[range].allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }
        let date = bytes.count == 8 && digits(0..<8)
        let time = (bytes.count == 15 || bytes.count == 16 && bytes[15] == UInt8(ascii: "Z"))
            && digits(0..<8) && bytes[8] == UInt8(ascii: "T") && digits(9..<15)
        guard date || time, let value = RecurrenceText.value(suffix) else { return (stored, nil) }
        return (String(stored[..<hash]), value)
    }

    /// What the decoder needs to know besides the bytes.
    public struct Options {
        /// `importCalendar` for `datebook import`, `Feed.calendar` (`feed:NAME`) for a feed: namespaces the ids.
        public var calendar: String
        public var timeZone: TimeZone
        /// The day a per-calendar "Tasks" event is put on when it is new.
        public var today: CalendarDate
        /// The stored event with this id, if any: re-imports keep its symbol, colour and (without
        /// VTODOs of their own) its tasks.
        public var existing: (String) -> Event?
        /// The store the events will be saved into, if known: the join then submits each recurring
        /// event for expansion for that store's horizon, on another thread (`OccurrenceExpansions`).
        public var store: (any PlannerStore)?
        /// True for a feed: a stored symbol and colour are the user's overlay and win over the
        /// file's `X-DATEBOOK-SYMBOL`/`COLOR` (an import takes the file's).
        public var overlays: Bool
        /// Ids kept by UID: an event moved into a CalDAV calendar (`edit --calendar`) keeps the id
        /// it had, instead of the one its calendar and UID would give it.
        public var ids: [String: String] = [:]

        public init(calendar: String, timeZone: TimeZone, today: CalendarDate, existing: @escaping (String) -> Event?,
                    store: (any PlannerStore)? = nil, overlays: Bool = false) {
            self.calendar = calendar
            self.timeZone = timeZone
            self.today = today
            self.existing = existing
            self.store = store
            self.overlays = overlays
        }
    }

    /// Reads `data`; throws `ICalError.notICalendar` when it is not iCalendar at all.
    public static func decode(_ data: Data, fileName: String, options: Options) throws -> ICSImport {
        try decode(ImportFile(name: fileName, copying: data), options: options)
    }

    /// Reads an iCalendar file (`datebook import`, a feed refresh): parses its bytes in place on
    /// every core, giving their pages back as the parse finishes with them (82 MB of a 100k-event
    /// file would otherwise stay to the end), frees them, then converts (which frees the parsed
    /// document on another thread as it goes).
    ///
    /// - Throws: `ICalError.notICalendar` when the bytes are not iCalendar at all.
    public static func decode(_ file: consuming ImportFile, options: Options) throws -> ICSImport {
        let name = file.name
        let address = file.address
        let parts = try file.withBytes { bytes in
            try ICalParser.parseParts(bytes: bytes, fileName: name, defaultTimeZone: options.timeZone) { range in
                guard let base = UnsafeMutableRawPointer(bitPattern: address) else { return }
                ImportFile.release(range, of: base)
            }
        }
        _ = consume file
        return convert(parts, fileName: name, options: options)
    }

    /// Converts a parsed document (lets a caller free the file's bytes before converting).
    public static func convert(_ document: ICalDocument, fileName: String, options: Options) -> ICSImport {
        convert([document], fileName: fileName, options: options)
    }

    /// Converts consecutive parts of one parsed file (`ICalParser.parseParts`) as one document.
    ///
    /// What each component becomes on its own (ids, events, task ids, rule problems) is worked out
    /// for all parts at once, one thread each; joining them — stored events, overrides, duplicates,
    /// tasks — then runs in file order.
    ///
    /// The parts are freed as soon as nothing needs them: their VEVENTs once converted (before the
    /// join grows the result), the rest once the tasks are attached; both on another thread.
    public static func convert(_ parts: consuming [ICalDocument], fileName: String, options: Options) -> ICSImport {
        var whole = Batches()
        return convert(parts, fileName: fileName, options: options, batches: &whole)
    }

    /// `convert`, as one batch of an import read in batches when `batches` is active: events earlier
    /// batches saved are read back from the store where this batch changes them, and VTODOs whose
    /// event has not come yet wait in `batches` (PlannerICS+Batches.swift).
    static func convert(_ parts: consuming [ICalDocument], fileName: String, options: Options,
                        batches: inout Batches) -> ICSImport {
        var converted = Converted.all(parts, calendar: options.calendar, timeZone: options.timeZone, ids: options.ids)
        let count = parts.reduce(0) { $0 + $1.events.count }
        var result = ICSImport(events: [], uids: [:], warnings: parts.flatMap(\.warnings).map(\.description))
        var components: [[ICalEvent]] = []
        for p in parts.indices {
            components.append([])
            swap(&components[p], &parts[p].events)
        }
        BackgroundRelease.release(consume components)
        var index = JoinIndex(capacity: count + 1)
        result.uids.reserveCapacity(count + 1)
        result.events.reserveCapacity(count + 1)
        let horizon = options.store?.recurrenceHorizon
        let expansions = options.store.map { _ in OccurrenceExpansions() }
        /// Expands the event at `position` meanwhile, if it recurs and the store is known.
        func expand(at position: Int) {
            if let expansions, let job = OccurrenceExpansions.Job(result.events[position], horizon: horizon) {
                expansions.submit(job, at: position)
            }
        }
        // Events are moved, never copied, through the join: an event is a dozen strings to retain.
        func add(_ event: consuming Event, uid: String) {
            let id = event.id
            let position: Int
            if let at = index.insert(id, at: result.events.count) {
                position = at
                result.events[at] = event
            } else {
                position = result.events.count
                result.events.append(event)
            }
            result.uids[id] = uid
            expand(at: position)
        }
        // Components by position (`converted[p].components[n]`): passed as values to these closures,
        // each was copied, its strings retained and released.
        /// The converted event with what the store already knows of it (tasks, and the symbol and
        /// colour unless the file gives them to an import).
        func final(_ made: consuming Event, _ p: Int, _ n: Int) -> Event {
            guard let stored = batches.stored(made.id, options: options) else { return made }
            var event = made
            if options.overlays || !converted[p].components[n].givesSymbol { event.symbol = stored.symbol }
            if options.overlays || !converted[p].components[n].givesColor { event.color = stored.color }
            event.tasks = stored.tasks
            return event
        }
        func warn(_ p: Int, _ n: Int) {
            guard !converted[p].components[n].problems.isEmpty else { return }
            let place = "\(fileName):\(converted[p].components[n].line): UID \(converted[p].components[n].uid): "
            for problem in converted[p].components[n].problems { result.warnings.append(place + problem) }
        }
        // The join reads only what the parts' threads made (no parsed component is copied).
        var masterSequences = batches.masterSequences
        for p in converted.indices {
            for n in converted[p].components.indices where converted[p].components[n].recurrenceID == nil {
                warn(p, n)
                guard let made = converted[p].take(n) else { continue }
                if converted[p].components[n].sequence > 0 { masterSequences[made.id] = converted[p].components[n].sequence }
                add(final(made, p, n), uid: converted[p].components[n].uid)
            }
        }
        // The EXDATEs overrides add to their masters, written into each master once after the loop:
        // written one by one, each re-read and re-wrote the master's whole recurrence and queued its
        // expansion again, so N overrides of one series cost N² (10,000 took minutes).
        var exclusions = Exclusions()
        var seriesParts = SeriesParts()
        for p in converted.indices {
            for n in converted[p].components.indices {
                guard let recurrenceID = converted[p].components[n].recurrenceID else { continue }
                let uid = converted[p].components[n].uid
                warn(p, n)
                var masterAt = converted[p].components[n].masterID.flatMap { index[$0] }
                if masterAt == nil, let master = converted[p].components[n].masterID {
                    masterAt = batches.load(master, uid: uid, into: &result, index: &index, options: options)
                }
                // What follows may read the master's recurrence: give it the EXDATEs added so far.
                if let master = converted[p].components[n].masterID, let at = masterAt,
                   converted[p].components[n].thisAndFuture || converted[p].components[n].sequence < masterSequences[master] ?? 0,
                   exclusions.write(into: &result.events[at], at: at) {
                    expand(at: at)
                }
                if let master = converted[p].components[n].masterID, let at = masterAt,
                   let stale = staleness(sequence: converted[p].components[n].sequence, recurrenceID: recurrenceID,
                                         of: result.events[at], masterSequence: masterSequences[master] ?? 0,
                                         zone: options.timeZone) {
                    result.warnings.append("\(fileName):\(converted[p].components[n].line): UID \(uid): \(stale)")
                    _ = converted[p].take(n)
                    continue
                }
                // An override of an all-day series is held by the day it replaces, however its RECURRENCE-ID was
                // written, so `list --json` and `show` name that day in every zone.
                var source = recurrenceID
                if let at = masterAt, result.events[at].start.isAllDay, !recurrenceID.isAllDay {
                    source = Self.instanceDay(recurrenceID, of: result.events[at], fallback: options.timeZone)
                }
                let sourceUID = uid + "#" + RecurrenceText.format(source)
                // The series part holding the instance: the master, or a part an earlier THISANDFUTURE split off,
                // where the instance sits where that part moved it.
                var target = masterAt
                var instance = recurrenceID
                var wall: Date?
                if let at = masterAt {
                    let originalWall = Self.wallClock(recurrenceID, of: result.events[at], fallback: options.timeZone)
                    wall = originalWall
                    if let part = seriesParts.part(of: at, holding: originalWall) {
                        target = part.position
                        instance = Self.instance(atWallClock: originalWall.addingTimeInterval(part.shift),
                                                 of: result.events[at], fallback: options.timeZone)
                    }
                }
                // A split reads the part's recurrence too.
                if let at = target, at != masterAt, converted[p].components[n].thisAndFuture,
                   exclusions.write(into: &result.events[at], at: at) {
                    expand(at: at)
                }
                if converted[p].components[n].thisAndFuture, let at = target, let masterAt, let wall {
                    let overrideStart = converted[p].events[n]?.start
                    let ownRule = converted[p].events[n]?.recurrence != nil
                    // With a rule of its own the override's start does not move the master's instances.
                    let split = seriesSplit(result.events[at], at: instance, movedTo: ownRule ? nil : overrideStart,
                                            zone: options.timeZone)
                    if split != nil || ownRule {
                        if let split {
                            result.events[at].recurrence = split.before
                            expand(at: at)
                        }
                        guard var made = converted[p].take(n) else { continue }
                        if !ownRule { made.recurrence = split?.after }
                        if source != recurrenceID { made.id = Self.eventID(uid: sourceUID, options: options) }
                        let madeID = made.id
                        let shift = Self.wallClock(Self.value(made.start, zone: made.timeZone), of: result.events[masterAt],
                                                   fallback: options.timeZone).timeIntervalSince(wall)
                        add(final(made, p, n), uid: sourceUID)
                        if let position = index[madeID] {
                            seriesParts.add(SeriesParts.Part(from: wall, shift: shift, position: position), master: masterAt)
                        }
                        continue
                    }
                    let rule = RecurrenceText(result.events[at].recurrence ?? "").rule ?? ""
                    let why = rule.uppercased().split(separator: ";").contains { $0.trimmingWhitespace().hasPrefix("BY") }
                        ? "moves the instances of a rule with BYxxx parts, which datebook cannot write as one rule"
                        : "names no instance of its series (RECURRENCE-ID \(RecurrenceText.format(recurrenceID)))"
                    result.warnings.append("\(fileName):\(converted[p].components[n].line): UID \(uid): RANGE=THISANDFUTURE "
                                           + why + "; the override applies to its own instance only")
                }
                if let at = target {
                    // A timed RECURRENCE-ID of an all-day series (Outlook) names that day.
                    let excluded = result.events[at].start.isAllDay
                        ? Self.instanceDay(instance, of: result.events[at], fallback: options.timeZone) : instance
                    exclusions.add(excluded, to: result.events[at], at: at)
                }
                guard var made = converted[p].take(n) else { continue }
                if source != recurrenceID { made.id = Self.eventID(uid: sourceUID, options: options) }
                add(final(made, p, n), uid: sourceUID)
            }
        }
        for at in exclusions.positions where exclusions.write(into: &result.events[at], at: at) { expand(at: at) }
        // Tasks change no event's occurrences.
        expansions?.close()
        result.expansions = expansions
        batches.masterSequences = masterSequences
        attachTodos(parts, todos: converted.map(\.todos), to: &result, index: &index, options: options, fileName: fileName,
                    batches: &batches)
        // Not `consume converted`: the closures above capture it. The helper holds the last reference.
        BackgroundRelease.release(converted)
        converted = []
        BackgroundRelease.release(consume parts)
        return result
    }

    /// EXDATEs the join adds to masters, held per master (by its position in the result) until
    /// `write` puts them into its recurrence text, so a master with many overrides is parsed and
    /// written once, not once per override.
    struct Exclusions {
        private struct Pending {
            var text: RecurrenceText
            /// The formatted EXDATEs the text has: a calendar datebook wrote has them already.
            var keys: Set<String>
            var changed = false
        }

        private var pending: [Int: Pending] = [:]
        /// Masters with EXDATEs not written yet, in the order they were first given one.
        private(set) var positions: [Int] = []

        /// Adds `exdate` to the master `event` at `position` unless it has it already.
        mutating func add(_ exdate: ICalDateValue, to event: borrowing Event, at position: Int) {
            if pending[position] == nil {
                let text = RecurrenceText(event.recurrence ?? "")
                pending[position] = Pending(text: text, keys: Set(text.exdates.map(RecurrenceText.format)))
                positions.append(position)
            }
            guard pending[position]?.keys.insert(RecurrenceText.format(exdate)).inserted == true else { return }
            pending[position]?.text.exdates.append(exdate)
            pending[position]?.changed = true
        }

        /// Writes the EXDATEs added to the master at `position` into `event`; true when it changed.
        /// Later additions start from the written text.
        mutating func write(into event: inout Event, at position: Int) -> Bool {
            guard let entry = pending.removeValue(forKey: position) else { return false }
            guard entry.changed else { return false }
            event.recurrence = entry.text.text
            return true
        }
    }

    /// One part's components converted on their own, in the part's order: per VEVENT the event
    /// (nil for a cancelled one) and what the join needs of the component; per VTODO its task id.
    struct Converted: Sendable {
        struct Component: Sendable {
            var uid: String
            var recurrenceID: ICalDateValue?
            var line: Int
            var sequence: Int
            var thisAndFuture: Bool
            /// What was repaired or why the event was left out (`EventValidation`), one warning each.
            var problems: [String] = []
            /// An override's master event id.
            var masterID: String?
            /// Whether the component names a symbol (`X-DATEBOOK-SYMBOL`) or colour (`COLOR`) datebook knows.
            var givesSymbol = false
            var givesColor = false
        }

        var events: [Event?] = []
        var components: [Component] = []
        /// Per VTODO: its task id, the join key of the event its RELATED-TO names, and its own UID's
        /// key (what a VTODO of a later batch naming it in RELATED-TO looks up, `Batches.todoTargets`).
        struct Todo: Sendable {
            var taskID: String
            var relatedKey: UInt64?
            var key: UInt64 = 0
        }
        var todos: [Todo] = []

        mutating func take(_ n: Int) -> Event? {
            var taken: Event?
            swap(&taken, &events[n])
            return taken
        }

        init(_ part: ICalDocument, calendar: String, timeZone: TimeZone, ids: [String: String] = [:]) {
            var settings = Options(calendar: calendar, timeZone: timeZone, today: CalendarDate(year: 1970, month: 1, day: 1),
                                   existing: { _ in nil })
            settings.ids = ids
            // A `let`: a captured `var` is copied (a closure and a dictionary retained) at each use.
            let options = settings
            events.reserveCapacity(part.events.count)
            components.reserveCapacity(part.events.count)
            // Each component is read in place through its pointer: passed as a value (borrowing or not),
            // it was copied, every string retained and released.
            part.events.withUnsafeBufferPointer { items in
                for n in items.indices { Self.add(items.baseAddress! + n, options: options, to: &events, &components) }
            }
            let calendarKey = calendarKey(options)
            todos = part.todos.indices.map { n in
                Todo(taskID: taskID(part.todos[n].uid),
                     relatedKey: part.todos[n].relatedTo.map { eventKey(uid: $0, options: options, calendarKey: calendarKey) },
                     key: eventKey(uid: part.todos[n].uid, options: options, calendarKey: calendarKey))
            }
        }

        /// Appends the event `item` becomes (nil for a cancelled or refused one) and what the join needs of it.
        private static func add(_ item: UnsafePointer<ICalEvent>, options: Options, to events: inout [Event?],
                                _ components: inout [Component]) {
            // An all-day override names its instance by date: a timed RECURRENCE-ID (Outlook's midnight in
            // its own zone) is read as that day, so the override keeps its id when exported (as a DATE).
            let recurrenceID = item.pointee.start.isAllDay
                ? item.pointee.recurrenceID.map { $0.isAllDay ? $0 : $0.day(fallback: options.timeZone) } : item.pointee.recurrenceID
            var component = Component(uid: item.pointee.uid, recurrenceID: recurrenceID, line: item.pointee.sourceLine,
                                      sequence: item.pointee.sequence, thisAndFuture: item.pointee.thisAndFuture)
            component.givesSymbol = item.pointee.symbol.flatMap(Symbol.init(rawValue:)) != nil
            component.givesColor = item.pointee.color.flatMap(EventColor.init(cssName:)) != nil
            if item.pointee.isCancelled {
                events.append(nil)
                // A cancelled override still adds its EXDATE to the master.
                if recurrenceID != nil { component.masterID = eventID(uid: item.pointee.uid, options: options) }
            } else if let recurrenceID {
                let id = eventID(uid: item.pointee.uid + "#" + RecurrenceText.format(recurrenceID), options: options)
                var event = makeEvent(item, id: id, options: options)
                // A THISANDFUTURE override with a rule of its own (datebook's export) keeps it.
                if !item.pointee.thisAndFuture { event.recurrence = nil }
                // A refused override leaves the master's instance as it was.
                if repair(&event, &component) {
                    component.masterID = eventID(uid: item.pointee.uid, options: options)
                    events.append(event)
                } else {
                    events.append(nil)
                }
            } else {
                var event = makeEvent(item, id: eventID(uid: item.pointee.uid, options: options), options: options)
                // Moved: the optimiser copies a `var` passed at its last use.
                if repair(&event, &component) { events.append(consume event) } else { events.append(nil) }
            }
            components.append(component)
        }

        /// Applies the planner's rules to an event of someone else's calendar: repairs become
        /// warnings, and false (with the reason as a warning) when the event must be left out.
        static func repair(_ event: inout Event, _ component: inout Component) -> Bool {
            let repair = EventValidation.planner.repair(&event)
            component.problems += repair.changes.map { Self.warning($0) }
            guard let refusal = repair.refusals.first else { return true }
            component.problems.append(Self.warning(refusal) + "; event skipped")
            return false
        }

        /// A rule's problem as an iCalendar warning: the property, not the planner's field, is named.
        static func warning(_ problem: EventProblem) -> String {
            // The expander's own words already name the RRULE.
            if problem.field == "recurrence" { return problem.message }
            let names = ["title": "SUMMARY", "notes": "DESCRIPTION", "start": "DTSTART", "end": "DTEND", "location": "LOCATION",
                         "url": "URL"]
            let field = names[problem.field] ?? (problem.field.hasPrefix("tasks") ? "VTODO " + problem.field : problem.field)
            return field + " " + problem.message
        }

        static func all(_ parts: [ICalDocument], calendar: String, timeZone: TimeZone, ids: [String: String] = [:]) -> [Converted] {
            guard parts.count > 1 else { return parts.map { Converted($0, calendar: calendar, timeZone: timeZone, ids: ids) } }
            let results = IndexedResults<Converted>(count: parts.count)
            DispatchQueue.concurrentPerform(iterations: parts.count) { n in
                results.set(n, Converted(parts[n], calendar: calendar, timeZone: timeZone, ids: ids))
            }
            return results.values(missing: Converted(ICalDocument(), calendar: "", timeZone: .current))
        }
    }

    /// Positions of joined events by the number their id spells. Every id `eventID` makes is 16
    /// lower-case hex digits (`Store.hexKey`); hashing that number costs a fraction of hashing the
    /// text, and a RELATED-TO is looked up by `eventKey` without making its id's text at all.
    struct JoinIndex {
        private var positions: [UInt64: Int] = [:]

        init(capacity: Int) { positions.reserveCapacity(capacity) }

        /// Any other id (none today) is hashed instead.
        static func key(_ id: String) -> UInt64 { Store.hexKey(id) ?? EventID.stableKey(id) }

        subscript(id: String) -> Int? { positions[Self.key(id)] }
        subscript(key key: UInt64) -> Int? { positions[key] }

        /// Records `id` at `position` unless it is there already; returns the earlier position.
        mutating func insert(_ id: String, at position: Int) -> Int? {
            PlannerICS.keepFirst(&positions[Self.key(id)], position)
        }
    }

    /// Stores `value` in `slot` (a dictionary's `&map[key]`) unless it holds one; returns the value
    /// it held. Through the subscript's `_modify`: one hash and probe, where reading then writing
    /// `map[key]` takes two (the join's maps hold millions of keys, each probe a likely cache miss).
    static func keepFirst<Value>(_ slot: inout Value?, _ value: Value) -> Value? {
        if let earlier = slot { return earlier }
        slot = value
        return nil
    }

    /// `JoinIndex.key(eventID(uid:options:))`, without making the id's text.
    static func eventKey(uid: String, options: Options, calendarKey: UInt64) -> UInt64 {
        if !options.ids.isEmpty, let id = options.ids[uid] { return JoinIndex.key(id) }
        if options.calendar == importCalendar, let id = datebookID(uid) { return JoinIndex.key(id) }
        return EventID.stableKey(uid, after: calendarKey)
    }

    /// What `eventKey` continues from: the hash of `calendar + "\0"`.
    static func calendarKey(_ options: Options) -> UInt64 { EventID.stableKey(options.calendar + "\u{0}") }

    static func eventID(uid: String, options: Options) -> String {
        if !options.ids.isEmpty, let id = options.ids[uid] { return id }
        if options.calendar == importCalendar, let id = datebookID(uid) { return id }
        return eventID(uid: uid, calendar: options.calendar)
    }

    /// `uid.hasSuffix(uidSuffix)`, answered by the bytes when they do not end in it (nearly every UID
    /// of another calendar; comparing characters cost ~100 instructions a VTODO): no other text is
    /// canonically equivalent to the suffix's ASCII letters.
    static func hasUIDSuffix(_ uid: String) -> Bool {
        let bytesEnd = uid.utf8.withContiguousStorageIfAvailable { bytes in
            uidSuffixBytes.withUnsafeBufferPointer { suffix in
                bytes.count >= suffix.count
                    && memcmp(bytes.baseAddress! + (bytes.count - suffix.count), suffix.baseAddress!, suffix.count) == 0
            }
        } ?? true
        return bytesEnd && uid.hasSuffix(uidSuffix)
    }

    private static let uidSuffixBytes = Array(uidSuffix.utf8)

    /// The event id inside a `<16 hex>@datebook` UID.
    static func datebookID(_ uid: String) -> String? {
        guard hasUIDSuffix(uid) else { return nil }
        let id = String(uid.dropLast(uidSuffix.count))
        return id.count == 16 && id.allSatisfy(\.isHexDigit) ? id : nil
    }

    private static let symbols = Symbol.allCases
    private static let colors = EventColor.allCases

    /// The symbol and colour an event of this id gets when its component gives none, picked by the id.
    static func defaultLook(id: String) -> (symbol: Symbol, color: EventColor) {
        let seed = Int(truncatingIfNeeded: UInt64(id, radix: 16) ?? 0)
        return (symbols[abs(seed % symbols.count)], colors[abs(seed / 7 % colors.count)])
    }

    /// The event `item` becomes on its own; what a stored copy keeps (symbol, colour, tasks) is
    /// applied by the join. (By pointer: a component passed as a value is copied, its strings retained.)
    static func makeEvent(_ item: UnsafePointer<ICalEvent>, id: String, options: Options) -> Event {
        let look = defaultLook(id: id)
        let written = item.pointee.timeZoneName.flatMap { TimeZone(identifier: $0) == nil ? nil : $0 }
        let zone: String
        switch item.pointee.start {
        case let .zoned(_, tzid): zone = tzid
        // datebook writes the zone beside a date, and beside a time it put in UTC (its zone's repeated hour).
        case .utc: zone = written ?? "UTC"
        case .date, .floating: zone = written ?? options.timeZone.identifier
        }
        var recurrence: String?
        if item.pointee.rrule != nil || !item.pointee.rdates.isEmpty {
            recurrence = RecurrenceText(rule: item.pointee.rrule, rdates: item.pointee.rdates, exdates: item.pointee.exdates,
                                        exrules: item.pointee.exrules).text
        }
        let start = eventStart(item.pointee.start, options.timeZone)
        let end = dayEnd(start: item.pointee.start, end: item.pointee.end, options.timeZone).map { eventStart($0, options.timeZone) }
        let alerts = item.pointee.alarms.compactMap(alert)
        return Event(
            id: id, title: item.pointee.summary.flatMap { $0.isEmpty ? nil : $0 } ?? "(no title)",
            start: start, end: Event.inclusiveEnd(end, start: start, zone: TimeZone(identifier: zone) ?? options.timeZone),
            timeZone: zone,
            symbol: item.pointee.symbol.flatMap(Symbol.init(rawValue:)) ?? look.symbol,
            color: item.pointee.color.flatMap(EventColor.init(cssName:)) ?? look.color,
            notes: item.pointee.description ?? "", location: item.pointee.location ?? "", url: item.pointee.url ?? "",
            tasks: [], alerts: alerts, recurrence: recurrence)
    }

    /// The alert a VALARM's trigger is: a lead before the start or the end, or an instant; nil for
    /// a trigger after the start or the end, which datebook does not keep.
    public static func alert(_ alarm: ICalAlarm) -> LeadTime? {
        func lead(_ seconds: Int, _ anchor: LeadTime.Anchor) -> LeadTime? {
            guard seconds >= 0 else { return nil }
            return seconds > 0 && seconds % 86_400 == 0 ? LeadTime(days: seconds / 86_400, anchor: anchor) : LeadTime(seconds: seconds, anchor: anchor)
        }
        switch alarm {
        case .beforeStart(let seconds): return lead(seconds, .start)
        case .beforeEnd(let seconds): return lead(seconds, .end)
        case .at(let instant): return .at(instant)
        }
    }

    /// The VALARM trigger of `alert` (days as 86 400 s, as iCalendar's durations count them).
    public static func alarm(_ alert: LeadTime) -> ICalAlarm {
        switch alert.anchor {
        case .start: return .beforeStart(alert.totalSeconds)
        case .end: return .beforeEnd(alert.totalSeconds)
        case .instant(let instant): return .at(instant)
        }
    }

    /// The DTEND `end`; for a DATE start with a DATE-TIME end (some programs write one), the
    /// exclusive date that end means as written: its own date at midnight, else the day after, so
    /// a three-week leave stays three weeks whatever zone reads it.
    static func dayEnd(start: ICalDateValue, end: ICalDateValue?, _ zone: TimeZone) -> ICalDateValue? {
        guard let end, start.isAllDay, !end.isAllDay, case let .date(year, month, day) = end.day(fallback: zone)
        else { return end }
        let endsAtMidnight = end.resolve(in: zone) == ICalDateValue.date(year: year, month: month, day: day).resolve(in: end.timeZone(fallback: zone))
        let date = CalendarDate(dayNumber: CalendarDate(year: year, month: month, day: day).dayNumber + (endsAtMidnight ? 0 : 1))
        return .date(year: date.year, month: date.month, day: date.day)
    }

    /// A floating time stays one (RFC 5545 §3.3.5: read in the viewer's zone); X-WR-TIMEZONE's
    /// calendars reach here with their floating times zoned already.
    static func eventStart(_ value: ICalDateValue, _ zone: TimeZone) -> EventStart {
        switch value {
        case let .date(year, month, day): return .allDay(CalendarDate(year: year, month: month, day: day))
        case let .floating(local):
            return .floating(FloatingTime(date: CalendarDate(year: local.year, month: local.month, day: local.day),
                                          hour: local.hour, minute: local.minute, second: local.second))
        case .zoned, .utc: break
        }
        return .instant(Date(timeIntervalSince1970: value.resolve(in: zone).timeIntervalSince1970.rounded(.down)))
    }

    /// VTODOs become tasks of the event named by RELATED-TO, else of the calendar's to-do list, the
    /// "Tasks" event (`Event.isTaskList`). A VTODO whose RELATED-TO names another VTODO of the file
    /// is a part of it (`EventTask.parent`) and goes where that one goes.
    /// `todos`: per part and VTODO, what the parts' threads worked out (task id, RELATED-TO key).
    private static func attachTodos(_ parts: [ICalDocument], todos made: [[Converted.Todo]], to result: inout ICSImport,
                                    index: inout JoinIndex, options: Options, fileName: String, batches: inout Batches) {
        // Events whose stored tasks were replaced by this file's (the "Tasks" event may come last).
        var cleared = batches.cleared(result.events)
        var taskIDs = TaskIDs()
        // VTODOs of earlier batches that waited for an event or a VTODO of this batch (in the last join,
        // all that wait) go first, as they came first in the file; parent links reach them too.
        let early = batches.waiting(for: result.events, todos: made)
        let todoParents = TodoParents(early, parts, made)
        func attach(_ todo: UnsafePointer<ICalTodo>, _ made: UnsafePointer<Converted.Todo>) {
            let relatedKey = made.pointee.relatedKey
            // The VTODO its RELATED-TO names: in this join, or placed by (or waiting since) an earlier batch.
            // Where the VTODO of an earlier batch that RELATED-TO names went (or waits): looked up once.
            let earlier = relatedKey.flatMap { batches.todoTarget($0) }
            let parent = todoParents.taskID(relatedKey) ?? (earlier == nil ? nil : todo.pointee.relatedTo.map(PlannerICS.taskID))
            // The top to-do above this one (none when it is no part of another) says where it goes.
            let above = parent == nil ? nil : relatedKey.flatMap { todoParents.top(of: $0) }
            // The event the top's RELATED-TO names, or the one the earlier batch's VTODO it names went to.
            var key = if let above { above.key.map { batches.todoTarget($0) ?? $0 } } else { relatedKey.map { earlier ?? $0 } }
            var at = key.flatMap { index[key: $0] }
            // An import in batches: the event may be stored already, or it (or the VTODO above) come later.
            if at == nil, let key { at = batches.load(key: key, into: &result, index: &index, options: options) }
            if at == nil, let key, batches.postpone(todo.pointee, made.pointee, until: key) { return }
            if at == nil {
                let top = above ?? TodoParents.Link(uid: todo.pointee.uid, relatedTo: todo.pointee.relatedTo, key: relatedKey)
                if let related = todo.pointee.relatedTo, parent == nil {
                    result.warnings.append("\(fileName):\(todo.pointee.sourceLine): UID \(todo.pointee.uid): RELATED-TO \(related) "
                                           + "names no event in this file; the task goes to the \"Tasks\" event")
                }
                let id = top.relatedTo == nil ? taskListID(of: top.uid, options: options) : taskListID(calendar: options.calendar)
                if index[id] == nil {
                    let stored = options.existing(id)
                    _ = index.insert(id, at: result.events.count)
                    result.events.append(taskList(id: id, stored: stored, today: options.today, timeZone: options.timeZone,
                                                  color: todo.pointee.color, symbol: todo.pointee.symbol))
                    result.uids[id] = taskListUID
                }
                at = index[id]
                key = JoinIndex.key(id)
            }
            // `key` is now the join key of the event at `at`.
            guard let at, let key else { return }
            if at >= cleared.count { cleared += batches.cleared(result.events[cleared.count...]) }
            if !cleared[at] {
                cleared[at] = true
                result.events[at].tasks = []
            }
            let status: TaskStatus = switch todo.pointee.status {
            case .todo: .todo
            case .doing: .doing
            case .done: .done
            }
            var task = EventTask(id: made.pointee.taskID, text: todo.pointee.summary ?? "(no text)", status: status,
                                 due: todo.pointee.due.map { eventStart($0, options.timeZone) }, priority: todo.pointee.priority,
                                 parent: parent)
            func warn(_ message: String) {
                result.warnings.append("\(fileName):\(todo.pointee.sourceLine): UID \(todo.pointee.uid): \(message)")
            }
            if let change = EventValidation.repairText(&task) { warn("SUMMARY " + change) }
            guard taskIDs.insert(task.id, at: at, of: result.events[at].tasks) else {
                warn("a second VTODO with task id \"\(task.id)\" for the same event; only the first is kept")
                return
            }
            result.events[at].tasks.append(consume task)
            batches.placedTodo(made.pointee.key, inEvent: key)
        }
        for (todo, made) in early {
            withUnsafePointer(to: todo) { todo in withUnsafePointer(to: made) { attach(todo, $0) } }
        }
        // By pointer: `attach(todos[n], made[n])` copied each VTODO (its strings retained and released),
        // borrowing parameters or not.
        for p in parts.indices {
            parts[p].todos.withUnsafeBufferPointer { todos in
                made[p].withUnsafeBufferPointer { made in
                    for n in todos.indices { attach(todos.baseAddress! + n, made.baseAddress! + n) }
                }
            }
        }
        batches.placed(result.events, cleared: cleared, uids: result.uids)
    }

    /// The UID under which a calendar's to-do list is recorded (it has no resource of its own).
    public static let taskListUID = "tasks"

    /// The id of the to-do list of `calendar` (a source calendar key, `caldav:home URL`).
    public static func taskListID(calendar: String) -> String { EventID.stable(calendar + "\u{0}tasks") }

    /// The list a VTODO without RELATED-TO goes to: the one its UID names (`<task>.<list>@datebook`, as
    /// `export` and a sync write a list's to-dos), unless that id is an event's that is no list; else
    /// its calendar's.
    static func taskListID(of uid: String, options: Options) -> String {
        if hasUIDSuffix(uid), let dot = uid.lastIndex(of: ".") {
            let id = String(uid[uid.index(after: dot)...].dropLast(uidSuffix.count))
            if id.count == 16, id.allSatisfy(\.isHexDigit), options.existing(id)?.isTaskList ?? true { return id }
        }
        return taskListID(calendar: options.calendar)
    }

    /// A calendar's to-do list, "Tasks", made the day it is first needed (`stored`: the store's copy,
    /// whose day, symbol and colour it keeps; else the `COLOR` and `X-DATEBOOK-SYMBOL` of its first
    /// to-do, as `export` writes a list's on its to-dos).
    public static func taskList(id: String, stored: Event?, today: CalendarDate, timeZone: TimeZone,
                                color: String? = nil, symbol: String? = nil) -> Event {
        Event(id: id, title: "Tasks", start: stored?.start ?? .allDay(today), timeZone: timeZone.identifier,
              symbol: stored?.symbol ?? symbol.flatMap(Symbol.init(rawValue:)) ?? .star,
              color: stored?.color ?? color.flatMap(EventColor.init(cssName:)) ?? .primary, isTaskList: true)
    }

    /// The VTODOs of a file by the join key of their UID (`Converted.Todo.key`; hashing the UID's
    /// text for 12k VTODOs a batch was 5 % of a 1M import's CPU): their task ids, and the RELATED-TO
    /// each names with its event key, so a to-do of a to-do (RELATED-TO its parent) goes where the
    /// top one goes.
    private struct TodoParents {
        struct Link {
            var uid: String
            var relatedTo: String?
            var key: UInt64?
        }

        /// A VTODO's place: `early[n]` when `part` is -1, else `parts[part].todos[n]` (positions,
        /// not copies: 12k VTODOs a batch, each a few strings to retain and release).
        private struct Place {
            var part: Int
            var n: Int
        }

        private var entries: [UInt64: Place] = [:]
        private let early: [(ICalTodo, Converted.Todo)]
        private let parts: [ICalDocument]
        private let made: [[Converted.Todo]]

        /// `early`: VTODOs of earlier batches joined before the parts' (`Batches.waiting`).
        init(_ early: [(ICalTodo, Converted.Todo)], _ parts: [ICalDocument], _ made: [[Converted.Todo]]) {
            self.early = early
            self.parts = parts
            self.made = made
            entries.reserveCapacity(early.count + parts.reduce(0) { $0 + $1.todos.count })
            for n in early.indices { add(early[n].1.key, Place(part: -1, n: n)) }
            for p in made.indices {
                made[p].withUnsafeBufferPointer { todos in
                    for n in todos.indices { add(todos[n].key, Place(part: p, n: n)) }
                }
            }
        }

        /// The first VTODO of a UID counts.
        private mutating func add(_ key: UInt64, _ place: Place) {
            _ = PlannerICS.keepFirst(&entries[key], place)
        }

        /// The task id of the VTODO whose UID has join key `key`.
        func taskID(_ key: UInt64?) -> String? {
            guard let place = key.flatMap({ entries[$0] }) else { return nil }
            return place.part < 0 ? early[place.n].1.taskID : made[place.part][place.n].taskID
        }

        private func link(_ place: Place) -> Link {
            if place.part < 0 {
                return Link(uid: early[place.n].0.uid, relatedTo: early[place.n].0.relatedTo, key: early[place.n].1.relatedKey)
            }
            return Link(uid: parts[place.part].todos[place.n].uid, relatedTo: parts[place.part].todos[place.n].relatedTo,
                        key: made[place.part][place.n].relatedKey)
        }

        /// The top to-do above the VTODO of UID key `key` (a chain longer than 32, or a loop, has none).
        func top(of key: UInt64) -> Link? {
            var current = key
            for _ in 0..<32 {
                guard let place = entries[current] else { return nil }
                let link = link(place)
                guard let next = link.key, entries[next] != nil else { return link }
                current = next
            }
            return nil
        }
    }

    /// Which task ids each event has, so a VTODO repeating one is left out (task ids are unique
    /// within an event). A short checklist is scanned; a long one (the "Tasks" event) gets a set.
    struct TaskIDs {
        private var large: [Int: Set<String>] = [:]

        /// False when `tasks` (those of the event at `position`) already has `id`.
        mutating func insert(_ id: String, at position: Int, of tasks: [EventTask]) -> Bool {
            if tasks.count < 32 { return !tasks.contains { $0.id == id } }
            if large[position] == nil { large[position] = Set(tasks.map(\.id)) }
            return large[position]?.insert(id).inserted ?? true
        }
    }

    /// `<task id>.<event id>@datebook` gives back the task id; other UIDs are hashed.
    public static func taskID(_ uid: String) -> String {
        if hasUIDSuffix(uid), let dot = uid.lastIndex(of: ".") {
            let taskPart = String(uid[..<dot])
            if !taskPart.isEmpty { return taskPart }
        }
        // `EventID.stable(uid).prefix(8)`, without walking a String's characters to find the eighth.
        return EventID.hex(EventID.stableKey(uid), digits: 8)
    }
}

extension Character {
    fileprivate var isHexDigit: Bool { isASCII && (isNumber || ("a"..."f").contains(self)) }
}

