import DatebookCore
import DatebookRender
import DatebookScheduler
@testable import DatebookServer
import DatebookStore
import DatebookTestSupport
import Foundation
import Synchronization
import Testing

/// A store with one event (two open tasks, title with markup), the links of its alert, and a
/// server on a free loopback port answering `/a/{token}` at a fixed time.
final class ActionLinkFixture: Sendable {
    static let now = ISOInstant.parse("2026-12-01T20:00:00Z") ?? Date()
    static let occurrence = ISOInstant.parse("2026-12-02T10:00:00Z") ?? Date()
    let directory: String
    let storePath: String
    let eventID = "0123456789abcdef"
    let tokens: [String: String]
    let running: RunningServer

    init(serverTime: Date = ActionLinkFixture.now, locale: String = "en_US", alertChannels: [String]? = nil) throws {
        directory = makeScratchFolder("links")
        storePath = directory + "/store.sqlite3"
        let store = try Store(path: storePath)
        try store.save(Event(id: eventID, title: "Pagliacci <img src=x onerror=alert(1)>", start: .instant(Self.occurrence),
                             timeZone: "Europe/Berlin", symbol: .star, color: .primary,
                             tasks: [EventTask(id: "a", text: "Tickets"), EventTask(id: "b", text: "Shirt", status: .doing)]))
        let issuer = ActionLinkIssuer(baseURL: "https://planner.example.org",
                                      key: try store.secretKey(named: Store.actionLinkKeyName, now: Self.now))
        var tokens: [String: String] = [:]
        for action in issuer.actions(eventID: eventID, occurrenceStart: Self.occurrence, channel: "team", now: Self.now) {
            tokens[action.name] = action.url.components(separatedBy: "/").last
        }
        self.tokens = tokens
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Europe/Berlin") ?? .gmt
        let renderer = try DigestRenderer(overrideDirectory: nil)
        let words = try DigestLocale(identifier: locale, timeZone: calendar.timeZone).words
        var routes = ActionLinkRoutes(storePath: storePath, calendar: calendar, renderer: renderer, words: words,
                                      lang: locale.replacingOccurrences(of: "_", with: "-"), clock: { serverTime })
        routes.alertChannels = alertChannels
        running = try RunningServer(routes: routes.routes)
    }

    deinit { removeScratchFolder(directory) }

    func token(_ name: String) throws -> String { try #require(tokens[name]) }

    /// The event's open tasks and every ledger row, read from a connection of its own.
    func state() throws -> (open: Int, deliveries: [LedgerEntry]) {
        let store = try Store(path: storePath)
        let event = try #require(try store.event(id: eventID))
        return (event.badge, try store.allDeliveries())
    }

    func get(_ token: String) throws -> RawResponse { try request(running.port, "GET", "/a/" + token) }

    func post(_ token: String, form: String, headers: [String: String] = [:]) throws -> RawResponse {
        try request(running.port, "POST", "/a/" + token,
                    headers: ["Content-Type": "application/x-www-form-urlencoded"].merging(headers) { $1 }, body: Array(form.utf8))
    }

    /// The confirmation page's CSRF value.
    func csrf(_ token: String) throws -> String {
        let page = try get(token).text
        let marker = "name=\"csrf\" value=\""
        let start = try #require(page.range(of: marker)).upperBound
        return String(page[start...].prefix { $0 != "\"" })
    }
}

struct ActionLinkRoutesTests {
    /// A Snooze link from a channel outside alerts.channels (`send alert --channel team`): the next
    /// pass would cancel the snooze there, so the page says so, offers no button, and a POST
    /// changes nothing; Done still works.
    @Test func aSnoozeOnAChannelTheNextPassCancelsIsNotPromised() throws {
        let fixture = try ActionLinkFixture(alertChannels: ["desktop"])
        for name in ["snooze", "tomorrow"] {
            let token = try fixture.token(name)
            let page = try fixture.get(token)
            #expect(page.status == 409 && page.text.contains("channel 'team'") && page.text.contains("alerts.channels"), "\(page.text)")
            #expect(!page.text.contains("<form method=\"post\" action=\"/a/"), "no button")
            let csrf = try ActionLinkRoutes.csrf(token: token, store: try Store(path: fixture.storePath))
            #expect(try fixture.post(token, form: "csrf=" + csrf).status == 409)
        }
        #expect(try fixture.state().deliveries.isEmpty)
        let done = try fixture.token("done")
        #expect(try fixture.post(done, form: "csrf=" + (try fixture.csrf(done))).status == 200)
        #expect(try fixture.state().open == 0)
    }

