import Foundation
import Testing
import DatebookRender

/// One case from the Mustache spec's JSON files in `Fixtures/mustache-spec/`.
struct MustacheSpecCase: Sendable, CustomTestStringConvertible {
    let file: String
    let name: String
    let template: String
    let data: MustacheValue
    let partials: [String: String]
    let expected: String

    var testDescription: String { "\(file): \(name)" }

    /// The rendered output, or the error's description when rendering fails.
    func render() -> String {
        do {
            let library = try MustacheLibrary(
                templates: partials.merging(["<spec>": template]) { partial, _ in partial },
                missingPartial: .empty
            )
            return try library.render(name: "<spec>", context: data)
        } catch {
            return "error: \(error)"
        }
    }
}

enum MustacheSpec {
    static let requiredFiles = ["comments", "delimiters", "interpolation", "inverted", "partials", "sections", "~inheritance"]
    static let optionalFiles = ["~dynamic-names"]

    /// The spec's files, kept with their licence in this target's `Fixtures/mustache-spec/`.
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/mustache-spec")

    static func cases(in file: String) -> [MustacheSpecCase] {
        guard let data = try? Data(contentsOf: directory.appendingPathComponent("\(file).json")),
              let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let tests = root["tests"] as? [[String: Any]]
        else { return [] }
        return tests.map { test in
            MustacheSpecCase(
                file: file,
                name: test["name"] as? String ?? "?",
                template: test["template"] as? String ?? "",
                data: MustacheValue(json: test["data"] ?? NSNull()),
                partials: test["partials"] as? [String: String] ?? [:],
                expected: test["expected"] as? String ?? ""
            )
        }
    }

    static let requiredCases = requiredFiles.flatMap(cases(in:))
    static let optionalCases = optionalFiles.flatMap(cases(in:))
}

@Suite("Mustache spec conformance")
struct MustacheSpecTests {
    @Test("Required spec case", arguments: MustacheSpec.requiredCases)
    func requiredCaseRendersAsExpected(_ specCase: MustacheSpecCase) {
        #expect(specCase.render() == specCase.expected, "\(specCase.testDescription)")
    }

    @Test("Every spec file is found and every required case passes")
    func conformanceSummary() {
        let directory = MustacheSpec.directory
        var failedRequired = 0
        for file in MustacheSpec.requiredFiles + MustacheSpec.optionalFiles {
            let cases = MustacheSpec.cases(in: file)
            #expect(!cases.isEmpty, "no cases read from \(directory.path)/\(file).json")
            let passed = cases.filter { $0.render() == $0.expected }.count
            print("mustache spec \(file): \(passed) of \(cases.count) passed")
            if MustacheSpec.requiredFiles.contains(file) { failedRequired += cases.count - passed }
        }
        #expect(failedRequired == 0)
    }

    /// Dynamic names are optional: report, and check each case so failures are named.
    @Test("Optional ~dynamic-names case", arguments: MustacheSpec.optionalCases)
    func dynamicNameCaseRendersAsExpected(_ specCase: MustacheSpecCase) {
        #expect(specCase.render() == specCase.expected, "\(specCase.testDescription)")
    }
}
