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
    static var messages: [OutgoingMessage] {
        var long = Fixtures.alert
        long.title = String(repeating: "<&>", count: 3_000)
        long.text = String(repeating: "line with <&> and *marks*\n", count: 2_000)
        var emptyBody = Fixtures.alert
        emptyBody.text = ""
        emptyBody.event?.location = ""
        return [Fixtures.alert, Fixtures.alertWithLinks, Fixtures.canary, Fixtures.longDigest, long, emptyBody]
            + Fixtures.hostileFields.keys.sorted().compactMap { Fixtures.hostileFields[$0] }
            + ["en_US", "de_DE", "ja_JP"].compactMap { try? AlertLanguageTests.alert($0) }
            // Digests laid out per period (`DigestOutline`), ordinary and hostile.
            + [try? DigestLayoutTests.digest(), try? DigestLayoutTests.digest(extra: [DigestLayoutTests.hostileEvent()]),
               try? DigestLayoutTests.digest(extra: DigestLayoutTests.heavyEvents())].compactMap { $0 }
    }

    @Test(.enabled(if: TestPython.imports(["slack_sdk"]),
                   "slack_sdk is not installed for the test Python: scripts/setup.sh --test installs it with pip"))
    func everySlackPayloadPassesSlackSDKsBlockKitValidation() throws {
        let python = try #require(TestPython.executable)
        let payloads = try Self.messages.flatMap { SlackPayload.requests(for: $0, options: slack) }
            .map { try JSONSerialization.jsonObject(with: $0.body) }
        #expect(payloads.count >= Self.messages.count)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [repositoryRoot.appendingPathComponent("Tests/DatebookRenderTests/Fixtures/validate_slack.py").path]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
        input.fileHandleForWriting.write(try JSONSerialization.data(withJSONObject: payloads))
        try input.fileHandleForWriting.close()
        let report = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "slack_sdk:\n\(report)")
    }
}
