import DatebookCore
import DatebookICal
import DatebookStore
import Foundation

extension PlannerStore {
    /// Saves an import of `datebook import FILE.ics` (calendar `PlannerICS.importCalendar`).
    public func saveImport(_ result: ICSImport, progress: (Int) -> Void) throws {
        try saveImport(result, calendar: PlannerICS.importCalendar, progress: progress)
    }

    /// `datebook import FILE.ics`: reads the file as an import into this store (ids namespaced
    /// by `PlannerICS.importCalendar`; a re-import keeps the stored tasks, and the symbol and colour
    /// the file does not give), with the memory work of `PlannerICS.decode(_:options:)`. Save the
    /// result with `saveImport`.
    ///
    /// - Throws: `InputError` when the file is not iCalendar at all.
    public func decodeImport(_ file: consuming ImportFile, timeZone: TimeZone, today: CalendarDate) throws -> ICSImport {
        let options = try importOptions(timeZone: timeZone, today: today)
        do {
            return try PlannerICS.decode(file, options: options)
        } catch let error as ICalError {
            throw Self.inputError(error)
        }
    }

    /// Imports an iCalendar file a batch of `batchEvents` VEVENTs (with the VTODOs after them) at a
    /// time, in one transaction (PlannerICS+Batches.swift): the file is read in windows and only
    /// one batch is parsed and joined at a time, so memory follows the batch, not the file. A file
    /// of one batch is joined and saved as `decodeImport` and `saveImport` do.
    ///
    /// `warn` gets each warning (`file:line: UID x: message`) before its batch is saved; `progress`
    /// the bytes read so far.
    ///
    /// - Throws: `InputError` when the file is not iCalendar at all, or when a batch cannot be saved
    ///   (naming its lines); the store is then as it was.
    public func importICS(_ file: consuming ImportFile, timeZone: TimeZone, today: CalendarDate,
                          batchEvents: Int = PlannerICS.importBatchEvents,
                          warn: (String) -> Void, progress: (Int) -> Void) throws -> ImportSummary {
        // Old Mac line ends: read in batches from a copy with LF line ends.
        if !file.withBytes({ ICalParser.BatchReader.canRead($0) }), let copy = file.withLineFeeds() {
            try file.watch.check(file.name)
            file = copy
        }
        let watch = file.watch
        guard file.withBytes({ ICalParser.BatchReader.canRead($0) }) else {
            let name = file.name
            let result = try decodeImport(file, timeZone: timeZone, today: today)
            try watch.check(name)
            return try saveWhole(result, warn: warn)
        }
        let options = try importOptions(timeZone: timeZone, today: today)
        let name = file.name
        let address = file.address
        let mapped = file.isMapped
        return try file.withBytes { (bytes: UnsafeRawBufferPointer) throws -> ImportSummary in
            try importBatches(bytes, name: name, address: address, mapped: mapped, watch: watch, options: options,
                              batchEvents: batchEvents, warn: warn, progress: progress)
        }
    }

    /// `importICS` over the file's bytes; `address`: where `ImportFile.release` gives pages back.
    private func importBatches(_ bytes: UnsafeRawBufferPointer, name: String, address: UInt, mapped: Bool,
                               watch: ImportFile.Watch, options: PlannerICS.Options, batchEvents: Int,
                               warn: (String) -> Void, progress: (Int) -> Void) throws -> ImportSummary {
        let timeZone = options.timeZone
        let release: @Sendable (Range<Int>) -> Void = { range in
            guard let base = UnsafeMutableRawPointer(bitPattern: address) else { return }
            ImportFile.release(range, of: base)
        }
        // A mapped file's pages are read again from the file if touched: the first pass gives them back too.
        var scanned: ((Range<Int>) -> Void)?
        if mapped { scanned = { release($0) } }
        var reader: ICalParser.BatchReader
        do {
            reader = try ICalParser.BatchReader(bytes: bytes, fileName: name, defaultTimeZone: timeZone, batchEvents: batchEvents,
                                                scanned: scanned, consumed: release)
        } catch let error as ICalError {
            throw Self.inputError(error)
        }
        let first = reader.next() ?? []
        guard let second = reader.next() else {
            try watch.check(name)
            defer { progress(bytes.count) }
            return try saveWhole(PlannerICS.convert(first, fileName: name, options: options), warn: warn)
        }
        // Large enough for the bulk path? The first two batches tell how dense the file is.
        let read = first.reduce(0) { $0 + $1.events.count } + second.reduce(0) { $0 + $1.events.count }
        let expected = Int(Double(read) * Double(bytes.count) / Double(max(1, reader.offset)))
        var batches = PlannerICS.Batches(store: self)
        var warnings = 0
        func save(_ batch: ICSImport, lines: ClosedRange<Int>?) throws {
            // A batch read after the file shrank is zeros: nothing of it may stay.
            try watch.check(name)
            for warning in batch.warnings { warn(warning) }
            warnings += batch.warnings.count
            do {
                try saveImportBatch(batch, calendar: PlannerICS.importCalendar, rewritten: batches.rewritten, progress: { _ in })
            } catch let error as StoreError where error.isTemporary {
                // The store or its disk failed, not these lines: said as it is (exit 75, try again).
                throw error
            } catch {
                let span = lines.map { $0.lowerBound == $0.upperBound ? "line \($0.lowerBound)" : "lines \($0.lowerBound)–\($0.upperBound)" }
                throw InputError(file: name, line: lines?.lowerBound, path: "",
                                 message: "the events of \(span ?? "the file's last batch") could not be saved (\(error)); "
                                     + "nothing was imported, the store is as it was")
            }
        }
        try importTransaction(expected: expected) {
            try save(PlannerICS.convertBatch(first, fileName: name, options: options, batches: &batches), lines: Self.lines(of: first))
            // From the second batch on, the next one is read on another thread meanwhile.
            let prefetch = BatchPrefetch(reader)
            defer { prefetch.finish() }
            var parts: [ICalDocument]? = second
            while let current = parts {
                let lines = Self.lines(of: current)
                try save(PlannerICS.convertBatch(current, fileName: name, options: options, batches: &batches), lines: lines)
                let next = prefetch.next()
                progress(next.offset)
                parts = next.batch
            }
            let lines = Self.lines(of: [ICalDocument(events: batches.overrides)])
            try save(PlannerICS.finishBatches(fileName: name, options: options, batches: &batches), lines: lines)
        }
        progress(bytes.count)
        return ImportSummary(events: batches.count, warnings: warnings, uids: batches.recurringUIDs)
    }

