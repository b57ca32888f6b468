import DatebookCore
@testable import DatebookStore
import DatebookTestSupport
import Foundation
import Testing

struct ActionLinkStoreTests {
    static let now = Date(timeIntervalSince1970: 1_796_000_000)

    @Test(arguments: Backend.allCases)
    func theKeyIsMadeOnceAndKeptAcrossOpenings(_ backend: Backend) throws {
        let first = try backend.open()
        #expect(try first.storedSecret(named: Store.actionLinkKeyName) == nil)
        let key = try first.secretKey(named: Store.actionLinkKeyName, now: Self.now)
        #expect(key.count == 32 && key != Data(repeating: 0, count: 32))
        #expect(try first.secretKey(named: Store.actionLinkKeyName, now: Self.now) == key)
        #expect(try StoreOpener.open(first.location).secretKey(named: Store.actionLinkKeyName, now: Self.now) == key)
        let other = try backend.open()
        #expect(try other.secretKey(named: Store.actionLinkKeyName, now: Self.now) != key)
    }

    @Test(arguments: Backend.allCases)
    func aLinkIsUsedOnceAndForgottenAfterItExpires(_ backend: Backend) throws {
        let store = try backend.open()
        let expires = Self.now.addingTimeInterval(60)
        func use(at now: Date) throws -> Bool {
            try store.transaction { try store.useActionLink(id: "abc", action: "done", eventID: "e1", expires: expires, now: now) }
        }
        #expect(try use(at: Self.now))
        #expect(try store.isActionLinkUsed(id: "abc"))
        #expect(try !use(at: Self.now.addingTimeInterval(1)))
        #expect(try use(at: expires))  // the row is dropped once expired (the link itself is refused as expired)
    }

    @Test(arguments: Backend.allCases)
    func aRolledBackActionLeavesTheLinkUnused(_ backend: Backend) throws {
        struct Failure: Error {}
        let store = try backend.open()
        _ = try? store.transaction {
            _ = try store.useActionLink(id: "abc", action: "done", eventID: "e1", expires: Self.now.addingTimeInterval(60), now: Self.now)
            throw Failure()
        }
        #expect(try !store.isActionLinkUsed(id: "abc"))
    }
}
