import DatebookCore
import DatebookDelivery
import DatebookTestSupport
import Foundation
import Testing

@testable import DatebookRender

/// Slack's own rules, as slack_sdk's Block Kit models check them (`Fixtures/validate_slack.py`):
/// every Slack payload datebook builds, from ordinary, hostile, localized, oversized and split
/// messages, parses and validates, with no key slack_sdk does not know.
@Suite struct SlackValidationTests {
    @Test(.enabled(if: TestPython.imports(["slack_sdk"]),
                   "slack_sdk is not installed for the test Python: scripts/setup.sh --test installs it with pip"))
    func everySlackPayloadPassesSlackSDKsBlockKitValidation() throws {
        let payloads = try ServiceValidators.messages.flatMap { SlackPayload.requests(for: $0, options: slack) }
            .map { try JSONSerialization.jsonObject(with: $0.body) }
        #expect(payloads.count >= ServiceValidators.messages.count)
        let (status, report) = try ServiceValidators.run("validate_slack.py", on: payloads)
        #expect(status == 0, "slack_sdk:\n\(report)")
    }
}
