import DatebookCore
import Foundation
import Synchronization

/// Sends prepared steps: HTTP ones together through one `curl_multi`, email, commands and files on
/// a few worker threads, so one slow destination never holds up another.
///
/// Outcomes reach the caller on the calling thread, in groups, as soon as they are known; the
/// connection or worker that produced one starts its next transfer only after the caller's
/// `onOutcomes` returned. A caller that records each group there (the scheduler's ledger) has at
/// most `maxHTTPTransfers + maxWorkers` deliveries accepted but unrecorded at any moment: what a
/// crash can send twice.
public final class Deliverer: Sendable {
    private let http: HTTPClient
    /// SMTP sessions kept between email steps (and `deliver` calls) to the same server.
    private let smtp = SMTPConnections()
    /// Email, command and file steps running at once.
    public let maxWorkers: Int

    public init(http: HTTPClient = HTTPClient(), maxWorkers: Int = 4) {
        self.http = http
        self.maxWorkers = max(1, maxWorkers)
    }

    /// HTTP transfers running at once (the client's total connection cap).
    public var maxHTTPTransfers: Int { http.maxTransfers }

    /// The most deliveries in flight at once: the bound on what one crash can send twice.
    public var maxInFlight: Int {
        let (sum, overflow) = maxHTTPTransfers.addingReportingOverflow(maxWorkers)
        return overflow ? .max : sum
    }

    /// `onOutcome` for each step, in the groups `deliver(_:onOutcomes:)` reports.
    public func deliver(_ steps: [DeliveryStep], onOutcome: (Int, DeliveryOutcome) -> Void) {
        deliver(steps) { group in
            for (index, outcome) in group { onOutcome(index, outcome) }
        }
    }

    /// Sends every step; `onOutcomes` runs on the calling thread with the outcomes that arrived
    /// together, and no further transfer starts on the connection or worker of any of them until it
    /// returns. Each step ends with one outcome; a step accepted in part (a split message's parts,
    /// some of an email's recipients) reports `.progressed` before it, so the part is recorded
    /// before the next one goes.
    public func deliver(_ steps: [DeliveryStep], onOutcomes: ([(index: Int, outcome: DeliveryOutcome)]) -> Void) {
        deliver(steps, starting: { Set($0) }, onOutcomes: onOutcomes)
    }

    /// `deliver(_:onOutcomes:)`, asking first: `starting` runs on the calling thread with the steps
    /// about to start their first transfer and returns those that may; a refused step is never
    /// sent and gets no outcome (the scheduler re-checks its claims there, so a process held up
    /// past its lease sends nothing another process has taken over). It is called before every
    /// group of transfers that start, with no steps before later parts, and after every
    /// `onOutcomes` before this waits for anything (the network, a worker), with no steps when
    /// none starts then: so a caller may keep the outcomes `onOutcomes` gave it and write them
    /// there, with its check, in one go, and what it keeps never waits for a transfer.
    ///
    /// HTTP runs on the calling thread, so recording its outcomes costs no thread switch (with one
    /// per group, 10,000 alerts took about a quarter longer on the loaded test machine); the
    /// workers' outcomes join the next group, the HTTP loop woken for them.
    public func deliver(_ steps: [DeliveryStep], starting: ([Int]) -> Set<Int>,
                        onOutcomes: ([(index: Int, outcome: DeliveryOutcome)]) -> Void) {
        // Outcomes reported since the last `starting`: one follows before anything is waited for.
        var owed = false
        func report(_ group: [(index: Int, outcome: DeliveryOutcome)]) {
            onOutcomes(group)
            owed = true
        }
        func start(_ indices: [Int]) -> Set<Int> {
            owed = false
            return starting(indices)
        }
        func settleOwed() {
            if owed { _ = start([]) }
        }
        let http = http
        let mailbox = OutcomeMailbox(wake: { http.wakeUp() })
        let others = WorkList(steps.indices.filter { !steps[$0].isHTTP })
        let workers = min(others.count, maxWorkers)
        mailbox.expectProducers(workers)
        let smtp = smtp
        for _ in 0..<workers {
            DispatchQueue.global().async {
                while let index = others.next() {
                    guard mailbox.mayStart(index) else { continue }
                    mailbox.post(Self.run(steps[index], smtp: smtp).map { (index, $0) })
                }
                mailbox.producerFinished()
            }
        }
        if steps.contains(where: \.isHTTP) {
            // The HTTP client asks `start` on every turn after this, before it waits.
            deliverHTTP(steps, starting: start) { finished in
                mailbox.answerWaiting(start)
                let posted = mailbox.takeWaiting()
                guard !finished.isEmpty || !posted.isEmpty else { return }
                report(finished + posted)
                guard !posted.isEmpty else { return }
                settleOwed()  // before the workers go on
                mailbox.acknowledge()
            }
            settleOwed()
        }
        while let group = mailbox.take(answering: start) {
            report(group)
            settleOwed()
            mailbox.acknowledge()
        }
    }