    @Test func getOnlyShowsAConfirmationFormAndChangesNothing() throws {
        let fixture = try ActionLinkFixture()
        let done = try fixture.token("done")
        for _ in 0..<3 {  // a previewer, a scanner, the person
            let page = try fixture.get(done)
            #expect(page.status == 200)
            #expect(page.header("Content-Type") == "text/html; charset=utf-8")
            #expect(page.header("Content-Security-Policy")?.contains("frame-ancestors 'none'") == true)
            #expect(page.text.contains("<form method=\"post\" action=\"/a/\(done)\">"))
            #expect(page.text.contains("Mark all 2 open tasks of “Pagliacci &lt;img src=x onerror=alert(1)&gt;” done?"))
            #expect(!page.text.contains("<img"))
        }
        #expect(try request(fixture.running.port, "HEAD", "/a/" + done).status == 200)
        #expect(try fixture.state().open == 2)
        #expect(try fixture.post(done, form: "csrf=" + fixture.csrf(done)).status == 200, "the link is still unused")
    }

    @Test(arguments: [
        ("de_DE", "Alle 2 offenen Aufgaben von „Pagliacci &lt;img src=x onerror=alert(1)&gt;“ als erledigt markieren?", ">Erledigt</button>",
         "2 Aufgaben von „Pagliacci &lt;img src=x onerror=alert(1)&gt;“ erledigt ✓", "Dieser Link wurde bereits verwendet"),
        ("ja_JP", "「Pagliacci &lt;img src=x onerror=alert(1)&gt;」の未完了のタスク 2 件をすべて完了にしますか？", ">完了</button>",
         "「Pagliacci &lt;img src=x onerror=alert(1)&gt;」のタスク 2 件を完了しました ✓", "このリンクは使用済みです"),
    ])
    func thePagesSpeakTheConfiguredLanguage(locale: String, question: String, button: String, result: String, used: String) throws {
        let fixture = try ActionLinkFixture(locale: locale)
        let done = try fixture.token("done")
        let page = try fixture.get(done).text
        for text in ["<html lang=\"\(locale.replacingOccurrences(of: "_", with: "-"))\">", question, button] {
            #expect(page.contains(text), "no \(text) on the \(locale) confirmation page")
        }
        #expect(!page.contains("Open the event"))
        let csrf = try fixture.csrf(done)
        #expect(try fixture.post(done, form: "csrf=" + csrf).text.contains(result))
        let again = try fixture.post(done, form: "csrf=" + csrf)
        #expect(again.status == 409 && again.text.contains(used))
    }

    @Test func thePostFromThePageActsOnce() throws {
        let fixture = try ActionLinkFixture()
        let done = try fixture.token("done"), csrf = try fixture.csrf(done)
        let result = try fixture.post(done, form: "csrf=" + csrf)
        #expect(result.status == 200)
        #expect(result.text.contains("2 tasks of “Pagliacci &lt;img src=x onerror=alert(1)&gt;” done ✓"))
        #expect(try fixture.state().open == 0)
        let again = try fixture.post(done, form: "csrf=" + csrf)
        #expect(again.status == 409)
        #expect(again.text.contains("This link was used already"))
        #expect(try fixture.get(done).status == 409)
    }

    @Test func aLinkPostedTenTimesAtOnceActsOnce() throws {
        let fixture = try ActionLinkFixture()
        let snooze = try fixture.token("snooze"), csrf = try fixture.csrf(snooze)
        let statuses = Mutex<[Int]>([])
        DispatchQueue.concurrentPerform(iterations: 10) { _ in
            let status = (try? fixture.post(snooze, form: "csrf=" + csrf).status) ?? 0
            statuses.withLock { $0.append(status) }
        }
        #expect(statuses.withLock { $0.sorted() } == [200] + Array(repeating: 409, count: 9))
        #expect(try fixture.state().deliveries.count == 1)
    }

