import Foundation

/// The `Host` names the server answers to: the loopback names (`localhost`, `127.x.x.x`, `::1`), the
/// listen address and the configured names (`serve.baseURL`'s host). A web page the user visits can
/// rebind its own name to 127.0.0.1 and then read the server as its own origin; its requests still
/// carry its own name in `Host`, and get 421. The port is not compared (a proxy may change it).
///
/// Listening on a wildcard (`0.0.0.0`, `::`), any numeric address is answered too: people reach the
/// server at whichever address the machine has, and a rebinding page cannot have a numeric name.
/// A request without `Host` (HTTP/1.0; libmicrohttpd refuses HTTP/1.1 without one) is answered:
/// browsers always send it.
struct HostNames: Sendable, Equatable {
    let listen: ListenAddress
    let names: Set<String>
    /// The listen address's host as a request's is compared (normalised once, not per request).
    private let listenHost: String

    init(listen: ListenAddress, names: [String]) {
        self.listen = listen
        self.names = Set(names.map { Self.normalized($0) })
        listenHost = Self.normalized(listen.host)
    }

    func accepts(_ header: String?) -> Bool {
        guard let header, !header.isEmpty else { return true }
        let host = Self.normalized(Self.hostPart(header))
        if host == "localhost" || names.contains(host) || host == listenHost { return true }
        guard ListenAddress.isNumeric(host) else { return false }
        if ListenAddress(host: host, port: 0).isLoopback { return true }
        return listen.host == "0.0.0.0" || listen.host == "::"
    }

    /// `example.org:8650` → `example.org`, `[::1]:8650` → `::1`.
    static func hostPart(_ header: String) -> String {
        let text = HeaderText.trimmed(header)
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            return String(text[text.index(after: text.startIndex)..<close])
        }
        if HeaderText.count(text, UInt8(ascii: ":")) == 1, let colon = text.firstIndex(of: ":") { return String(text[..<colon]) }
        return text
    }

    static func normalized(_ host: String) -> String {
        let lower = HeaderText.lowercased(host)
        return lower.hasSuffix(".") ? String(lower.dropLast()) : lower
    }
}
