@testable import DatebookServer
import Testing

/// `PlaceholderPage` (split once, filled per request) gives the bytes of the plain replace.
@Suite struct PlaceholderPageTests {
    @Test(arguments: [
        ("", "P!"), ("no placeholder here", "P!"), ("P!", "P!"), ("P!P!", "P!"), ("aP!bP!c", "P!"), ("PP!P", "P!"),
        ("<input value=\"P!\"> and <input value=\"P!\">", "P!"), ("text", ""), ("P", "P!"),
    ])
    func fillingGivesThePlainReplacesBytes(body: String, placeholder: String) {
        let value = Array("0123abcd".utf8)
        let page = PlaceholderPage(Array(body.utf8), placeholder: Array(placeholder.utf8))
        #expect(page.filled(with: value) == PlannerSite.replacing(Array(placeholder.utf8), with: value, in: Array(body.utf8)))
    }
}
