@testable import DatebookServer
import Foundation
import Testing

/// `HeaderText` (the server's trims and byte searches without Foundation) against the Foundation
/// calls it stands in for, on header-like text; and the one route match per request against the
/// table's answers taken separately.
struct HeaderTextTests {
    @Test(arguments: ["", " ", "\t", "abc", "  abc", "abc  ", " \t a b \t ", "W/\"1f-20\"", " for=\"[2001:db8::1]:80\" ", "ünï cödé ", "\t\t"])
    func trimmedIsFoundationsTrimOfSpacesAndTabs(text: String) {
        #expect(HeaderText.trimmed(text) == text.trimmingCharacters(in: .whitespaces))
        #expect(HeaderText.trimmed(text[...]) == text.trimmingCharacters(in: .whitespaces))
    }

    @Test(arguments: ["", "%", "/events/a%2Fb", "/events/ab", "100%25", "ä%"])
    func containsIsFoundationsContains(text: String) {
        #expect(HeaderText.contains(text, UInt8(ascii: "%")) == text.contains("%"))
        #expect(HeaderText.count(text, UInt8(ascii: "%")) == text.filter { $0 == "%" }.count)
    }

    @Test(arguments: ["", "host", "Host", "IF-NONE-MATCH", "Content-Security-Policy", "x-A1_b-Z@[`{", "Ünï-Cödé", "ǅ", "İstanbul", "ß"])
    func lowercasedIsSwiftsLowercased(text: String) {
        #expect(HeaderText.lowercased(text) == text.lowercased())
    }

    @Test(arguments: [("Content-Length", "content-length", true), ("content-length", "CONTENT-LENGTH", true), ("Content-Length", "Content-Lengt", false),
                      ("a@", "a`", false), ("[", "{", false), ("Ünï", "ünï", false), ("Ünï", "Ünï", true), ("", "", true), ("x-1", "X-1", true)])
    func sameNameIgnoresTheCaseOfASCIILettersOnly(a: String, b: String, same: Bool) {
        #expect(HeaderText.sameName(a, b) == same)
        if a.allSatisfy(\.isASCII) && b.allSatisfy(\.isASCII) { #expect(same == (a.lowercased() == b.lowercased())) }
    }

    @Test(arguments: ["/", "//", "/a//b", "/a/b", "/a/b/", "a//"])
    func anEmptySegmentIsADoubleSlash(path: String) {
        #expect(Routes.hasEmptySegment(path) == path.contains("//"))
    }

    @Test(arguments: [("GET", "/feeds/s3cr3t/calendar.ics"), ("HEAD", "/feeds/s3cr3t/calendar.ics"), ("POST", "/a/signed.link"),
                      ("GET", "/events/ab12"), ("GET", "/events/a%2Fb"), ("GET", "/missing"), ("DELETE", "/events/ab12"), ("GET", "/../etc")])
    func oneMatchAnswersAsTheTableDoes(method: String, path: String) {
        var routes = Routes()
        routes.add("GET", "/feeds/{token}/calendar.ics") { _, _ in .text(200, "feed") }
        routes.add("POST", "/a/{token}") { _, _ in .text(200, "link") }
        routes.add("GET", "/events/{id}") { _, parameters in .text(200, "event \(parameters["id"] ?? "")") }
        let request = WebRequest(method: method, path: path)
        let answer = routes.answer(to: request)
        #expect(answer.response == routes.respond(to: request).response)
        #expect(answer.logged == routes.loggedPath(method: method, path: path))
        #expect(!answer.logged.contains("s3cr3t") && !answer.logged.contains("signed"))
    }
}
