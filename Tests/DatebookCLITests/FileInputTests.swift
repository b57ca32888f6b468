@testable import DatebookCLI
import Foundation
import Testing

/// An import gives back the pages of its file the parser is done with (`FileInput.release`).
struct FileInputTests {
    /// Only whole pages inside the range go; bytes sharing a page with anything outside it stay.
    @Test func releaseGivesBackOnlyWholePagesInsideTheRange() {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        var bytes = [UInt8](repeating: 1, count: 64 * page)
        bytes.withUnsafeMutableBytes { raw in
            let base = raw.baseAddress!
            let offset = page - Int(UInt(bitPattern: base) % UInt(page))  // bytes before the first page boundary
            let range = (offset + 10) ..< (offset + 20 * page + 10)
            FileInput.release(range, of: UnsafeRawPointer(base))
            let values = raw.bindMemory(to: UInt8.self)
            // Given back: the whole pages from the boundary after range start to the one before its end.
            #expect(values[(offset + page) ..< (offset + 20 * page)].allSatisfy { $0 == 0 })
            // Kept: the partial pages at both ends, and everything outside.
            #expect(values[range.lowerBound ..< (offset + page)].allSatisfy { $0 == 1 })
            #expect(values[(offset + 20 * page) ..< range.upperBound].allSatisfy { $0 == 1 })
            #expect(values[..<range.lowerBound].allSatisfy { $0 == 1 } && values[range.upperBound...].allSatisfy { $0 == 1 })
            // A range inside one page gives nothing back.
            FileInput.release((offset + 30 * page + 1) ..< (offset + 31 * page - 1), of: UnsafeRawPointer(base))
            #expect(values[(offset + 30 * page) ..< (offset + 31 * page)].allSatisfy { $0 == 1 })
        }
        bytes[0] = 2 // the array stays usable and is freed normally
        #expect(bytes.count == 64 * page && bytes[0] == 2)
    }
}
