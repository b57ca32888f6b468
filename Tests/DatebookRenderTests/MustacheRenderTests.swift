import Foundation
import Synchronization
import Testing
import DatebookRender

@Suite("Mustache rendering")
struct MustacheRenderTests {
    @Test func listSectionRendersTwoThousandItemsInOrder() throws {
        let items = (0..<2_000).map { index -> MustacheValue in
            ["n": .int(index), "title": .string("Task <\(index)>")]
        }
        let template = try MustacheTemplate(source: "{{#items}}\n{{n}}. {{title}}\n{{/items}}\n", name: "list")
        let output = try template.render(["items": .array(items)])
        let lines = output.split(separator: "\n")
        #expect(lines.count == 2_000)
        #expect(lines.first == "0. Task &lt;0&gt;")
        #expect(lines.last == "1999. Task &lt;1999&gt;")
    }

    struct NumberCase: Sendable {
        let value: MustacheValue
        let text: String
    }

    @Test(arguments: [
        NumberCase(value: .int(85), text: "85"),
        NumberCase(value: .int(-3), text: "-3"),
        NumberCase(value: .double(3.0), text: "3"),
        NumberCase(value: .double(1.210), text: "1.21"),
        NumberCase(value: .double(-0.5), text: "-0.5"),
        NumberCase(value: .bool(false), text: "false"),
        NumberCase(value: .null, text: ""),
    ])
    func scalarsRenderWithoutSpuriousFractions(_ numberCase: NumberCase) throws {
        let template = try MustacheTemplate(source: "{{v}}")
        #expect(try template.render(["v": numberCase.value]) == numberCase.text)
    }

    @Test func jsonConversionTellsBooleansFromIntegers() throws {
        let json = try JSONSerialization.jsonObject(with: Data(#"{"a":true,"b":1,"c":1.5,"d":null,"e":["x"]}"#.utf8))
        let expected: MustacheValue = ["a": true, "b": 1, "c": 1.5, "d": nil, "e": ["x"]]
        #expect(MustacheValue(json: json) == expected)
    }

    @Test func zeroAndEmptyStringAreTruthyButEmptyListIsNot() throws {
        let template = try MustacheTemplate(source: "{{#z}}z{{/z}}{{#s}}s{{/s}}{{#l}}l{{/l}}{{^l}}!l{{/l}}")
        #expect(try template.render(["z": 0, "s": "", "l": []]) == "zs!l")
    }

    @Test func escapeIsPluggable() throws {
        let template = try MustacheTemplate(source: "{{t}}|{{{t}}}|{{&t}}")
        let context: MustacheValue = ["t": "a_<b>*"]
        #expect(try template.render(context) == "a_&lt;b&gt;*|a_<b>*|a_<b>*")
        #expect(try template.render(context, options: .init(escape: MustacheEscaper.none)) == "a_<b>*|a_<b>*|a_<b>*")
        let markdown: @Sendable (String) -> String = { $0.replacingOccurrences(of: "*", with: "\\*").replacingOccurrences(of: "_", with: "\\_") }
        #expect(try template.render(context, options: .init(escape: markdown)) == "a\\_<b>\\*|a_<b>*|a_<b>*")
    }

    @Test func libraryRenderCanOverrideEscapePerCall() throws {
        let library = try MustacheLibrary(templates: ["mail.txt": "{{subject}}"])
        #expect(try library.render(name: "mail.txt", context: ["subject": "R&D"]) == "R&amp;D")
        #expect(try library.render(name: "mail.txt", context: ["subject": "R&D"], escape: MustacheEscaper.none) == "R&D")
    }

    @Test func templateRendersPartialsGivenDirectly() throws {
        let header = try MustacheTemplate(source: "# {{title}}\n", name: "header")
        let page = try MustacheTemplate(source: "{{>header}}\n  {{>header}}", name: "page")
        #expect(try page.render(["title": "Today"], partials: ["header": header]) == "# Today\n  # Today\n")
    }

    @Test func lookupOverridesBuiltInsAndIsAskedOncePerName() throws {
        let asked = Mutex<[String]>([])
        let library = try MustacheLibrary(
            templates: ["page": "{{>header}}/{{>footer}}", "header": "built-in header", "footer": "built-in footer"],
            lookup: { name in
                asked.withLock { $0.append(name) }
                return name == "header" ? "user header" : nil
            }
        )
        #expect(try library.render(name: "page", context: [:]) == "user header/built-in footer")
        #expect(try library.render(name: "page", context: [:]) == "user header/built-in footer")
        #expect(asked.withLock { $0.sorted() } == ["footer", "header", "page"])
    }

    @Test func lookupErrorsPropagate() throws {
        struct Unreadable: Error, Equatable {}
        let library = try MustacheLibrary(templates: ["page": "{{>header}}"], lookup: { name in
            guard name != "header" else { throw Unreadable() }
            return nil
        })
        #expect(throws: Unreadable()) { try library.render(name: "page", context: [:]) }
    }

    @Test func parentNameCanComeFromTheContext() throws {
        let library = try MustacheLibrary(templates: [
            "card": "[{{$body}}card{{/body}}]",
            "page": "{{<*layout}}{{$body}}{{title}}{{/body}}{{/*layout}}",
        ])
        #expect(try library.render(name: "page", context: ["layout": "card", "title": "Standup"]) == "[Standup]")
    }

    @Test func layoutInheritanceFillsBlocksWithCallerContent() throws {
        let library = try MustacheLibrary(templates: [
            "layout": "<html>\n  <title>{{$title}}Datebook{{/title}}</title>\n  {{$body}}\n  empty\n  {{/body}}\n</html>\n",
            "digest": "{{<layout}}\n{{$title}}Digest for {{day}}{{/title}}\n{{$body}}\n<ul>\n{{#events}}\n  <li>{{.}}</li>\n{{/events}}\n</ul>\n{{/body}}\n{{/layout}}\n",
        ])
        let output = try library.render(name: "digest", context: ["day": "Mon", "events": ["a", "b"]])
        #expect(output == "<html>\n  <title>Digest for Mon</title>\n  <ul>\n    <li>a</li>\n    <li>b</li>\n  </ul>\n</html>\n")
    }
}
