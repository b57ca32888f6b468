import DatebookRender
import Foundation
import Testing

/// The example in templates/README.md renders exactly the output printed below it.
struct TemplateReadmeTests {
    static let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("templates/README.md")

    /// The contents of the first fenced block after `fence` in `text`.
    static func block(after fence: String, in text: String) -> String? {
        guard let start = text.range(of: fence + "\n") else { return nil }
        guard let end = text.range(of: "\n```\n", range: start.upperBound..<text.endIndex) else { return nil }
        return String(text[start.upperBound..<end.lowerBound]) + "\n"
    }

    @Test func readmeExampleRendersAsDocumented() throws {
        let text = try String(contentsOf: Self.readme, encoding: .utf8)
        let template = try #require(Self.block(after: "```mustache", in: text))
        let expected = try #require(Self.block(after: "```text", in: text))
        let output = try MustacheTemplate(source: template, name: "README example")
            .render(DigestFixtures.context().value, options: MustacheRenderOptions(missingPartial: .error, escape: MustacheEscaper.none))
        if ProcessInfo.processInfo.environment["DATEBOOK_UPDATE_SNAPSHOTS"] == "1" {
            try text.replacingOccurrences(of: "```text\n" + expected, with: "```text\n" + output)
                .write(to: Self.readme, atomically: true, encoding: .utf8)
            return
        }
        #expect(output == expected)
    }
}