    private func saveWhole(_ result: ICSImport, warn: (String) -> Void) throws -> ImportSummary {
        for warning in result.warnings { warn(warning) }
        try saveImport(result, calendar: PlannerICS.importCalendar, progress: { _ in })
        let summary = ImportSummary(events: result.events.count, warnings: result.warnings.count, uids: result.uids)
        // Freeing 100k events is a quarter of a second; let it overlap the store's closing.
        BackgroundRelease.release(result)
        return summary
    }

    private func importOptions(timeZone: TimeZone, today: CalendarDate) throws -> PlannerICS.Options {
        // An empty store (the common first import) needs no per-event lookups.
        let empty = try eventCount() == 0
        return PlannerICS.Options(calendar: PlannerICS.importCalendar, timeZone: timeZone, today: today,
                                  existing: { [self] in empty ? nil : try? event(id: $0) }, store: self)
    }

    private static func inputError(_ error: ICalError) -> Error {
        guard case let .notICalendar(fileName, got) = error else { return error }
        return InputError(file: fileName, line: nil, path: "",
                          message: "not iCalendar (\(got)); check that the path or URL points at an .ics calendar")
    }

    /// The first and last line of the components in `parts`.
    private static func lines(of parts: [ICalDocument]) -> ClosedRange<Int>? {
        var low = Int.max, high = 0
        // Through the buffers, by position: mapping the components, or reaching them through the
        // arrays, copied or retained each one.
        for part in parts.indices {
            parts[part].events.withUnsafeBufferPointer { events in
                for n in events.indices {
                    low = min(low, events[n].sourceLine)
                    high = max(high, events[n].sourceLine)
                }
            }
            parts[part].todos.withUnsafeBufferPointer { todos in
                for n in todos.indices {
                    low = min(low, todos[n].sourceLine)
                    high = max(high, todos[n].sourceLine)
                }
            }
        }
        return low <= high ? low...high : nil
    }
}

/// What `importICS` did: the events saved, the warnings given, and the UIDs of the recurring events
/// (by event id) for messages about them.
public struct ImportSummary: Sendable {
    public var events: Int
    public var warnings: Int
    public var uids: [String: String]
}

/// Reads the batch after the current one on another thread while the current one is joined and
/// saved: the store writes on one thread, and the parse of the next batch takes the other core.
/// At most one batch is read ahead.
private final class BatchPrefetch: Sendable {
    private struct State: Sendable {
        /// The reader, while no thread is reading with it.
        var reader: ICalParser.BatchReader?
        /// The batch read ahead (`.some(nil)`: there are no more), until taken.
        var ready: [ICalDocument]??
        /// Where the reading stands in the file, for progress.
        var offset = 0
        /// A read is queued or running.
        var reading = false
        /// No more reads may start (`finish`).
        var stopped = false
    }

    private let state: Monitor<State>

    init(_ reader: ICalParser.BatchReader) {
        state = Monitor(State(reader: reader))
        readAhead()
    }

    private func readAhead() {
        state.update { $0.reading = true }
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            let taken = state.update { state -> ICalParser.BatchReader? in
                guard !state.stopped, let reader = state.reader else {
                    state.reading = false
                    return nil
                }
                state.reader = nil
                return reader
            }
            guard var reader = taken else { return }
            let batch = reader.next()
            state.update { state in
                state.offset = reader.offset
                state.reader = reader
                state.ready = .some(batch)
                state.reading = false
            }
        }
    }

    /// The next batch (nil after the last) once it is read, and starts reading the one after.
    func next() -> (batch: [ICalDocument]?, offset: Int) {
        let taken: (batch: [ICalDocument]?, offset: Int) = state.wait(for: { $0.ready != nil }) { state in
            defer { state.ready = nil }
            return (state.ready ?? nil, state.offset)
        } ?? (nil, 0)
        if taken.batch != nil { readAhead() }
        return taken
    }

    /// Lets no read start and waits for one running to end: the bytes may be unmapped after.
    func finish() {
        state.update { $0.stopped = true }
        state.wait(for: { !$0.reading })
    }
}
