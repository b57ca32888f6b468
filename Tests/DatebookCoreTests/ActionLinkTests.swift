import DatebookCore
import Foundation
import Testing

struct ActionLinkTests {
    static let key = Data(repeating: 7, count: 32)
    static let now = ISOInstant.parse("2026-12-01T20:00:00Z") ?? Date()
    static let link = ActionLink(action: .snooze, eventID: "0123456789abcdef", occurrenceStart: now.addingTimeInterval(3600),
                                 channel: "team", expires: now.addingTimeInterval(ActionLink.defaultLifetime))

    static func token(_ link: ActionLink = link, key: Data = key) throws -> String {
        try #require(link.token(key: key))
    }

    @Test func aSignedLinkReadsBackWithEveryField() throws {
        for action in ActionLink.Action.allCases {
            var link = Self.link
            link.action = action
            #expect(try ActionLink.verify(try Self.token(link), key: Self.key, now: Self.now) == link)
        }
    }

    @Test func theTokenIsStableForTheSameKeyAndFields() throws {
        #expect(try Self.token() == Self.token())
        #expect(try Self.token().utf8.allSatisfy { $0 != UInt8(ascii: "=") && $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "+") })
    }

    @Test func everySingleAlteredCharacterIsRefused() throws {
        let token = Array(try Self.token())
        for index in token.indices {
            var altered = token
            altered[index] = altered[index] == "A" ? "B" : "A"
            #expect(throws: ActionLink.Refusal.self, "character \(index)") {
                try ActionLink.verify(String(altered), key: Self.key, now: Self.now)
            }
        }
    }

    @Test func aLinkSignedWithAnotherKeyIsForged() throws {
        let foreign = try Self.token(key: Data(repeating: 8, count: 32))
        #expect(throws: ActionLink.Refusal.forged) { try ActionLink.verify(foreign, key: Self.key, now: Self.now) }
    }

    @Test func aSignatureOfAnotherEventIsForged() throws {
        var other = Self.link
        other.eventID = "fedcba9876543210"
        let mine = try #require(Base64URL.decode(try Self.token())), theirs = try #require(Base64URL.decode(try Self.token(other)))
        let spliced = Base64URL.encode(mine.prefix(mine.count - 32) + theirs.suffix(32))
        #expect(throws: ActionLink.Refusal.forged) { try ActionLink.verify(spliced, key: Self.key, now: Self.now) }
    }

    @Test func aLinkExpiresAtItsExpiry() throws {
        let token = try Self.token()
        _ = try ActionLink.verify(token, key: Self.key, now: Self.link.expires.addingTimeInterval(-1))
        #expect(throws: ActionLink.Refusal.expired(Self.link.expires)) {
            try ActionLink.verify(token, key: Self.key, now: Self.link.expires)
        }
    }

    @Test(arguments: ["", "A", "not a token", "AAAA", "a+b/c==", String(repeating: "A", count: 60)])
    func garbageIsMalformed(text: String) {
        #expect(throws: ActionLink.Refusal.malformed) { try ActionLink.verify(text, key: Self.key, now: Self.now) }
    }

    @Test func overlongTextsMakeNoLink() {
        var link = Self.link
        link.channel = String(repeating: "c", count: 256)
        #expect(link.token(key: Self.key) == nil)
    }

    @Test func theIdIsTheSignatureAndDiffersPerAction() throws {
        var done = Self.link
        done.action = .done
        let a = try #require(ActionLink.id(of: try Self.token())), b = try #require(ActionLink.id(of: try Self.token(done)))
        #expect(a.count == 64 && a != b)
    }

    @Test(arguments: [Data(), Data([0xfb]), Data([0xff, 0xfe]), Data([1, 2, 3]), Data((0..<40).map { UInt8(truncatingIfNeeded: $0 * 7) })])
    func base64URLRoundTrips(bytes: Data) {
        let text = Base64URL.encode(bytes)
        #expect(Base64URL.decode(text) == bytes)
        #expect(!text.contains("=") && !text.contains("+") && !text.contains("/"))
    }

    @Test func base64URLRefusesNonCanonicalSpellings() {
        #expect(Base64URL.decode("AQ") == Data([1]))
        #expect(Base64URL.decode("AR") == nil)  // the same byte with unused bits set
    }
}
