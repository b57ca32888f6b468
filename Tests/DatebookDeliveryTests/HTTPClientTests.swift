import Foundation
import DatebookTestSupport
import Testing

@testable import DatebookDelivery

@Suite struct HTTPClientTests {
    @Test func twoHundredConcurrentPostsAllArriveWithTheirBodies() throws {
        let sink = try TestServer(script: "http_sink.py")
        defer { sink.stop() }
        let client = HTTPClient(maxHostConnections: 8)
        let requests = (0..<200).map {
            HTTPRequest(url: "\(sink.baseURL)/hook/\($0)", headers: [.init("Content-Type", "application/json")],
                        body: Data("{\"n\":\($0)}".utf8))
        }
        let results = client.perform(requests)
        #expect(results.count == 200)
        for result in results { #expect((try? result.get().status) == 204) }
        let records = try sink.records()
        #expect(records.count == 200)
        let paths = Set(records.compactMap { $0["path"] as? String })
        #expect(paths == Set((0..<200).map { "/hook/\($0)" }))
        let bodies = Set(records.compactMap { ($0["body"] as? String).flatMap { Data(base64Encoded: $0) } })
        #expect(bodies.contains(Data("{\"n\":199}".utf8)))
    }

    @Test func hangingDestinationDoesNotDelayOthers() throws {
        let sink = try TestServer(script: "http_sink.py")
        defer { sink.stop() }
        let client = HTTPClient()
        var requests = [HTTPRequest(url: "\(sink.baseURL)/hang", timeout: 3)]
        requests += (0..<5).map { HTTPRequest(url: "\(sink.baseURL)/status/200?n=\($0)", timeout: 3) }
        let start = Date()
        var finishedAt: [Int: TimeInterval] = [:]
        let results = client.perform(requests) { index, _ in finishedAt[index] = Date().timeIntervalSince(start) }
        for index in 1...5 {
            #expect((try? results[index].get().status) == 200)
            #expect((finishedAt[index] ?? 99) < (finishedAt[0] ?? 0), "finished before the hanging one timed out")
        }
        guard case .failure(let error) = results[0] else {
            Issue.record("hang should time out")
            return
        }
        #expect(error.kind == .timedOut)
        #expect((finishedAt[0] ?? 0) >= 2.5)
    }

    @Test func redirectToFileURLIsRefused() throws {
        let sink = try TestServer(script: "http_sink.py")
        defer { sink.stop() }
        let result = HTTPClient().perform(
            HTTPRequest(method: "GET", url: "\(sink.baseURL)/redirect-file", followRedirects: true))
        guard case .failure(let error) = result else {
            Issue.record("file:// redirect must fail, got \(result)")
            return
        }
        #expect(error.kind == .protocolRefused)
    }

    @Test func fileAndGopherURLsAreRefusedOutright() {
        let results = HTTPClient().perform([
            HTTPRequest(method: "GET", url: "file:///etc/passwd"),
            HTTPRequest(method: "GET", url: "gopher://127.0.0.1:1/"),
        ])
        for result in results {
            guard case .failure(let error) = result else {
                Issue.record("must refuse non-http scheme")
                continue
            }
            #expect(error.kind == .protocolRefused)
        }
    }

    @Test func retryAfterSurfacesInResponseHeaders() throws {
        let sink = try TestServer(script: "http_sink.py")
        defer { sink.stop() }
        let response = try HTTPClient().perform(HTTPRequest(url: "\(sink.baseURL)/status/429?retry_after=2")).get()
        #expect(response.status == 429)
        #expect(response.header("retry-after") == "2")
    }

    @Test func connectionResetIsAConnectionFailure() throws {
        let sink = try TestServer(script: "http_sink.py")
        defer { sink.stop() }
        let result = HTTPClient().perform(HTTPRequest(url: "\(sink.baseURL)/reset"))
        guard case .failure(let error) = result else {
            Issue.record("reset must fail")
            return
        }
        #expect(error.kind == .connectionFailed)
    }

    @Test func oversizedResponseIsCut() throws {
        let sink = try TestServer(script: "http_sink.py")
        defer { sink.stop() }
        let result = HTTPClient().perform(
            HTTPRequest(method: "GET", url: "\(sink.baseURL)/big?bytes=5000", maxResponseBytes: 1000))
        guard case .failure(let error) = result else {
            Issue.record("5000 bytes must exceed a 1000-byte cap")
            return
        }
        #expect(error.kind == .responseTooLarge)
    }

    @Test func slowDripIsAbortedByLowSpeedLimit() throws {
        let sink = try TestServer(script: "http_sink.py")
        defer { sink.stop() }
        let result = HTTPClient().perform(
            HTTPRequest(method: "GET", url: "\(sink.baseURL)/slow?seconds=10", timeout: 20, lowSpeedLimit: 10, lowSpeedTime: 2))
        guard case .failure(let error) = result else {
            Issue.record("1 byte/s must trip a 10 byte/s limit")
            return
        }
        #expect(error.kind == .timedOut)
    }

    @Test func errorsNeverContainTheSecretURLPath() {
        let secretURL = "http://127.0.0.1:1/services/T000/B000/CANARYSECRET"
        let result = HTTPClient().perform(HTTPRequest(url: secretURL, connectTimeout: 2))
        guard case .failure(let error) = result else {
            Issue.record("port 1 must refuse")
            return
        }
        #expect(!error.description.contains("CANARYSECRET"))
        #expect(error.description.contains("127.0.0.1"))
    }

    @Test func keepAliveConnectionsAreReusedAcrossCalls() throws {
        let sink = try TestServer(script: "http_sink.py")
        defer { sink.stop() }
        let client = HTTPClient(maxHostConnections: 2)
        for _ in 0..<20 { _ = client.perform(HTTPRequest(url: "\(sink.baseURL)/x")) }
        let records = try sink.records()
        #expect(records.count == 20)
        // Each TCP connection has its own client port; reuse means far fewer ports than requests.
        let ports = Set(records.compactMap { $0["client_port"] as? Int })
        #expect(ports.count <= 2)
    }
}
