import DatebookCore
import Foundation

extension ICalParser {
    /// Reads a file's VEVENTs and VTODOs a batch at a time, so a large import holds the parsed
    /// components of one batch instead of the whole file's (`datebook import` of 1M VEVENTs + 3M
    /// VTODOs held 2.2 GB).
    ///
    /// A first pass scans the whole file for its VTIMEZONEs (read first, wherever they sit) and the
    /// file-level warnings, which come with the first batch; the second pass lists components one
    /// batch ahead only. A batch is cut just before a VEVENT once it has `batchEvents` of them, so an
    /// event and the VTODOs after it stay together; a run of VTODOs alone is cut at eight times that.
    /// The components of all batches, in order, are those `parseParts` reads: each batch is parsed
    /// by its workers as `parseParts` parses a file.
    ///
    /// The reader keeps a view of the bytes: they must stay alive and unchanged while it is used,
    /// on whichever thread (`PlannerStore.importICS` reads the next batch on another one).
    public struct BatchReader: Sendable {
        /// The bytes, by address (a pointer is not `Sendable`): they outlive the reader, unchanged.
        private let address: UInt
        private let count: Int
        private var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: UnsafePointer(bitPattern: address), count: count) }
        private let fileName: String
        private let defaultTimeZone: TimeZone
        private let floatingZone: TimeZone?
        private let workers: Int?
        private let batchEvents: Int
        private let consumed: (@Sendable (Range<Int>) -> Void)?
        private let zones: [ICalChunk]
        private var scanner: ICalChunkScanner.Resumable
        /// The file-level warnings, handed out with the first batch.
        private var warnings: [ICalWarning]
        /// The VEVENT that opens the next batch.
        private var carried: ICalChunk?
        /// Where the last batch ended in the bytes: what has been read so far.
        public private(set) var offset = 0

        /// Whether `bytes` can be read in batches: a file that ends its lines with CR alone is read
        /// whole, on a copy (`parseParts`).
        public static func canRead(_ bytes: UnsafeRawBufferPointer) -> Bool {
            !ICalBytes.endsLinesWithCROnly(bytes.bindMemory(to: UInt8.self))
        }

        /// Checks that the bytes are iCalendar and runs the first pass.
        ///
        /// `scanned`, when given, is called with byte ranges the first pass is done with, every 8 MB:
        /// only for bytes that are read again from their file once given back (a file mapping).
        /// `consumed`: as for `parseParts`, ranges the batches read will not be read again.
        ///
        /// - Throws: `ICalError.notICalendar` when the bytes are not iCalendar at all.
        public init(bytes raw: UnsafeRawBufferPointer, fileName: String, defaultTimeZone: TimeZone, batchEvents: Int,
                    workers: Int? = nil, scanned: ((Range<Int>) -> Void)? = nil,
                    consumed: (@Sendable (Range<Int>) -> Void)? = nil) throws {
            let bytes = raw.bindMemory(to: UInt8.self)
            let start = ICalSniffer.contentStart(bytes)
            try ICalSniffer.check(bytes, start: start, fileName: fileName)
            let opening = ICalParser.openingSession(bytes, start: start, fileName: fileName, defaultTimeZone: defaultTimeZone,
                                                    fastPaths: true)
            var first = opening.session
            let floatingZone = opening.floatingZone
            var scan = ICalChunkScanner.Resumable(bytes, from: start)
            var zones: [ICalChunk] = []
            // Mapped pages stay resident until given back: 8 MB at a time keeps the first pass small.
            let step = 8 << 20
            var scannedTo = 0
            while !scan.atEnd {
                while let zone = scan.next(keeping: { $0 == "VTIMEZONE" }, until: scannedTo + step) { zones.append(zone) }
                if scan.offset > scannedTo {
                    scanned?(scannedTo ..< scan.offset)
                    scannedTo = scan.offset
                }
            }
            first.warn(about: scan.result)
            for zone in zones { first.readTimeZone(zone) }
            address = UInt(bitPattern: bytes.baseAddress)
            count = bytes.count
            self.fileName = fileName
            self.defaultTimeZone = defaultTimeZone
            self.floatingZone = floatingZone
            self.workers = workers
            self.batchEvents = max(1, batchEvents)
            self.consumed = consumed
            self.zones = zones
            scanner = ICalChunkScanner.Resumable(bytes, from: start)
            warnings = first.document.warnings
        }

        /// The next batch as consecutive parts in file order (one per worker), the first batch's
        /// first part with the file-level warnings; nil after the last.
        public mutating func next() -> [ICalDocument]? {
            var items: [ICalChunk] = []
            var events = 0
            if let carried {
                items.append(carried)
                events = 1
                self.carried = nil
            }
            while let chunk = scanner.next(keeping: { $0 == "VEVENT" || $0 == "VTODO" }) {
                if chunk.name == "VEVENT" {
                    if events >= batchEvents {
                        carried = chunk
                        break
                    }
                    events += 1
                }
                items.append(chunk)
                if items.count >= batchEvents * 8 { break }
            }
            guard let last = items.last else {
                guard !warnings.isEmpty else { return nil }
                defer { warnings = [] }
                return [ICalDocument(warnings: warnings)]
            }
            let slices = ICalParser.slices(items.count, workers: workers)
            let job = Job(address: UInt(bitPattern: bytes.baseAddress), count: bytes.count, fileName: fileName,
                          defaultTimeZone: defaultTimeZone, floatingZone: floatingZone, fastPaths: true, zones: zones,
                          items: items, consumed: consumed, releaseBatch: 4_096)
            var documents: [ICalDocument]
            if slices.count == 1 {
                documents = [job.read(slices[0])]
            } else {
                let parts = IndexedResults<ICalDocument>(count: slices.count)
                DispatchQueue.concurrentPerform(iterations: slices.count) { n in
                    parts.set(n, job.read(slices[n]))
                }
                documents = parts.values(missing: ICalDocument())
            }
            documents[0].warnings = warnings + documents[0].warnings
            warnings = []
            offset = last.range.upperBound
            return documents
        }
    }
}
