/// How an event's badge reads everywhere (list rows, `show`, the digest, the plain digest):
/// `3 left` for open tasks, `✓` when every task is done, nothing when it has no tasks.
public enum Badge {
    /// Shown for an event whose tasks are all done.
    public static let done = "✓"
    /// After the count of open tasks.
    public static let openSuffix = " left"

    /// `3 left`, `✓`, or empty.
    public static func text(open: Int, complete: Bool) -> String {
        if complete { return done }
        return open > 0 ? String(open) + openSuffix : ""
    }

    /// The badge of `event`.
    public static func text(_ event: Event) -> String { text(open: event.badge, complete: event.isComplete) }
}
