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
    }
}
