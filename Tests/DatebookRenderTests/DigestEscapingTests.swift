import DatebookCore
import DatebookRender
import DatebookTemplates
import DatebookTestSupport
import Foundation
import Testing

struct DigestEscapingTests {
    static let hostile = [
        "*not bold*", "[x](javascript:alert(1))", "<script>alert('x')</script>", "Tom & \"Jerry\" <b>",
        "שלום עולם — مرحبا", "🎉 Party 👩‍👩‍👧 time", "line\nbreak\u{1B}[31mred\u{7}", "# heading?", "1. list?",
        "`code` _under_ ~~gone~~ | pipe |",
    ]

    @Test func htmlEscapesEveryPieceOfEventText() throws {
        let html = try DigestFixtures.render(.html, extra: [DigestFixtures.event(Self.hostile[2], tasks: Self.hostile)])
        #expect(!html.contains("<script>"))
        #expect(html.contains("&lt;script&gt;alert('x')&lt;/script&gt;"))
        #expect(html.contains("Tom &amp; &quot;Jerry&quot; &lt;b&gt;"))
        #expect(html.contains("<div dir=\"auto\">○ שלום עולם — مرحبا</div>"))
        #expect(html.contains("🎉 Party 👩‍👩‍👧 time"))
        #expect(!html.contains("\u{1B}"))
    }

    @Test(arguments: hostile)
    func markdownTitlesRenderAsTheirLiteralText(title: String) throws {
        let context = try DigestFixtures.context(extra: [DigestFixtures.event(title)])
        let html = try DigestRenderer(overrideDirectory: nil).renderHTMLFromMarkdown(context)
        let cleaned = TextWidth.clean(title).trimmingCharacters(in: .whitespaces)
        let expected = cleaned.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
        #expect(html.contains("<strong>" + expected + "</strong>"), "\(title)")
        #expect(!html.contains("javascript:alert(1)\""))
        #expect(!html.contains("<em>not bold</em>"))
    }

    @Test func markdownEscaperBackslashesInlineSyntax() {
        #expect(Markdown.escape("*a* [b](c)") == "\\*a\\* \\[b\\]\\(c\\)")
        #expect(Markdown.escape("# x") == "\\# x")
        #expect(Markdown.escape("12. x") == "12\\. x")
        #expect(Markdown.escape("a # b. c") == "a # b. c")
    }

    @Test func cmarkDropsRawHTMLAndRendersTaskLists() throws {
        let html = try Markdown.html(from: "<script>x</script>\n\n- [ ] open\n- [x] done\n\n[a](javascript:alert(1))\n")
        #expect(!html.contains("<script>"))
        #expect(html.contains("<!-- raw HTML omitted -->"))
        #expect(html.contains("<input type=\"checkbox\" disabled=\"\" /> open"))
        #expect(html.contains("<input type=\"checkbox\" checked=\"\" disabled=\"\" /> done"))
        #expect(html.contains("<a href=\"\">a</a>"))
    }

    @Test func longAndControlCharacterTitlesAreTruncatedAndCleaned() throws {
        let long = String(repeating: "x", count: 10_000)
        for format in DigestFormat.allCases {
            let out = try DigestFixtures.render(format, extra: [DigestFixtures.event(long), DigestFixtures.event("a\u{1B}[2Jb\nc", hour: 19)])
            #expect(!out.contains(String(repeating: "x", count: DigestContext.maxTitleColumns)))
            #expect(out.contains(format == .markdown ? "a \\[2Jb c" : "a [2Jb c"))
            #expect(!out.contains("\u{1B}"))
        }
    }

    @Test func textDigestKeepsTitlesVerbatim() throws {
        let text = try DigestFixtures.render(.text, extra: [DigestFixtures.event("*not bold* & <b>")])
        #expect(text.contains("⭐ *not bold* & <b>"))
    }
}

struct BuiltInTemplateTests {
    static let templatesDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("templates")

    /// The embedded bytes are what a copied release binary renders: they must equal the files.
    @Test func embeddedTemplatesEqualTheFilesInTemplatesFolder() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.templatesDirectory.path).filter { $0.hasSuffix(".mustache") }
        #expect(Set(files) == Set(BuiltInTemplates.all.map(\.name)))
        for (name, source) in BuiltInTemplates.all {
            let file = try String(contentsOf: Self.templatesDirectory.appendingPathComponent(name), encoding: .utf8)
            #expect(file == source, "\(name) differs from its embedded copy")
        }
    }

    @Test func everyBuiltInParses() throws {
        for (name, source) in BuiltInTemplates.all {
            _ = try MustacheTemplate(source: source, name: name)
        }
    }

    @Test func userOverrideWinsOverBuiltInIncludingPartials() throws {
        let directory = makeScratchFolder("templates")
        defer { removeScratchFolder(directory) }
        try "MINE {{summary}}\n".write(toFile: directory + "/digest.txt.mustache", atomically: true, encoding: .utf8)
        try "<p>my calendar {{title}}</p>".write(toFile: directory + "/calendar.html.mustache", atomically: true, encoding: .utf8)
        #expect(try DigestFixtures.render(.text, overrides: directory) == "MINE 4 events this week, 11 open tasks\n")
        let html = try DigestFixtures.render(.html, overrides: directory)
        #expect(html.contains("<p>my calendar November 2026</p>"))
        #expect(html.contains("<!DOCTYPE html>"))
    }

    @Test func templateErrorsNameFileLineAndColumn() throws {
        let directory = makeScratchFolder("templates")
        defer { removeScratchFolder(directory) }
        try "Hello\n{{#sections}}\n  {{title}}\n".write(toFile: directory + "/digest.md.mustache", atomically: true, encoding: .utf8)
        #expect(throws: MustacheError.self) { try DigestFixtures.render(.markdown, overrides: directory) }
        do {
            _ = try DigestFixtures.render(.markdown, overrides: directory)
        } catch {
            #expect("\(error)" == "digest.md.mustache:2:1: unclosed section 'sections'")
        }
        try "{{<no-such-layout}}{{/no-such-layout}}".write(toFile: directory + "/digest.txt.mustache", atomically: true, encoding: .utf8)
        #expect(throws: MustacheError.self) { try DigestFixtures.render(.text, overrides: directory) }
    }

    @Test func unknownLocaleAndFormatSuggestTheNearest() {
        #expect(throws: DigestError.unknownLocale("de_XX", suggestion: "de_DE")) {
            try DigestLocale(identifier: "de_XX", timeZone: .gmt)
        }
        #expect(throws: DigestError.unknownFormat("htm", suggestion: "html")) { try DigestFormat(name: "htm") }
        #expect((try? DigestLocale(identifier: "ja-JP", timeZone: .gmt))?.identifier == "ja_JP")
    }
}
