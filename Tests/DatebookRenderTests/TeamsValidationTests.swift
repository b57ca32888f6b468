import DatebookCore
import DatebookDelivery
import DatebookTestSupport
import Foundation
import Testing

@testable import DatebookRender

/// Microsoft's Adaptive Card 1.5 schema, kept in the repository with its licence
/// (`Fixtures/adaptive-card-1.5/`), checked by Python's `jsonschema` (`Fixtures/validate_adaptive_card.py`):
/// every Teams payload datebook builds, alerts and digests, ordinary, hostile, localized and
/// oversized, is a valid card that uses nothing newer than its own version and is never empty.
@Suite struct TeamsValidationTests {
    static let needsJSONSchema = Testing.ConditionTrait.enabled(
        if: TestPython.imports(["jsonschema"]),
        "jsonschema is not installed for the test Python: scripts/setup.sh --test installs it with pip")

    @Test(needsJSONSchema)
    func everyTeamsPayloadIsAValidAdaptiveCard() throws {
        let payloads = try ServiceValidators.messages.flatMap { TeamsPayload.requests(for: $0, options: teams) }
            .map { try JSONSerialization.jsonObject(with: $0.body) }
        #expect(payloads.count == ServiceValidators.messages.count)
        let (status, report) = try ServiceValidators.run("validate_adaptive_card.py", on: payloads)
        #expect(status == 0, "Adaptive Card schema:\n\(report)")
    }

    /// The validator refuses what Teams would: an unknown property, an element newer than the
    /// card's version, a card with nothing in it.
    @Test(needsJSONSchema)
    func theValidatorRefusesCardsTeamsWouldNotShow() throws {
        let good = try #require(try JSONSerialization.jsonObject(with: TeamsPayload.requests(for: Fixtures.alert, options: teams)[0].body)
            as? [String: Any])
        func card(_ change: (inout [String: Any]) -> Void) -> [String: Any] {
            var payload = good
            var attachments = payload["attachments"] as? [[String: Any]] ?? []
            var content = attachments.first?["content"] as? [String: Any] ?? [:]
            change(&content)
            attachments[0]["content"] = content
            payload["attachments"] = attachments
            return payload
        }
        let bad = [
            card { $0["color"] = "red" },
            card { $0["body"] = [["type": "Table", "columns": []]] + ($0["body"] as? [Any] ?? []) },
            card { $0["body"] = [["type": "TextBlock", "text": " ", "wrap": true]] },
            card { $0["body"] = [["type": "TextBlock", "text": "x", "size": "Huge"]] },
        ]
        let (status, report) = try ServiceValidators.run("validate_adaptive_card.py", on: [good] + bad)
        #expect(status == 1)
        let lines = report.split(separator: "\n").map(String.init)
        #expect(!lines.contains { $0.hasPrefix("0:") }, "the real card is valid: \(report)")
        for index in 1...bad.count {
            #expect(lines.contains { $0.hasPrefix("\(index):") }, "card \(index) must be refused: \(report)")
        }
        #expect(report.contains("Table needs Adaptive Cards 1.5"), "\(report)")
        #expect(report.contains("an empty card"), "\(report)")
    }
}