    /// Rounds: the k-th request of every HTTP step goes out together; a step stops at its first failure.
    /// `record` gets each group of outcomes (perhaps none) before freed connections take new transfers.
    private func deliverHTTP(_ steps: [DeliveryStep], starting: ([Int]) -> Set<Int>,
                             record: ([(index: Int, outcome: DeliveryOutcome)]) -> Void) {
        var pending: [(index: Int, requests: [HTTPRequest])] = steps.enumerated().compactMap { index, step in
            if case .http(let requests) = step { return (index, requests) }
            return nil
        }
        var finished: [(index: Int, outcome: DeliveryOutcome)] = []
        func flush() {
            record(finished)
            finished.removeAll()
        }
        var round = 0
        while !pending.isEmpty {
            let batch = pending.filter { round < $0.requests.count }
            var next: [(index: Int, requests: [HTTPRequest])] = []
            // A step is asked about before its first request only: one that started goes on.
            _ = http.perform(batch.map { $0.requests[round] }, onCompletion: { position, result in
                let item = batch[position]
                switch result {
                case .success(let response) where (200..<300).contains(response.status):
                    guard round + 1 < item.requests.count else { return finished.append((item.index, .http(response))) }
                    // Each part of a split message is recorded before the next one goes.
                    next.append(item)
                    finished.append((item.index, .progressed(DeliveryProgress(parts: round + 1))))
                case .success(let response): finished.append((item.index, .http(response)))
                case .failure(let error): finished.append((item.index, .transport(error)))
                }
            }, beforeNextTransfers: flush, mayStart: { positions in
                // A later part is not asked about, but `starting` is still called (with no steps)
                // before it goes: the caller may write the outcomes it holds there.
                guard round == 0 else {
                    _ = starting([])
                    return Set(positions)
                }
                let allowed = starting(positions.map { batch[$0].index })
                return Set(positions.filter { allowed.contains(batch[$0].index) })
            })
            for item in pending where round >= item.requests.count { finished.append((item.index, .accepted)) }
            flush()
            pending = next
            round += 1
        }
    }

    /// A non-HTTP step's outcome: one, or for an email some recipients refused, the progress (the
    /// others took it) and then the refusal.
    static func run(_ step: DeliveryStep, smtp: SMTPConnections = SMTPConnections()) -> [DeliveryOutcome] {
        guard case .email(let configuration, let message) = step else { return [runOther(step)] }
        let sent = SMTPClient(configuration: configuration, connections: smtp).submit(message)
        switch sent.result {
        case .success: return [.accepted]
        case .failure(let error) where !sent.accepted.isEmpty:
            return [.progressed(DeliveryProgress(recipients: sent.accepted)), .transport(error)]
        case .failure(let error): return [.transport(error)]
        }
    }

    private static func runOther(_ step: DeliveryStep) -> DeliveryOutcome {
        switch step {
        case .http, .email:  // sent by `deliverHTTP` and `run`
            return .accepted
        case .command(let argv, let environment, let timeout):
            do {
                return .command(try CommandRunner(timeout: timeout).run(argv, environment: environment))
            } catch {
                return .transport(TransportError(kind: .setupFailed, destination: argv.first ?? "", detail: "\(error)"))
            }
        case .notification(let argv, let environment, let timeout):
            return DesktopOutcome.of(argv, environment: environment, timeout: timeout)
        case .file(let path, let contents):
            do {
                try AtomicFile.write(contents, to: path)
                return .accepted
            } catch {
                return .transport(TransportError(kind: .setupFailed, destination: path, detail: "\(error)"))
            }
        }
    }
}

