import DatebookCore
import DatebookDelivery
import DatebookTestSupport
import Foundation
import Testing

@testable import DatebookRender

/// What a reader of a chat alert sees says each thing once: the title (the service shows it on
/// its own, so the body's title line is left out) and the start, in local time only.
@Suite struct SaidOnceTests {
    static func shown(_ service: String, _ body: Data) throws -> [String] {
        var texts = try ServiceRendering.texts(service: service, body: body).map(\.text)
        if service == "ntfy", let title = (try JSONSerialization.jsonObject(with: body) as? [String: Any])?["title"] as? String {
            texts.append(title)
        }
        return texts
    }

    @Test(arguments: ["slack", "discord", "teams", "mattermost", "ntfy"])
    func aChatAlertSaysItsTitleOnceAndItsStartInLocalTimeOnly(service: String) throws {
        let message = try AlertLanguageTests.alert("en_US")
        let builder = try #require(allBuilders.first { $0.name == service })
        let body = try #require(builder.build(message).first?.body)
        var texts = try Self.shown(service, body)
        if service == "slack" {
            // The fallback `text` is what a notification shows instead of the blocks: once there too.
            let fallback = try #require((try JSONSerialization.jsonObject(with: body) as? [String: Any])?["text"] as? String)
            #expect(fallback.components(separatedBy: "Pagliacci").count - 1 == 1, "\(fallback)")
            texts.removeAll { $0 == fallback }
        }
        let all = texts.joined(separator: "\n")
        #expect(all.components(separatedBy: "Pagliacci").count - 1 == 1, "\(service): \(texts)")
        #expect(all.contains("Tue 2026-12-01 20:00 (Europe/Berlin)"), "\(service): \(texts)")
        #expect(!all.contains("2026-12-01T19:00:00Z"), "\(service): raw UTC beside the local time: \(texts)")
    }
}
