import Testing
import DatebookRender

@Suite("Mustache errors")
struct MustacheErrorTests {
    struct ParseCase: Sendable, CustomTestStringConvertible {
        let source: String
        let message: String
        var testDescription: String { message }
    }

    static let parseCases: [ParseCase] = [
        ParseCase(
            source: String(repeating: "\n", count: 11) + "    {{#events}}\n{{title}}\n",
            message: "morning.md.mustache:12:5: unclosed section 'events'"
        ),
        ParseCase(source: "{{#a}}x{{/b}}", message: "morning.md.mustache:1:8: section 'a' closed by 'b'"),
        ParseCase(source: "{{#a}}{{^b}}{{/a}}{{/b}}", message: "morning.md.mustache:1:13: section 'b' closed by 'a'"),
        ParseCase(source: "ok\n{{/a}}", message: "morning.md.mustache:2:1: closing tag 'a' has no open section"),
        ParseCase(source: "Hi {{name", message: "morning.md.mustache:1:4: unclosed tag, expected '}}'"),
        ParseCase(source: "{{{name}}", message: "morning.md.mustache:1:1: unclosed tag, expected '}}}'"),
        ParseCase(source: "{{=<% %>=}}\n <%name", message: "morning.md.mustache:2:2: unclosed tag, expected '%>'"),
        ParseCase(source: "a{{", message: "morning.md.mustache:1:2: unclosed tag, expected '}}'"),
        ParseCase(source: "{{ }}", message: "morning.md.mustache:1:1: empty tag name"),
        ParseCase(source: "x\n  {{#}}{{/}}", message: "morning.md.mustache:2:3: empty tag name"),
        ParseCase(source: "{{>  }}", message: "morning.md.mustache:1:1: empty tag name"),
        ParseCase(source: "{{>*}}", message: "morning.md.mustache:1:1: empty tag name"),
        ParseCase(
            source: "{{=<%=}}",
            message: "morning.md.mustache:1:1: bad set-delimiter '<%', expected two delimiters like {{=<% %>=}}"
        ),
        ParseCase(
            source: "{{=a b c=}}",
            message: "morning.md.mustache:1:1: bad set-delimiter 'a b c', expected two delimiters like {{=<% %>=}}"
        ),
        ParseCase(
            source: "{{=a= b=}}",
            message: "morning.md.mustache:1:1: bad set-delimiter 'a= b', expected two delimiters like {{=<% %>=}}"
        ),
        ParseCase(source: "{{<layout}}{{$body}}x{{/layout}}", message: "morning.md.mustache:1:22: section 'body' closed by 'layout'"),
        ParseCase(source: "{{<layout}}", message: "morning.md.mustache:1:1: unclosed section 'layout'"),
        ParseCase(source: "Café ☕️ {{#a}}", message: "morning.md.mustache:1:8: unclosed section 'a'"),
    ]

    @Test("Parse error message", arguments: parseCases)
    func parseErrorNamesTemplateLineAndColumn(_ parseCase: ParseCase) {
        do {
            _ = try MustacheTemplate(source: parseCase.source, name: "morning.md.mustache")
            Issue.record("expected \(parseCase.message)")
        } catch let error as MustacheError {
            #expect(error.description == parseCase.message)
        } catch {
            Issue.record("unexpected error type: \(error)")
        }
    }

    @Test func parseErrorCarriesStructuredFields() throws {
        let error = try #require(throws: MustacheError.self) {
            try MustacheTemplate(source: "\n  {{#events}}", name: "morning.md.mustache")
        }
        #expect(error.templateName == "morning.md.mustache")
        #expect(error.line == 2)
        #expect(error.column == 3)
        #expect(error.kind == .unclosedSection("events"))
        #expect(error.message == "unclosed section 'events'")
    }

    struct RenderCase: Sendable, CustomTestStringConvertible {
        let templates: [String: String]
        let render: String
        let message: String
        var testDescription: String { message }
    }

    static let renderCases: [RenderCase] = [
        RenderCase(
            templates: ["digest.html.mustache": "<h1>\n{{#today}}\n{{>header}}\n{{/today}}"],
            render: "digest.html.mustache",
            message: "digest.html.mustache:3:1: no template named 'header'"
        ),
        RenderCase(
            templates: ["digest.html.mustache": "{{>header}}", "header": "Hi\n  {{<layout}}{{/layout}}"],
            render: "digest.html.mustache",
            message: "header:2:3: no template named 'layout'"
        ),
        RenderCase(
            templates: [
                "layout": "<main>{{$body}}{{/body}}</main>",
                "page": "{{<layout}}\n{{$body}}\n  <p>\n    {{>card}}\n{{/body}}\n{{/layout}}",
            ],
            render: "page",
            message: "page:4:5: no template named 'card'"
        ),
        RenderCase(
            templates: ["a": "x"],
            render: "digest.md.mustache",
            message: "no template named 'digest.md.mustache'"
        ),
        RenderCase(
            templates: ["loop": "{{>loop}}"],
            render: "loop",
            message: "loop: partials nested more than 100 deep at 'loop'; check for a template that includes itself"
        ),
    ]

    @Test("Render error message", arguments: renderCases)
    func renderErrorNamesIncludingTemplate(_ renderCase: RenderCase) throws {
        let library = try MustacheLibrary(templates: renderCase.templates)
        let context: MustacheValue = ["today": true]
        let error = try #require(throws: MustacheError.self) {
            try library.render(name: renderCase.render, context: context)
        }
        #expect(error.description == renderCase.message)
    }

    @Test func missingPartialRendersEmptyWhenConfigured() throws {
        let library = try MustacheLibrary(templates: ["page": "[{{>header}}]"], missingPartial: .empty)
        #expect(try library.render(name: "page", context: [:]) == "[]")
    }

    @Test func unresolvedDynamicNameRendersNothingEvenInErrorMode() throws {
        let library = try MustacheLibrary(templates: ["page": "[{{>*kind}}]"])
        #expect(try library.render(name: "page", context: [:]) == "[]")
        let error = try #require(throws: MustacheError.self) {
            try library.render(name: "page", context: ["kind": "card"])
        }
        #expect(error.description == "page:1:2: no template named 'card'")
    }

    @Test func builtInParseErrorsSurfaceFromLibraryInit() {
        let error = #expect(throws: MustacheError.self) {
            try MustacheLibrary(templates: ["ok": "fine", "broken.txt.mustache": "{{#a}}"])
        }
        #expect(error?.description == "broken.txt.mustache:1:1: unclosed section 'a'")
    }
}
