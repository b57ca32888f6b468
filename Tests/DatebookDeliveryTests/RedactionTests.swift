import Foundation
import Testing

@testable import DatebookDelivery

@Suite struct RedactionTests {
    @Test(arguments: [
        ("https://hooks.slack.com/services/T0/B0/XYZ", "https://hooks.slack.com/****"),
        ("https://discord.com/api/webhooks/1/abc?wait=true", "https://discord.com/****"),
        ("http://user:pw@127.0.0.1:8080/x", "http://127.0.0.1:8080/****"),
        ("https://ntfy.example.org", "https://ntfy.example.org/"),
        ("smtps://smtp.example.org:465", "smtps://smtp.example.org:465/"),
        ("not a url", "****"),
    ])
    func redactURLKeepsOnlySchemeHostPort(input: String, expected: String) {
        #expect(redactURL(input) == expected)
    }

    @Test func secretNeverPrints() {
        let secret = Secret("CANARY-SECRET-42")
        #expect("\(secret)" == "****")
        #expect(String(reflecting: secret) == "Secret(****)")
        var dumped = ""
        dump(secret, to: &dumped)
        #expect(!dumped.contains("CANARY"))
        let options = SlackPayload.Options(url: secret)
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
