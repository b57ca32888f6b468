import Foundation
import DatebookTestSupport
import Testing

@testable import DatebookDelivery

@Suite struct HTTPSTests {
    @Test func tlsIsVerifiedAndCaInfoTrustsSelfSignedCert() throws {
        let directory = URL(fileURLWithPath: makeScratchFolder("https"))
        defer { removeScratchFolder(directory.path) }
        defer { try? FileManager.default.removeItem(at: directory) }
        let pem = try makeCertificate(in: directory)
        let sink = try TestServer(script: "http_sink.py", arguments: [pem.cert, pem.key])
        defer { sink.stop() }
        let url = "https://127.0.0.1:\(sink.port)/hook"
        let client = HTTPClient()
        let results = client.perform([
            HTTPRequest(url: url, body: Data("{}".utf8), caInfo: pem.cert),
            HTTPRequest(url: url, body: Data("{}".utf8)),
            HTTPRequest(url: url, body: Data("{}".utf8), insecure: true),
        ])
        #expect((try? results[0].get().status) == 204)
        guard case .failure(let error) = results[1] else {
            Issue.record("self-signed certificate must be refused by default")
            return
        }
        #expect(error.kind == .tlsFailed)
        #expect((try? results[2].get().status) == 204)
    }
}

@Suite struct ThroughputTests {
    /// Sanity number for the report: `DATEBOOK_BENCH=1 swift test -c release -Xswiftc -enable-testing --filter Throughput`.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["DATEBOOK_BENCH"] == "1"))
    func postsPerSecondToLocalSink() throws {
        let sink = try TestServer(script: "http_sink.py")
        defer { sink.stop() }
        let client = HTTPClient(maxHostConnections: 8)
        let count = 2000
        let requests = (0..<count).map { HTTPRequest(url: "\(sink.baseURL)/bench/\($0)", body: Data("{\"n\":\($0)}".utf8)) }
        _ = client.perform(Array(requests.prefix(50)))
        let start = Date()
        let results = client.perform(requests)
        let seconds = Date().timeIntervalSince(start)
        let ok = results.filter { (try? $0.get().status) == 204 }.count
        print("BENCH: \(ok)/\(count) POSTs with 204 in \(String(format: "%.2f", seconds)) s = \(Int(Double(ok) / seconds))/s")
        #expect(ok == count)
    }
}
