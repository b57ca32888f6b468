import DatebookCore
import DatebookDelivery
import DatebookTestSupport
import Foundation
import Testing

@testable import DatebookRender

/// Calendar text written to look like links and formatting stays literal on every service, in
/// every field: each payload is read through `ServiceRendering`'s model of its service, and no
/// live link or formatted run may come from the hostile text.
@Suite struct HostileRenderingTests {
    /// Every mark the chat services read, each around its own word so a formatted run names it.
    static let hostile = "# xhead *xbold* _xital_ ~xstrike~ ~~xdouble~~ `xcode` **xstrong** __xunder__ ||xspoil|| "
        + "[xlink](http://evil.example/x) <http://evil.example|xspoof> > xquote"
    /// Each marker word with its marks as written: a run the reader sees formatted (or a link's
    /// text) may hold a marker only with its marks still visible around it, i.e. when the
    /// formatting is datebook's own (a bold title) and the hostile marks inside it stayed text.
    static let markers = [
        "xhead": "# xhead", "xbold": "*xbold*", "xital": "_xital_", "xstrike": "~xstrike~", "xdouble": "~~xdouble~~",
        "xcode": "`xcode`", "xstrong": "**xstrong**", "xunder": "__xunder__", "xspoil": "||xspoil||",
        "xlink": "[xlink](http://evil.example/x)", "xspoof": "<http://evil.example|xspoof>", "xquote": "> xquote",
    ]

    /// Whether `run` shows a marker without its marks: hostile markup that took effect.
    static func obeyed(_ run: String) -> Bool {
        markers.contains { run.contains($0.key) && !run.contains($0.value) }
    }

    /// The alert with `hostile` in one field. `markdown` and `html` are left out: they are
    /// markup by contract, written by the renderer that escapes the event's text into them
    /// (covered below by `anAlertMadeFromHostileEventTextRendersLiterallyEverywhere`).
    static let fields: [String: @Sendable (inout OutgoingMessage) -> Void] = [
        "title": { $0.title = hostile }, "text": { $0.text = hostile },
        "event.title": { $0.event?.title = hostile }, "event.notes": { $0.event?.notes = hostile },
        "event.location": { $0.event?.location = hostile }, "event.symbol": { $0.event?.symbol = hostile },
        "event.start": { $0.event?.start = hostile }, "event.end": { $0.event?.end = hostile },
        "event.timeZone": { $0.event?.timeZone = hostile }, "event.colorName": { $0.event?.colorName = hostile },
        "labels.openTaskCount": { $0.labels.openTaskCount = hostile },
    ]
    static let services = ["slack", "discord", "teams", "mattermost", "ntfy"]

    static func expectNothingLive(_ seen: ServiceRendering.Seen, _ context: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for link in seen.links {
            #expect(!link.target.contains("evil.example"), "\(context): live link \(link)", sourceLocation: sourceLocation)
            #expect(!markers.keys.contains { link.text.contains($0) }, "\(context): live link \(link)", sourceLocation: sourceLocation)
        }
        for run in seen.formatted {
            #expect(!obeyed(run), "\(context): formatted \(run)", sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: services, fields.keys.sorted())
    func hostileTextInAnyFieldRendersLiterally(service: String, field: String) throws {
        let set = try #require(Self.fields[field])
        var message = Fixtures.alert
        set(&message)
        let builder = try #require(allBuilders.first { $0.name == service })
        let requests = builder.build(message)
        #expect(!requests.isEmpty)
        for request in requests {
            let texts = try ServiceRendering.texts(service: service, body: request.body)
            #expect(!texts.isEmpty, "\(service): the model reads no text of the payload")
            Self.expectNothingLive(try ServiceRendering.seen(service: service, body: request.body), "\(service) \(field)")
        }
    }

    /// The body path for real: an alert made from an event whose title, place, notes and task
    /// are hostile, through `AlertMessage.make` and every payload builder.
    @Test(arguments: services)
    func anAlertMadeFromHostileEventTextRendersLiterallyEverywhere(service: String) throws {
        let calendar = DigestFixtures.calendar
        let start = try #require(ISOInstant.parse("2026-12-01T19:00:00Z"))
        var event = Event(id: "evt-hostile", title: Self.hostile, start: .instant(start), timeZone: DigestFixtures.zone.identifier,
                          symbol: .theatermasks, color: .purple, tasks: [EventTask(id: "t1", text: Self.hostile)])
        event.location = Self.hostile
        event.notes = Self.hostile
        let message = AlertMessage.make(Occurrence(event: event, calendar: calendar), lead: LeadTime(seconds: 3600), channel: "team",
                                        calendar: calendar)
        let builder = try #require(allBuilders.first { $0.name == service })
        for request in builder.build(message) {
            Self.expectNothingLive(try ServiceRendering.seen(service: service, body: request.body), "\(service) made alert")
        }
    }

    /// The model is not blind: the same hostile text, put where each service reads markup, is
    /// seen as the links and formatting it asks for.
    @Test func theModelSeesLinksAndFormattingInRawMarkup() {
        let slack = ServiceRendering.seen(Self.hostile, as: .slackMrkdwn)
        #expect(slack.links.contains { $0.target == "http://evil.example" && $0.text == "xspoof" })
        #expect(Set(slack.formatted).isSuperset(of: ["xbold", "xital", "xstrike", "xcode"]))
        #expect(ServiceRendering.seen(Self.hostile, as: .plain) == .init())

        let markdown = ServiceRendering.seen(Self.hostile, as: .markdown)
        #expect(markdown.links.contains { $0.target == "http://evil.example/x" && $0.text == "xlink" })
        #expect(markdown.formatted.contains { $0.hasPrefix("h1: ") })
        let body = ServiceRendering.seen("a " + Self.hostile, as: .markdown)
        for run in ["em: xbold", "em: xital", "del: xstrike", "del: xdouble", "code: xcode", "strong: xstrong", "strong: xunder", "spoiler: xspoil"] {
            #expect(body.formatted.contains(run), "\(run) in \(body.formatted)")
        }
        #expect(body.formatted.contains(where: Self.obeyed) && slack.formatted.contains(where: Self.obeyed))
        #expect(!Self.obeyed("strong: 🎂 " + Self.hostile))
        let mattermost = ServiceRendering.seen("a <http://evil.example|xspoof>", as: .mattermost)
        #expect(mattermost.links == [.init(text: "xspoof", target: "http://evil.example")])
        #expect(ServiceRendering.seen("a <http://evil.example|xspoof>", as: .markdown).links.allSatisfy { $0.text != "xspoof" })
    }

    /// Each service's own escaping rule, read back through the model, shows the text as written.
    @Test func eachServiceRuleKeepsTheTextLiteral() {
        #expect(ServiceRendering.seen(ServiceMarkup.discord(Self.hostile), as: .markdown) == .init())
        #expect(ServiceRendering.seen(ServiceMarkup.teams(Self.hostile), as: .markdown) == .init())
        #expect(ServiceRendering.seen(ServiceMarkup.mattermost(Self.hostile), as: .mattermost) == .init())
        #expect(ServiceRendering.seen(ServiceMarkup.mattermostMessage("a <http://evil.example|xspoof>"), as: .mattermost) == .init())
        #expect(ServiceMarkup.slack("<!channel> & <http://x|y>") == "&lt;!channel&gt; &amp; &lt;http://x|y&gt;")
        // What the reader sees of the escaped text is the text itself.
        #expect(ServiceRendering.plain((try? Markdown.html(from: ServiceMarkup.discord(Self.hostile))) ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines) == Self.hostile)
    }
}