    @Test func snoozeAndTomorrowPutTheAlertInTheLedgerAgain() throws {
        let fixture = try ActionLinkFixture()
        for name in ["snooze", "tomorrow"] {
            let token = try fixture.token(name)
            #expect(try fixture.post(token, form: "csrf=" + fixture.csrf(token)).status == 200)
        }
        let rows = try fixture.state().deliveries
        #expect(rows.map(\.dueAt) == [ActionLinkFixture.now.addingTimeInterval(3600), ISOInstant.parse("2026-12-02T08:00:00Z")])
        #expect(rows.allSatisfy { $0.channel == "team" && $0.state == .pending && $0.eventID == fixture.eventID })
    }

    @Test func anExpiredLinkIsRefusedAndChangesNothing() throws {
        let fixture = try ActionLinkFixture(serverTime: ActionLinkFixture.now.addingTimeInterval(7 * 86_400))
        let snooze = try fixture.token("snooze")
        let page = try fixture.get(snooze)
        #expect(page.status == 410)
        #expect(page.text.contains("This link expired on 2026-12-08T20:00:00Z"))
        #expect(!page.text.contains("<form"))
        let csrf = try ActionLinkRoutes.csrf(token: snooze, store: Store(path: fixture.storePath))
        #expect(try fixture.post(snooze, form: "csrf=" + csrf).status == 410)
        #expect(try fixture.state().deliveries.isEmpty)
    }

    @Test func aLinkWithOneCharacterChangedIsRefused() throws {
        let fixture = try ActionLinkFixture()
        let done = try fixture.token("done")
        var characters = Array(done)
        characters[characters.count / 2] = characters[characters.count / 2] == "Q" ? "R" : "Q"
        let tampered = String(characters)
        let page = try fixture.get(tampered)
        #expect(page.status == 400)
        #expect(page.text.contains("not signed by this planner"))
        #expect(try fixture.post(tampered, form: "csrf=" + fixture.csrf(done)).status == 403)
        #expect(try fixture.state().open == 2)
    }

    @Test func aSignatureOfAnotherEventOrAnotherStoreIsRefused() throws {
        let fixture = try ActionLinkFixture()
        let myToken = try fixture.token("done")
        let mine = try #require(Base64URL.decode(myToken))
        let other = ActionLink(action: .done, eventID: "fedcba9876543210", occurrenceStart: ActionLinkFixture.occurrence,
                               channel: "team", expires: ActionLinkFixture.now.addingTimeInterval(86_400))
        let stored = try Store(path: fixture.storePath).storedSecret(named: Store.actionLinkKeyName)
        let key = try #require(stored)
        let theirToken = try #require(other.token(key: key))
        let theirs = try #require(Base64URL.decode(theirToken))
        let spliced = Base64URL.encode(mine.prefix(mine.count - 32) + theirs.suffix(32))
        let foreign = try #require(other.token(key: Data(repeating: 1, count: 32)))
        for token in [spliced, foreign] {
            #expect(try fixture.get(token).status == 400)
        }
        #expect(try fixture.state().open == 2)
    }

    @Test func aPostWithoutThePagesProofIsForbidden() throws {
        let fixture = try ActionLinkFixture()
        let done = try fixture.token("done")
        #expect(try fixture.post(done, form: "").status == 403)
        #expect(try fixture.post(done, form: "csrf=" + String(repeating: "0", count: 64)).status == 403)
        let crossSite = try fixture.post(done, form: "csrf=" + fixture.csrf(done), headers: ["Sec-Fetch-Site": "cross-site"])
        #expect(crossSite.status == 403)
        #expect(try fixture.state().open == 2)
    }

    @Test(arguments: ["PUT", "DELETE", "PATCH"])
    func anyOtherMethodIsNotAllowed(method: String) throws {
        let fixture = try ActionLinkFixture()
        let response = try request(fixture.running.port, method, "/a/" + fixture.token("done"))
        #expect(response.status == 405)
        #expect(response.header("Allow") == "GET, POST")
        #expect(try fixture.state().open == 2)
    }

    @Test func aLinkToADeletedEventIsRefused() throws {
        let fixture = try ActionLinkFixture()
        _ = try Store(path: fixture.storePath).delete(id: fixture.eventID)
        let page = try fixture.get(try fixture.token("done"))
        #expect(page.status == 404)
        #expect(page.text.contains("no longer in the planner"))
    }
}
