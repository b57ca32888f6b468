import DatebookCore
@testable import DatebookStore
import Testing

struct KeysByIDTests {
    private func keys(_ table: KeysByID, _ id: String) -> [Int64]? {
        var id = id
        return id.withUTF8 { bytes -> [Int64]? in
            guard let first = table.first(id: bytes) else { return nil }
            var found: [Int64] = []
            table.forEachKey(id: bytes, from: first) { found.append($0) }
            return found.sorted()
        }
    }

    /// Keys come back for exactly their own id: not for a prefix, an extension or a stranger.
    @Test func keysGroupByExactID() {
        var table = KeysByID()
        let rows: [(String, Int64)] = [("abc", 3), ("abcd", 4), ("abc", 1), ("", 9), ("ünï", 7), ("abcd", 2), ("abc", 5)]
        for (id, key) in rows {
            var id = id
            id.withUTF8 { table.add(key, id: $0) }
        }
        #expect(table.count == rows.count)
        #expect(keys(table, "abc") == [1, 3, 5])
        #expect(keys(table, "abcd") == [2, 4])
        #expect(keys(table, "ünï") == [7])
        #expect(keys(table, "") == [9])
        #expect(keys(table, "ab") == nil)
        #expect(keys(table, "abcde") == nil)
    }
}

struct RawValueTableTests {
    private func parse<T>(_ table: RawValueTable<T>, _ text: String) -> T? {
        var text = text
        return text.withUTF8 { table.value($0) }
    }

    @Test func everyCaseAndNothingElse() {
        let symbols = RawValueTable<Symbol>()
        for symbol in Symbol.allCases { #expect(parse(symbols, symbol.rawValue) == symbol) }
        let colors = RawValueTable<EventColor>()
        for color in EventColor.allCases { #expect(parse(colors, color.rawValue) == color) }
        #expect(parse(symbols, "house") == nil)
        #expect(parse(symbols, "house.fill ") == nil)
        #expect(parse(symbols, "") == nil)
        #expect(parse(colors, "Primary") == nil)
    }
}
