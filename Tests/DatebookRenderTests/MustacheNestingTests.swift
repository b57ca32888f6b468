import DatebookRender
import Foundation
import Testing

/// Deep nesting is a template error, not a stack overflow (10,000 nested sections used to crash
/// the parser; a partial that includes itself inside sections could go as deep when rendered).
struct MustacheNestingTests {
    static func nested(_ depth: Int, _ name: String = "a") -> String {
        String(repeating: "{{#\(name)}}", count: depth) + "x" + String(repeating: "{{/\(name)}}", count: depth)
    }

    @Test func sectionsNestedOneHundredDeepParseAndRender() throws {
        let template = try MustacheTemplate(source: Self.nested(100), name: "t")
        #expect(try template.render(["a": true]) == "x")
    }

    @Test(arguments: [101, 10_000, 100_000])
    func deeperSectionsAreRefusedNamingTheSection(depth: Int) {
        let error = #expect(throws: MustacheError.self) { try MustacheTemplate(source: Self.nested(depth), name: "t") }
        #expect(error?.description == "t:1:601: sections and partials nested more than 100 deep at 'a'; flatten the template")
    }

    @Test func aSelfIncludingPartialInsideSectionsStopsAtTheRenderLimit() throws {
        let template = try MustacheTemplate(source: Self.nested(50, "a").replacingOccurrences(of: "x", with: "{{>self}}"), name: "self")
        let error = #expect(throws: MustacheError.self) { try template.render(["a": true], partials: ["self": template]) }
        #expect(error?.description == "self: sections and partials nested more than 256 deep at 'self'; flatten the template")
    }

    /// 40,000 tags on one line: finding each tag's line start by walking back made this quadratic
    /// (8,000 tags took seconds); the bound is loose for a loaded machine, the old cost was minutes.
    @Test func thousandsOfTagsOnOneLineParseInLinearTime() throws {
        let source = String(repeating: "{{a}}{{>p}}", count: 20_000)
        let clock = ContinuousClock()
        let elapsed = try clock.measure { _ = try MustacheTemplate(source: source, name: "t") }
        #expect(elapsed < .seconds(10))
    }

    @Test func partialPositionsCountedIncrementallyStayExact() throws {
        let template = try MustacheTemplate(source: "é{{>a}}\n  {{>b}} ü {{>c}}", name: "t")
        let error = #expect(throws: MustacheError.self) { try template.render([:], partials: [:]) }
        #expect(error?.description == "t:1:2: no template named 'a'")
        let later = try MustacheTemplate(source: "é{{#x}}{{/x}}\n  {{#x}}{{/x}} ü {{>c}}", name: "t")
        let laterError = #expect(throws: MustacheError.self) { try later.render([:], partials: [:]) }
        #expect(laterError?.description == "t:2:18: no template named 'c'")
    }
}
