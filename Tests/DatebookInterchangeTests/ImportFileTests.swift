import DatebookCore
@testable import DatebookStore
@testable import DatebookInterchange
import DatebookTestSupport
import Foundation
import Testing

/// An import reads its file into memory it owns and gives back the pages the parser is done with
/// (`ImportFile.release`).
struct ImportFileTests {
    /// Only whole pages inside the range go; bytes sharing a page with anything outside it stay.
    @Test func releaseGivesBackOnlyWholePagesInsideTheRange() throws {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let raw = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * page, alignment: 16)
        defer { raw.deallocate() }
        raw.initializeMemory(as: UInt8.self, repeating: 1)
        let base = try #require(raw.baseAddress)
        let offset = page - Int(UInt(bitPattern: base) % UInt(page))  // bytes before the first page boundary
        let range = (offset + 10) ..< (offset + 20 * page + 10)
        ImportFile.release(range, of: base)
        let values = raw.bindMemory(to: UInt8.self)
        // Given back: the whole pages from the boundary after range start to the one before its end.
        #expect(values[(offset + page) ..< (offset + 20 * page)].allSatisfy { $0 == 0 })
        // Kept: the partial pages at both ends, and everything outside.
        #expect(values[range.lowerBound ..< (offset + page)].allSatisfy { $0 == 1 })
        #expect(values[(offset + 20 * page) ..< range.upperBound].allSatisfy { $0 == 1 })
        #expect(values[..<range.lowerBound].allSatisfy { $0 == 1 } && values[range.upperBound...].allSatisfy { $0 == 1 })
        // A range inside one page gives nothing back.
        ImportFile.release((offset + 30 * page + 1) ..< (offset + 31 * page - 1), of: base)
        #expect(values[(offset + 30 * page) ..< (offset + 31 * page)].allSatisfy { $0 == 1 })
    }

    /// The bytes read are the file's, whatever its size against the read steps.
    @Test(arguments: [0, 1, 65_535, 65_536, 200_001])
    func aFileIsReadWhole(size: Int) throws {
        let path = makeScratchFolder("import") + "/import.ics"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let file = try ImportFile(path: path)
        #expect(file.count == size)
        #expect(file.withBytes { Array($0) } == bytes)
    }

    @Test func aMissingFileOrADirectoryIsNamed() {
        let missing = makeScratchFolder("none") + "/none.ics"
        #expect(throws: InputError(file: missing, line: nil, path: "", message: "no such file")) { _ = try ImportFile(path: missing) }
        let directory = NSTemporaryDirectory()
        #expect(throws: InputError(file: directory, line: nil, path: "", message: "is a directory, expected a file")) {
            _ = try ImportFile(path: directory)
        }
    }

    /// `datebook import` and feed refreshes read iCalendar through the store's one call; bytes that
    /// are not iCalendar are refused naming the file. (`decodeImport` is the SQLite store's: the
    /// streaming import's area.)
    @Test func theStoreImportsAFileAndRefusesWhatIsNotICalendar() throws {
        let directory = makeScratchFolder("import")
        defer { removeScratchFolder(directory) }
        let store = try Store(path: directory + "/store.sqlite3")
        let ics = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:a@example.org\r\nDTSTART:20261201T090000Z\r\n"
            + "SUMMARY:Standup\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        let today = CalendarDate(year: 2026, month: 12, day: 1)
        let result = try store.decodeImport(ImportFile(name: "a.ics", copying: Data(ics.utf8)), timeZone: .gmt, today: today)
        #expect(result.events.map(\.title) == ["Standup"])
        #expect(throws: InputError.self) {
            _ = try store.decodeImport(ImportFile(name: "page.ics", copying: Data("<html></html>".utf8)), timeZone: .gmt, today: today)
        }
    }
}
