/// How an event's badge reads everywhere (list rows, `show`, the digest, the plain digest):
/// `3 left` for open tasks, `✓` when every task is done, nothing when it has no tasks.
public enum Badge {
    /// Shown for an event whose tasks are all done.
    public static let done = "✓"
    /// After the count of open tasks.
    public static let openSuffix = " left"

    /// `3 left`, `✓`, or empty; `left` words the count (a reader's language: `2 offen`).
    public static func text(open: Int, complete: Bool, left: (Int) -> String = { String($0) + openSuffix }) -> String {
        if complete { return done }
        return open > 0 ? left(open) : ""
    }

    /// The badge of `event` (a whole event or a listing's summary).
    public static func text(_ event: some EventListing, left: (Int) -> String = { String($0) + openSuffix }) -> String {
        text(open: event.badge, complete: event.isComplete, left: left)
    }
}
