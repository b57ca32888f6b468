import Synchronization

/// One result slot per index, filled from parallel work (`DispatchQueue.concurrentPerform`), each
/// slot by exactly one iteration; read once all are done.
///
/// The slots sit behind a `Mutex`, so the compiler checks the sharing (no unchecked
/// conformance, as the lock-guarded slot classes it replaces needed).
public final class IndexedResults<Value: Sendable>: Sendable {
    private let slots: Mutex<[Value?]>

    public init(count: Int) {
        slots = Mutex(Array(repeating: nil, count: count))
    }

    public func set(_ index: Int, _ value: Value) {
        slots.withLock { $0[index] = value }
    }

    /// Every slot in index order; `missing` stands for a slot no iteration filled.
    public func values(missing: @autoclosure () -> Value) -> [Value] {
        slots.withLock { $0 }.map { $0 ?? missing() }
    }
}
