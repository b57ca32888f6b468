import Synchronization

/// How much of the server each client address holds at once, against `perClientConnectionLimit`.
///
/// A direct peer is counted by its connections (taken when libmicrohttpd reports one open, given
/// back when it closes). A trusted proxy's connections are not counted: behind it every client would
/// share one limit, and one client holding the proxy's connections would starve the others. The
/// client a trusted proxy names (`ForwardedClient`) is counted by its requests in flight instead,
/// the proxy's connections working for it. libmicrohttpd's own `MHD_OPTION_PER_IP_CONNECTION_LIMIT`
/// counts the peer at accept, before any header can name the client, so it is off.
final class ClientCounts: Sendable {
    let limit: Int
    private let held = Mutex<[String: Int]>([:])

    /// `limit` 0: no limit.
    init(limit: Int) {
        self.limit = limit
    }

    /// Counts one more for `client`; false (and nothing counted) when it holds `limit` already.
    func take(_ client: String) -> Bool {
        guard limit > 0 else { return true }
        return held.withLock { held in
            let now = held[client, default: 0]
            guard now < limit else { return false }
            held[client] = now + 1
            return true
        }
    }

    /// Gives back one that `take` counted.
    func give(_ client: String) {
        guard limit > 0 else { return }
        held.withLock { held in
            let left = held[client, default: 1] - 1
            held[client] = left > 0 ? left : nil
        }
    }

    /// What `client` holds now.
    func holding(_ client: String) -> Int {
        held.withLock { $0[client, default: 0] }
    }
}
