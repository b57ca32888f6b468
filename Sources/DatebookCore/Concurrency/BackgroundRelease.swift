import Dispatch
import Synchronization

/// Lets a large value die on another thread.
///
/// Freeing 100k parsed components or converted events is millions of small deallocations, about a
/// tenth of a second that the importing thread, which goes on to write, need not wait for. The
/// caller hands over its last reference (`consume`); the box is then the only owner, so the value
/// is freed where the box is emptied.
public enum BackgroundRelease {
    private final class Box<T>: Sendable {
        let value: Mutex<T?>
        init(_ value: consuming sending T) { self.value = Mutex(Optional(value)) }
    }

    public static func release<T>(_ value: consuming sending T) {
        let box = Box(value)
        DispatchQueue.global(qos: .utility).async { box.value.withLock { $0 = nil } }
    }
}
