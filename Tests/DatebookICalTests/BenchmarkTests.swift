import DatebookICal
import Foundation
import Testing

/// Parse-speed check for big feeds. Runs only when DATEBOOK_ICAL_BENCH_FILE names a file, e.g.
/// `python3 Tests/DatebookICalTests/Support/generate.py /tmp/100k.ics && DATEBOOK_ICAL_BENCH_FILE=/tmp/100k.ics
/// /usr/bin/time -v swift test -c release --filter parsesBenchmarkFile`.
@Suite struct BenchmarkTests {
    static let file = ProcessInfo.processInfo.environment["DATEBOOK_ICAL_BENCH_FILE"]

    @Test(.enabled(if: file != nil, "set DATEBOOK_ICAL_BENCH_FILE to a generated .ics to run the benchmark"))
    func parsesBenchmarkFile() throws {
        let path = try #require(Self.file)
        let timer = ContinuousClock()
        var document = ICalDocument()
        let cpuBefore = clock_t(clock())
        let elapsed = try timer.measure {
            let data = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)
            document = try ICalParser.parse(data: data, fileName: "bench.ics", defaultTimeZone: TestSupport.zone("UTC"))
        }
        let cpu = Double(clock() - cpuBefore) / Double(CLOCKS_PER_SEC)
        print("BENCH parsed \(document.events.count) events, \(document.warnings.count) warnings in \(elapsed) (CPU \(cpu) s)")
        #expect(document.warnings.isEmpty)
        #expect(elapsed < .seconds(3))
    }

    @Test func scanningIsLinearNotQuadratic() throws {
        func body(_ n: Int) -> String {
            (0..<n).map { "BEGIN:VEVENT\r\nUID:e\($0)\r\nDTSTART:20260101T100000Z\r\nEND:VEVENT\r\n" }.joined()
        }
        let small = TestSupport.calendar(body(2_000))
        let large = TestSupport.calendar(body(8_000))
        var count = 0
        // This thread's CPU time, not the wall clock: time spent descheduled on a busy machine
        // (other builds, CI's busy loops) must not look like quadratic growth. Best of three each.
        func cpuSeconds(_ work: () throws -> Void) rethrows -> Double {
            var start = timespec(), end = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start)
            try work()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &end)
            return Double(end.tv_sec - start.tv_sec) + Double(end.tv_nsec - start.tv_nsec) / 1e9
        }
        let t1 = try (0..<3).map { _ in try cpuSeconds { count = try TestSupport.parse(text: small).events.count } }.min()!
        #expect(count == 2_000)
        let t2 = try (0..<3).map { _ in try cpuSeconds { count = try TestSupport.parse(text: large).events.count } }.min()!
        #expect(count == 8_000)
        // 4× the events should take about 4× the time; quadratic would be 16×.
        #expect(t2 < t1 * 10, "2k events: \(t1) s, 8k events: \(t2) s of CPU")
    }
}
