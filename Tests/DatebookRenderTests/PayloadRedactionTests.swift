import DatebookDelivery
import DatebookTestSupport
import Foundation
import Testing

@testable import DatebookRender

/// Dry runs of every service's requests print no secret.
@Suite struct PayloadRedactionTests {
    @Test func payloadOptionsNeverPrintTheirSecret() {
        let options = SlackPayload.Options(url: Secret("CANARY-SECRET-42"))
        #expect(!"\(options)".contains("CANARY"))
    }

    @Test(arguments: allBuilders.map(\.name))
    func dryRunHidesEverySecret(service: String) throws {
        let builder = try #require(allBuilders.first { $0.name == service })
        for request in builder.build(Fixtures.alert) {
            let text = DryRun.render(request)
            for canary in ["SLACKSECRET", "DISCORDSECRET", "TEAMSSECRET", "MMSECRET", "NTFYSECRETTOPIC", "tk_NTFYTOKEN", "HOOKPATH", "HOOKSECRET"] {
                #expect(!text.contains(canary), "\(service) dry run leaks \(canary)")
            }
            #expect(text.hasPrefix("POST https://"))
            #expect(text.contains("Mia"))
        }
    }

    @Test func dryRunGolden() throws {
        let request = try #require(NtfyPayload.requests(for: Fixtures.alert, options: ntfy).first)
        expectSnapshot(Data(DryRun.render(request).utf8), named: "ntfy-alert.dryrun.txt")
    }
}
