import DatebookICal
import Foundation
import Testing

struct TrimmingTests {
    /// The shortcut must trim exactly what Foundation trims: ASCII and Unicode spaces, tabs, and
    /// nothing when the ends are plain.
    @Test(arguments: ["FREQ", " FREQ", "FREQ ", "\tBYDAY\t", "", " ", "\u{00A0}WEEKLY", "WEEKLY\u{2003}",
                      "a b", "Zürich", " ü ", "MO,TU"])
    func sameAsFoundation(text: String) {
        #expect(text.trimmingWhitespace() == text.trimmingCharacters(in: .whitespaces))
        #expect(text[...].trimmingWhitespace() == text.trimmingCharacters(in: .whitespaces))
    }
}
