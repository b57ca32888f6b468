import Synchronization

/// The feeds and CalDAV accounts, refreshed by one of the daemon's passes at a time, so no source
/// is fetched twice at once nor a failing account tried twice in one wait. A pass that finds
/// another refreshing does not wait for it (its deliveries would wait on a slow server): it asks
/// for another round and goes on, and the pass refreshing goes round again when its round ends,
/// so a source that fell due meanwhile, or a change made here, is not left for the next wake-up.
public final class SourceRefresh: Sendable {
    private struct State {
        var running = false
        /// A pass asked for another round while one ran; `localChanges` if one of them was started
        /// for a change made here (its accounts are synced whatever their `every`).
        var again = false
        var localChanges = false
    }

    private let state = Mutex(State())

    public init() {}

    /// Runs `refresh` (given whether to sync the accounts changed here) unless another pass is
    /// running it, then once more for each time another pass asked meanwhile (asks while a round
    /// runs are one round). Returns at once when another pass was running it.
    public func run(localChanges: Bool, _ refresh: (_ localChanges: Bool) -> Void) {
        let mine = state.withLock { state in
            guard !state.running else {
                state.again = true
                state.localChanges = state.localChanges || localChanges
                return false
            }
            state.running = true
            return true
        }
        guard mine else { return }
        var local = localChanges
        while true {
            refresh(local)
            // The look for another round and the end of this one are one step: an ask cannot fall between.
            let next: Bool? = state.withLock { state in
                guard state.again else {
                    state.running = false
                    return nil
                }
                defer { (state.again, state.localChanges) = (false, false) }
                return state.localChanges
            }
            guard let next else { return }
            local = next
        }
    }
}
