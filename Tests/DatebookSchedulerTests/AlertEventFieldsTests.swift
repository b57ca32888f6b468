import DatebookCore
import DatebookDelivery
@testable import DatebookRender
@testable import DatebookScheduler
import Foundation
import Testing

/// What an alert says about its event reaches the generic webhook: the end of the occurrence
/// alerted about (it was always `null`: the alert message never passed it on).
struct AlertEventFieldsTests {
    static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Europe/Berlin") ?? .current
        return calendar
    }()

    static func webhookEvent(_ event: Event, occurrence start: Date) throws -> [String: Any] {
        let message = AlertMessage.make(Occurrence(event: event, start: start), lead: LeadTime(seconds: 3600),
                                        channel: "hook", calendar: calendar)
        let request = try #require(WebhookPayload.requests(for: message, options: .init(url: Secret("https://hook.example.org/"))).first)
        let body = try #require(try JSONSerialization.jsonObject(with: request.body) as? [String: Any])
        return try #require(body["event"] as? [String: Any])
    }

    @Test func theWebhookCarriesTheEndOfTheOccurrenceAlertedAbout() throws {
        // Weekly 10:00–11:30 in Berlin; the second instance, a week later.
        let event = Event(id: "aaaa000000000002", title: "Sync", start: .instant(utc("2026-12-01T09:00:00Z")),
                          end: .instant(utc("2026-12-01T10:30:00Z")), timeZone: "Europe/Berlin", symbol: .star,
                          color: .red, recurrence: "FREQ=WEEKLY")
        let second = try Self.webhookEvent(event, occurrence: utc("2026-12-08T09:00:00Z"))
        #expect(second["start"] as? String == "2026-12-08T09:00:00Z")
        #expect(second["end"] as? String == "2026-12-08T10:30:00Z")
    }

    @Test func anAllDayEndIsADateAndNoEndIsNull() throws {
        let trip = Event(id: "aaaa000000000003", title: "Trip", start: .allDay(CalendarDate(year: 2026, month: 12, day: 19)),
                         end: .allDay(CalendarDate(year: 2026, month: 12, day: 22)), timeZone: "Europe/Berlin",
                         symbol: .airplane, color: .cyan)
        let fields = try Self.webhookEvent(trip, occurrence: utc("2026-12-18T23:00:00Z"))
        #expect(fields["start"] as? String == "2026-12-19" && fields["end"] as? String == "2026-12-22")
        let call = Event(id: "aaaa000000000004", title: "Call", start: .instant(utc("2026-12-02T09:00:00Z")),
                         timeZone: "Europe/Berlin", symbol: .star, color: .red)
        #expect(try Self.webhookEvent(call, occurrence: utc("2026-12-02T09:00:00Z"))["end"] is NSNull)
    }

    /// An alert of a later instance of a recurring all-day event names that instance's day (it
    /// named the first one).
    @Test func aRecurringAllDayAlertNamesItsOwnDay() {
        let bins = Event(id: "aaaa000000000005", title: "Bins out", start: .allDay(CalendarDate(year: 2026, month: 12, day: 1)),
                         timeZone: "Europe/Berlin", symbol: .star, color: .green, recurrence: "FREQ=WEEKLY")
        let message = AlertMessage.make(Occurrence(event: bins, start: utc("2026-12-07T23:00:00Z")), lead: LeadTime(seconds: 3600),
                                        channel: "hook", calendar: Self.calendar)
        #expect(message.text.contains("Tue 2026-12-08, all day"), "\(message.text)")
        #expect(message.event?.start == "2026-12-08")
    }
}
