import DatebookCore
import Testing

struct HTMLTextTests {
    @Test(arguments: [
        ("plain text", "plain text"),
        ("<script>alert(\"x\")</script>", "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"),
        ("Tom & Jerry's", "Tom &amp; Jerry's"),
        ("Grüße <b>", "Grüße &lt;b&gt;"),
        ("&amp;", "&amp;amp;"),
        ("", ""),
    ])
    func escapesTheFourSpecialCharacters(input: String, expected: String) {
        #expect(HTMLText.escape(input) == expected)
    }
}
