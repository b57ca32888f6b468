import Testing

@testable import DatebookDelivery

/// Admission order for `HTTPClient`: earliest request first, skipping hosts that are at their cap.
@Suite struct HostQueuesTests {
    @Test(arguments: [
        ("https://Hooks.Example.com/a/b?c", "https://hooks.example.com"),
        ("http://127.0.0.1:8080/x", "http://127.0.0.1:8080"),
        ("http://user:pw@host", "http://user:pw@host"),
        ("not a url", "not a url"),
    ])
    func hostKeyIsSchemeAndAuthority(url: String, key: String) {
        #expect(HTTPClient.hostKey(url) == key)
    }

    @Test func earliestRequestOfAnOpenHostGoesFirst() {
        var queues = HostQueues(["a", "a", "b", "a", "c"])
        #expect(queues.next(where: { _ in true }) == 0)
        let hostA = queues.host(of: 0)
        // Host a is full: b's and c's requests may pass a's backlog.
        #expect(queues.next(where: { $0 != hostA }) == 2)
        #expect(queues.next(where: { $0 != hostA }) == 4)
        #expect(queues.next(where: { $0 != hostA }) == nil)
        #expect(queues.remaining() == [1, 3])
        #expect(queues.next(where: { _ in true }) == 1)
        #expect(queues.next(where: { _ in true }) == 3)
        #expect(queues.next(where: { _ in true }) == nil)
        #expect(queues.remaining().isEmpty)
    }
}
