import DatebookDelivery
import DatebookTestSupport
import Foundation
import Testing

@testable import DatebookRender

/// The services' own validators, run by the test Python on the payloads datebook builds.
enum ServiceValidators {
    /// Every kind of message the validators see: ordinary, hostile, localized, oversized and split
    /// alerts, and digests laid out per period (`DigestOutline`), ordinary, hostile and heavy.
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
            + [try? DigestLayoutTests.digest(), try? DigestLayoutTests.digest(extra: [DigestLayoutTests.hostileEvent()]),
               try? DigestLayoutTests.digest(extra: DigestLayoutTests.heavyEvents())].compactMap { $0 }
    }

    /// Runs `Fixtures/SCRIPT` with the JSON array of `payloads` on stdin: its exit status and what it printed.
    static func run(_ script: String, on payloads: [Any]) throws -> (status: Int32, report: String) {
        let python = try #require(TestPython.executable)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [repositoryRoot.appendingPathComponent("Tests/DatebookRenderTests/Fixtures/" + script).path]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
        input.fileHandleForWriting.write(try JSONSerialization.data(withJSONObject: payloads))
        try input.fileHandleForWriting.close()
        let report = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, report)
    }
}
