import DatebookCore
import DatebookStore
import Foundation

/// A one-line progress bar on stderr (`importing [#####     ] 41000/100000`), only when stderr
/// is a terminal and the work is large.
struct ProgressBar {
    let total: Int
    let verb: String
    let enabled: Bool
    let err: OutputSink

    init(total: Int, verb: String = "importing", context: Context) {
        self.total = total
        self.verb = verb
        err = context.err
        enabled = total >= 10_000 && context.err.isTerminal
    }

    func show(_ done: Int) {
        guard enabled, total > 0 else { return }
        let width = 30
        let filled = min(width, done * width / total)
        err.write("\r" + verb + " [" + String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
                  + "] \(done)/\(total)")
        err.flush()
    }

    /// Files at least this large get a line while they are read (a 100k-event calendar is 80 MB).
    static let largeFile = 4_000_000

    /// `importing: reading NAME (82 MB)` while a large file is parsed and nothing can be counted
    /// yet; its `finish()` clears the line.
    static func reading(_ name: String, bytes: Int, context: Context) -> ProgressBar {
        let bar = ProgressBar(total: bytes >= largeFile ? 10_000 : 0, context: context)
        if bar.enabled {
            bar.err.write("\rimporting: reading \(name) (\(bytes / 1_000_000) MB)")
            bar.err.flush()
        }
        return bar
    }

    func finish() {
        guard enabled else { return }
        err.write("\r\u{1B}[K")
        err.flush()
    }
}
