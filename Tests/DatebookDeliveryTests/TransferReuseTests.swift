import Foundation
import DatebookTestSupport
import Testing

@testable import DatebookDelivery

/// Easy handles and SMTP sessions are reused between transfers: nothing of one transfer may
/// leak into the next, and a queue of waiting requests must not cost another host its turn.
@Suite struct TransferReuseTests {
    @Test func reusedHandleReportsOnlyItsOwnResponseHeaders() throws {
        let sink = try TestServer(script: "http_sink.py")
        defer { sink.stop() }
        let client = HTTPClient(maxHostConnections: 1, maxTotalConnections: 1)
        let results = client.perform([
            HTTPRequest(url: "\(sink.baseURL)/status/429?retry_after=7"),
            HTTPRequest(url: "\(sink.baseURL)/status/200"),
        ])
        let first = try results[0].get()
        let second = try results[1].get()
        #expect(first.status == 429)
        #expect(first.headers.contains { $0.name == "Retry-After" && $0.value == "7" })
        #expect(second.status == 200)
        #expect(!second.headers.contains { $0.name == "Retry-After" })
        #expect(String(decoding: second.body, as: UTF8.self) == "ok")
    }

    @Test func backlogToAHangingHostDoesNotHoldUpAnotherHost() throws {
        let sink = try TestServer(script: "http_sink.py")
        defer { sink.stop() }
        let client = HTTPClient(maxHostConnections: 2, maxTotalConnections: 8)
        var requests = (0..<4).map { _ in HTTPRequest(url: "http://127.0.0.1:\(sink.port)/hang", timeout: 2) }
        requests += (0..<4).map { HTTPRequest(url: "http://localhost:\(sink.port)/status/200?n=\($0)", timeout: 5) }
        let start = Date()
        var finishedAt: [Int: TimeInterval] = [:]
        var order: [Int] = []
        let results = client.perform(requests) { index, _ in
            finishedAt[index] = Date().timeIntervalSince(start)
            order.append(index)
        }
        let firstTimeout = (0..<4).compactMap { finishedAt[$0] }.min() ?? 0
        for index in 4..<8 {
            #expect((try? results[index].get().status) == 200)
            #expect((finishedAt[index] ?? 99) < firstTimeout, "finished before the hanging ones timed out")
        }
        for index in 0..<4 {
            guard case .failure(let error) = results[index] else {
                Issue.record("hang \(index) should time out")
                continue
            }
            #expect(error.kind == .timedOut)
        }
        // Two hang at a time: the second pair starts only when the first times out.
        #expect((finishedAt[3] ?? 0) >= 3.5)
        #expect(order.count == 8 && Set(order) == Set(0..<8))
    }

    @Test func consecutiveEmailsShareOneSMTPSession() throws {
        let sink = try TestServer(script: "smtp_sink.py")
        defer { sink.stop() }
        let client = SMTPClient(configuration: SMTPConfiguration(url: "smtp://127.0.0.1:\(sink.port)", requireTLS: false))
        for _ in 0..<3 { #expect(try client.send(SMTPClientTests.international).get() == 250) }
        let records = try sink.records()
        #expect(records.count == 3)
        #expect(Set(records.compactMap { $0["client_port"] as? Int }).count == 1)
    }

    @Test func refusedEmailDoesNotSpoilTheNextOne() throws {
        let sink = try TestServer(script: "smtp_sink.py")
        defer { sink.stop() }
        let client = SMTPClient(configuration: SMTPConfiguration(url: "smtp://127.0.0.1:\(sink.port)", requireTLS: false))
        #expect(try client.send(SMTPClientTests.international).get() == 250)
        var refused = SMTPClientTests.international
        refused.to = [EmailAddress(address: "reject@example.org")]
        guard case .failure(let error) = client.send(refused) else {
            Issue.record("reject@ must be refused")
            return
        }
        #expect(error.kind == .rejected)
        #expect(try client.send(SMTPClientTests.international).get() == 250)
        #expect(try sink.records().count == 2)
    }
}
