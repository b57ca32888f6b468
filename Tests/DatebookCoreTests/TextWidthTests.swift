import DatebookCore
import Testing

struct TextWidthFitTests {
    /// The ASCII shortcut must give exactly what cleaning, cutting and padding give.
    @Test(arguments: ["Dentist", "", String(repeating: "x", count: 34), String(repeating: "y", count: 35),
                      "A much longer title than the column can ever hold", "Tab\there", "日本語のタイトル", "Ünïcødé ✓ title",
                      "Emoji ✈️ flight to somewhere very far away indeed"])
    func fitEqualsCleanTruncatePad(title: String) {
        let composed = TextWidth.pad(TextWidth.truncate(TextWidth.clean(title), to: 34), to: 34)
        #expect(TextWidth.fit(title, to: 34) == composed)
        #expect(TextWidth.displayWidth(TextWidth.fit(title, to: 34)) == 34)
        var bytes: [UInt8] = [0x2A]
        TextWidth.appendFit(title, to: 34, into: &bytes)
        #expect(bytes == [0x2A] + Array(composed.utf8))
    }
}
