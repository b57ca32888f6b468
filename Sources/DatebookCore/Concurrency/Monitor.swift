import Dispatch
import Synchronization

/// State shared between threads behind a `Mutex`, with waiting until it is in a wanted condition:
/// what an `NSCondition` and fields guarded by hand did, with the sharing checked by the compiler.
///
/// A waiter registers a semaphore under the lock before it sleeps, and every `update` signals all
/// registered ones after its change, so no wake-up is lost between a waiter's check and its sleep.
public final class Monitor<State: Sendable>: Sendable {
    private struct Guarded: Sendable {
        var state: State
        var sleepers: [DispatchSemaphore] = []

        mutating func takeSleepers() -> [DispatchSemaphore] {
            defer { sleepers.removeAll() }
            return sleepers
        }
    }

    private let guarded: Mutex<Guarded>

    public init(_ state: State) {
        guarded = Mutex(Guarded(state: state))
    }

    /// Reads or changes the state without waking anyone (for changes no waiter waits for).
    public func withLock<Result: Sendable>(_ body: (inout State) -> Result) -> Result {
        guarded.withLock { body(&$0.state) }
    }

    /// Changes the state and wakes every waiter to look at it again.
    @discardableResult
    public func update<Result: Sendable>(_ body: (inout State) -> Result) -> Result {
        let (result, sleepers) = guarded.withLock { guarded in
            (body(&guarded.state), guarded.takeSleepers())
        }
        for sleeper in sleepers { sleeper.signal() }
        return result
    }

    /// Waits until `ready` holds, then runs `body` under the same lock and wakes every other
    /// waiter to look again (`body` may change the state); nil when `deadline` passed first.
    @discardableResult
    public func wait<Result: Sendable>(until deadline: DispatchTime = .distantFuture, for ready: (State) -> Bool,
                                       then body: (inout State) -> Result) -> Result? {
        while true {
            // A semaphore only for a wait that sleeps: most find the state ready.
            let (done, sleeper, woken): (Result?, DispatchSemaphore?, [DispatchSemaphore]) = guarded.withLock { guarded in
                guard ready(guarded.state) else {
                    let sleeper = DispatchSemaphore(value: 0)
                    guarded.sleepers.append(sleeper)
                    return (nil, sleeper, [])
                }
                return (body(&guarded.state), nil, guarded.takeSleepers())
            }
            for other in woken { other.signal() }
            guard let sleeper else { return done }
            if sleeper.wait(timeout: deadline) == .timedOut {
                let (late, woken): (Result?, [DispatchSemaphore]) = guarded.withLock { guarded in
                    guarded.sleepers.removeAll { $0 === sleeper }
                    return ready(guarded.state) ? (body(&guarded.state), guarded.takeSleepers()) : (nil, [])
                }
                for other in woken { other.signal() }
                return late
            }
        }
    }

    /// Waits until `ready` holds (at most until `deadline`); true when it does.
    @discardableResult
    public func wait(until deadline: DispatchTime = .distantFuture, for ready: (State) -> Bool) -> Bool {
        while true {
            let sleeper: DispatchSemaphore? = guarded.withLock { guarded in
                guard !ready(guarded.state) else { return nil }
                let sleeper = DispatchSemaphore(value: 0)
                guarded.sleepers.append(sleeper)
                return sleeper
            }
            guard let sleeper else { return true }
            if sleeper.wait(timeout: deadline) == .timedOut {
                return guarded.withLock { guarded in
                    guarded.sleepers.removeAll { $0 === sleeper }
                    return ready(guarded.state)
                }
            }
        }
    }
}
