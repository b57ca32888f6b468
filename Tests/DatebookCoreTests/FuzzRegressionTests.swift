import DatebookCore
import Foundation
import Testing

/// Inputs the fuzzers found (fuzz/, docs/fuzzing.md), kept in `Fixtures/fuzz/` and named after
/// their target (`planner-json-…`, `when-…`): each goes through the entry point its target fuzzes
/// and must end in a value or a clean error, never a trap.
struct FuzzRegressionTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/fuzz")
    static let findings = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()

    @Test func findingsAreKept() {
        #expect(Self.findings.contains("planner-json-two-high-surrogates"))
    }

    @Test(arguments: findings)
    func findingEndsInAValueOrAnError(name: String) throws {
        let bytes = Array(try Data(contentsOf: Self.directory.appendingPathComponent(name)))
        if name.hasPrefix("planner-json-") {
            guard let root = try? JSONParser.parse(bytes) else { return }
            let defaults = PlannerDocument.Defaults(timeZone: "UTC", newID: { "id" }, symbol: { .star }, color: { .primary })
            _ = try? PlannerDocument.decode(root, file: name, defaults: defaults, validation: EventValidation(ruleProblem: { _ in nil }))
        } else if name.hasPrefix("when-") {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "Europe/Berlin") ?? .current
            _ = try? WhenParser(now: Date(timeIntervalSince1970: 1_796_284_800), calendar: calendar)
                .parse(String(decoding: bytes, as: UTF8.self))
        } else {
            Issue.record("\(name): no target of this name in Core; name findings after their fuzz target")
        }
    }

    @Test(arguments: [
        (#""\uD83D\uDE00""#, "\u{1F600}"),
        (#""\uDBFE\uDBFE""#, "\u{FFFD}\u{FFFD}"),
        (#""\uDBFE\u0041""#, "\u{FFFD}A"),
        (#""\uDC00x""#, "\u{FFFD}x"),
    ])
    func surrogateEscapesPairOrBecomeReplacementCharacters(json: String, text: String) throws {
        #expect(try JSONParser.parse(json).value == .string(text))
    }

    @Test func aSignInsideAUnicodeEscapeIsMalformed() {
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(#""\u+123""#) }
    }
}
