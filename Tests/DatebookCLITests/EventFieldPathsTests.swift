import DatebookCore
@testable import DatebookRender
@testable import DatebookStore
@testable import DatebookInterchange
import DatebookTestSupport
import Foundation
import Testing

/// One event with every field set to something other than its default goes through each path an
/// event travels, and every field must come out as it went in. Store and planner JSON are
/// compared over all of `Event`'s stored properties (by reflection, so a new field is checked
/// without touching this test); the rendered paths are checked key by key for what they show.
struct EventFieldPathsTests {
    static let zone = TimeZone(identifier: "America/New_York") ?? .gmt
    static var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar
    }

    /// Every field non-default; the start is within the next 7 days of `Sandbox`'s clock.
    static let full = Event(
        id: "0123456789abcdef", title: "Flight to Lisbon",
        start: .instant(Date(timeIntervalSince1970: 1_796_302_800)), // 2026-12-03T13:00:00Z
        end: .instant(Date(timeIntervalSince1970: 1_796_332_800)),
        timeZone: "America/New_York", symbol: .airplane, color: .orange, notes: "Gate closes early.\nCheck in online.",
        location: "Terminal 2, Gate B12", url: "https://tickets.example.org/flight?id=42&seat=12A",
        tasks: [EventTask(id: "t1", text: "Pack", status: .done), EventTask(id: "t2", text: "Passport", status: .doing),
                EventTask(id: "t3", text: "Taxi", status: .todo)],
        alerts: [LeadTime(days: 1), LeadTime(seconds: 3 * 3600)], recurrence: "FREQ=WEEKLY;COUNT=3")

    /// The names of the stored properties whose values differ (every property of `Event`).
    static func differences(_ a: Event, _ b: Event) -> [String] {
        zip(Mirror(reflecting: a).children, Mirror(reflecting: b).children).compactMap { x, y in
            String(describing: x.value) == String(describing: y.value) ? nil : "\(x.label ?? "?"): \(x.value) ≠ \(y.value)"
        }
    }

    /// Fields the fixture leaves at their default on purpose: a to-do list is on no date and shown
    /// apart from the periods, so the rendered paths below would not show this event as one
    /// (TaskListStoreTests and CalDAVToDoListTests carry the flag through the store and the sync).
    static let leftDefault: Set<String> = ["isTaskList"]

    /// The fixture really is non-default in every other field: an `Event` made with defaults differs in each one.
    @Test func theFixtureSetsEveryField() {
        let plain = Event(id: "", title: "", start: .allDay(CalendarDate(dayNumber: 0)), timeZone: "", symbol: .star, color: .primary)
        let fields = Mirror(reflecting: plain).children.compactMap(\.label).filter { !Self.leftDefault.contains($0) }
        #expect(Self.differences(Self.full, plain).map { String($0.prefix { $0 != ":" }) } == fields)
    }

    @Test func theStoreKeepsEveryFieldRowByRowAndInBulk() throws {
        let directory = makeScratchFolder("fields")
        defer { removeScratchFolder(directory) }
        let single = try Store(path: directory + "/single.sqlite3")
        try single.save(Self.full)
        let rowByRow = try #require(try single.event(id: Self.full.id))
        #expect(Self.differences(rowByRow, Self.full) == [])
        // A batch this large into an empty store takes the bulk loader (`BulkRows`).
        let bulk = try Store(path: directory + "/bulk.sqlite3")
        let filler = (0..<Store.bulkThreshold).map { n in
            Event(id: String(format: "%016x", n), title: "filler \(n)", start: .allDay(CalendarDate(dayNumber: 20_000 + n % 300)),
                  timeZone: "UTC", symbol: .star, color: .primary)
        }
        try bulk.save(filler + [Self.full])
        let bulkLoaded = try #require(try bulk.event(id: Self.full.id))
        #expect(Self.differences(bulkLoaded, Self.full) == [])
    }

    @Test func plannerJSONKeepsEveryField() throws {
        let text = PlannerDocument.encode([Self.full])
        let read = try PlannerDocument.decode(try JSONParser.parse(text), file: "planner.json", defaults: .init(
            timeZone: "UTC", newID: { "new" }, symbol: { .star }, color: { .primary }), validation: .planner)
        let decoded = try #require(read.first)
        #expect(read.count == 1)
        #expect(Self.differences(decoded, Self.full) == [])
    }

    @Test func iCalendarKeepsEveryField() throws {
        let text = PlannerICS.encode([Self.full], uids: [:], dtstamp: Date(timeIntervalSince1970: 1_796_000_000))
        let read = try PlannerICS.decode(Data(text.utf8), fileName: "planner.ics", options: .init(
            calendar: "import", timeZone: Self.zone, today: CalendarDate(year: 2026, month: 11, day: 30), existing: { _ in nil }))
        #expect(read.warnings == [])
        let imported = try #require(read.events.first)
        #expect(read.events.count == 1)
        #expect(Self.differences(imported, Self.full) == [])
    }

    @Test func theDigestContextShowsEveryFieldItShows() throws {
        let now = Date(timeIntervalSince1970: 1_796_200_000)
        let plan = DigestPlan(now: now, calendar: Self.calendar)
        let input = DigestInput(occurrences: [Occurrence(event: Self.full, calendar: Self.calendar)], plan: plan, calendar: Self.calendar)
        let context = DigestContext(input, locale: try DigestLocale(identifier: "en_US", timeZone: Self.zone))
        guard case .object(let root) = context.value, case .array(let sections)? = root["sections"],
              case .object(let section)? = sections.first, case .array(let events)? = section["events"],
              case .object(let event)? = events.first else {
            Issue.record("no event in the digest context: \(context.value)")
            return
        }
        #expect(event["id"] == .string(Self.full.id))
        #expect(event["title"] == .string(Self.full.title))
        #expect(event["symbol"] == .string(Self.full.symbol.rawValue))
        #expect(Self.member(event["color"], "name") == .string(Self.full.color.rawValue))
        #expect(Self.member(event["start"], "iso") == .string("2026-12-03T08:00:00-05:00"))
        #expect(event["allDay"] == .bool(false))
        #expect(event["openCount"] == .int(2))
        #expect(event["location"] == .string(Self.full.location))
        #expect(event["url"] == .string(Self.full.url))
        #expect(event["openTasks"].map(Self.texts) == ["Passport", "Taxi"])
        #expect(event["doneTasks"].map(Self.texts) == ["Pack"])
    }

    static func member(_ value: MustacheValue?, _ key: String) -> MustacheValue? {
        if case .object(let members)? = value { members[key] } else { nil }
    }

    static func texts(_ tasks: MustacheValue) -> [String] {
        guard case .array(let items) = tasks else { return [] }
        return items.compactMap { if case .string(let text)? = member($0, "text") { text } else { nil } }
    }

    @Test func theWebhookPayloadCarriesEveryFieldOfTheAlert() throws {
        let occurrence = Occurrence(event: Self.full, calendar: Self.calendar)
        let message = AlertMessage.make(occurrence, lead: LeadTime(seconds: 3 * 3600), channel: "hook", calendar: Self.calendar)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(WebhookPayload.document(message).serialized.utf8))
                                as? [String: Any])
        #expect(json["schema"] as? String == "datebook.v1")
        #expect(json["url"] as? String == Self.full.url)
        let event = try #require(json["event"] as? [String: Any])
        #expect(event["id"] as? String == Self.full.id)
        #expect(event["title"] as? String == Self.full.title)
        #expect(event["start"] as? String == "2026-12-03T13:00:00Z")
        #expect(event["end"] as? String == "2026-12-03T21:20:00Z")
        #expect(event["allDay"] as? Bool == false)
        #expect(event["timeZone"] as? String == Self.full.timeZone)
        #expect(event["symbol"] as? String == Self.full.symbol.emoji)
        #expect(event["colorName"] as? String == Self.full.color.rawValue)
        #expect(event["colorHex"] as? String == Self.full.color.hex)
        #expect(event["notes"] as? String == TextWidth.clean(Self.full.notes), "notes as one line")
        #expect(event["openTasks"] as? Int == 2)
        #expect(event["location"] as? String == Self.full.location)
        #expect(event["url"] as? String == Self.full.url)
        // Every chat payload reads the place from the text and the link from the message.
        #expect(message.text.contains("📍 " + Self.full.location) && message.text.contains(Self.full.url))
        #expect(message.markdown.contains("📍 " + Self.full.location) && message.markdown.contains("<" + Self.full.url + ">"))
        #expect(message.html?.contains("href=\"https://tickets.example.org/flight?id=42&amp;seat=12A\"") == true)
    }

    @Test func listJSONShowsEveryFieldOfARow() throws {
        let sandbox = Sandbox()
        let file = sandbox.home + "/planner.json"
        try PlannerDocument.encode([Self.full]).write(toFile: file, atomically: true, encoding: .utf8)
        #expect(sandbox.run(["import", file]).code == 0)
        let listed = sandbox.run(["list", "--json", "--period", "next7"])
        let root = try #require(try JSONSerialization.jsonObject(with: Data(listed.out.utf8)) as? [String: Any])
        let periods = try #require(root["periods"] as? [[String: Any]])
        let event = try #require((periods.first?["events"] as? [[String: Any]])?.first)
        #expect(event["id"] as? String == Self.full.id)
        #expect(event["title"] as? String == Self.full.title)
        #expect(event["start"] as? String == "2026-12-03T14:00:00+01:00")
        #expect(event["allDay"] as? Bool == false)
        #expect(event["floating"] as? Bool == false)
        #expect(event["symbol"] as? String == Self.full.symbol.rawValue)
        #expect(event["color"] as? String == Self.full.color.rawValue)
        #expect(event["location"] as? String == Self.full.location)
        #expect(event["url"] as? String == Self.full.url)
        #expect(event["badge"] as? Int == 2)
        let tasks = try #require(event["tasks"] as? [[String: Any]])
        #expect(tasks.map { $0["text"] as? String } == Self.full.tasks.map(\.text))
        #expect(tasks.map { $0["status"] as? String } == Self.full.tasks.map(\.status.rawValue))
    }
}
