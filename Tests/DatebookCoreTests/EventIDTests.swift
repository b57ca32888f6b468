import DatebookCore
import Testing

struct EventIDTests {
    private struct Fixed: RandomNumberGenerator {
        let value: UInt64
        mutating func next() -> UInt64 { value }
    }

    /// FNV-1a's published values, and 16 lowercase hex digits with leading zeros kept.
    @Test func stableAndRandomIDsAreSixteenHexDigits() {
        #expect(EventID.stable("") == "cbf29ce484222325")
        #expect(EventID.stable("a") == "af63dc4c8601ec8c")
        var small = Fixed(value: 0xff)
        #expect(EventID.random(using: &small) == "00000000000000ff")
        var large = Fixed(value: .max)
        #expect(EventID.random(using: &large) == "ffffffffffffffff")
        var mixed = Fixed(value: 0x0123_4567_89ab_cdef)
        #expect(EventID.random(using: &mixed) == "0123456789abcdef")
    }
}