/// Outcomes handed from the worker threads to the calling thread: a worker waits in `post` until
/// the caller has taken its outcome and acknowledged it.
private final class OutcomeMailbox: Sendable {
    typealias Group = [(index: Int, outcome: DeliveryOutcome)]

    private struct State: Sendable {
        var waiting: Group = []
        var producers = 0
        var posted = 0
        var acknowledged = 0
        var taken = 0
        /// Steps whose workers wait to hear whether they may start, and the answers.
        var asking: [Int] = []
        var answers: [Int: Bool] = [:]

        mutating func takeAll() -> Group {
            let group = waiting
            waiting.removeAll()
            taken = posted
            return group
        }
    }

    private let state = Monitor(State())
    private let wake: @Sendable () -> Void

    /// - Parameter wake: called after each post, to rouse a caller busy elsewhere (the HTTP loop).
    init(wake: @escaping @Sendable () -> Void) { self.wake = wake }

    func expectProducers(_ count: Int) {
        state.update { $0.producers = count }
    }

    /// Hands `group` over and returns once the caller has acknowledged it.
    func post(_ group: Group) {
        let ticket = state.update { state in
            state.waiting += group
            state.posted += 1
            return state.posted
        }
        wake()
        state.wait { $0.acknowledged >= ticket }
    }

    /// Asks the calling thread whether step `index` may start, and waits for the answer.
    func mayStart(_ index: Int) -> Bool {
        state.update { $0.asking.append(index) }
        wake()
        return state.wait(for: { $0.answers[index] != nil }) { $0.answers.removeValue(forKey: index) ?? false } ?? false
    }

    /// Answers the workers waiting to start, through `decide` (on the calling thread), without waiting.
    func answerWaiting(_ decide: ([Int]) -> Set<Int>) {
        let asked = state.withLock { state in
            defer { state.asking = [] }
            return state.asking
        }
        answer(asked, decide)
    }

    private func answer(_ asked: [Int], _ decide: ([Int]) -> Set<Int>) {
        guard !asked.isEmpty else { return }
        let allowed = decide(asked)
        state.update { state in
            for index in asked { state.answers[index] = allowed.contains(index) }
        }
    }

    func producerFinished() {
        state.update { $0.producers -= 1 }
    }

    /// Everything posted so far, waiting for it when there is none (answering the workers that ask
    /// to start meanwhile, through `decide`, and calling `decide([])` every 200 ms of waiting, so a
    /// caller holding outcomes writes them); nil once every producer finished.
    func take(answering decide: ([Int]) -> Set<Int>) -> Group? {
        while true {
            let ready: (State) -> Bool = { !$0.waiting.isEmpty || !$0.asking.isEmpty || $0.producers <= 0 }
            let taken: (Group, [Int], Bool)? = state.wait(until: .now() + .milliseconds(200), for: ready) { state in
                let asked = state.asking
                state.asking = []
                let group: Group = state.waiting.isEmpty ? [] : state.takeAll()
                return (group, asked, group.isEmpty && asked.isEmpty && state.producers <= 0)
            }
            guard let taken else {
                _ = decide([])
                continue
            }
            let (group, asked, done) = taken
            answer(asked, decide)
            if !group.isEmpty { return group }
            if done { return nil }
        }
    }

    /// Everything posted so far, without waiting (perhaps nothing).
    func takeWaiting() -> Group {
        state.withLock { $0.waiting.isEmpty ? [] : $0.takeAll() }
    }

    /// The groups returned by the last `take` are recorded: their producers may go on.
    func acknowledge() {
        state.update { $0.acknowledged = $0.taken }
    }
}

/// Indices of the steps the workers share, each handed out once.
private final class WorkList: Sendable {
    private let indices: [Int]
    private let position = Mutex(0)

    init(_ indices: [Int]) { self.indices = indices }

    var count: Int { indices.count }

    func next() -> Int? {
        position.withLock { position in
            guard position < indices.count else { return nil }
            position += 1
            return indices[position - 1]
        }
    }
}
