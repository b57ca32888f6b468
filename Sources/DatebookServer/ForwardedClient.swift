import Foundation

/// Who a request comes from when it reaches the server through a reverse proxy.
///
/// Behind a proxy every request's peer is the proxy, so every client would share one count of
/// failed logins (one guesser would lock everyone out). With `serve.trustedProxies` listing the
/// proxy's address, a request whose direct peer is one of them is counted under the address the
/// proxy names in `Forwarded: for=…` (RFC 7239) or, without it, `X-Forwarded-For`. The chain is
/// read from the right: the last address that is not itself a trusted proxy is the client (the
/// ones left of it were written by the client and may be anything). A peer that is not a trusted
/// proxy is the client, whatever headers it sends.
public struct ForwardedClient: Sendable, Equatable {
    /// The proxies' addresses as the server sees its peers (`127.0.0.1`, `::1`, `10.0.0.5`).
    public var trustedProxies: [String]

    public init(trustedProxies: [String]) {
        self.trustedProxies = trustedProxies.map(Self.normalized)
    }

    /// True when `peer` is one of `trustedProxies`.
    public func trusts(_ peer: String) -> Bool {
        !trustedProxies.isEmpty && trustedProxies.contains(Self.normalized(peer))
    }

    /// The client address to count `peer`'s request under, given its (lower-case) headers.
    public func client(peer: String, headers: [String: String]) -> String {
        let peer = Self.normalized(peer)
        guard !trustedProxies.isEmpty, trustedProxies.contains(peer) else { return peer }
        let chain = headers["forwarded"].map(Self.forwardedFor) ?? headers["x-forwarded-for"].map(Self.xForwardedFor) ?? []
        return chain.reversed().first { !trustedProxies.contains($0) } ?? peer
    }

    /// The `for=` addresses of a `Forwarded` field, in order (RFC 7239 section 4: quoted, IPv6 in
    /// brackets, an optional port; an obfuscated or `unknown` node is kept as written).
    static func forwardedFor(_ field: String) -> [String] {
        field.split(separator: ",").compactMap { element in
            element.split(separator: ";").lazy.compactMap { pair -> String? in
                let parts = pair.split(separator: "=", maxSplits: 1).map { HeaderText.trimmed($0) }
                guard parts.count == 2, parts[0].lowercased() == "for" else { return nil }
                return normalized(parts[1])
            }.first
        }
    }

    /// The addresses of an `X-Forwarded-For` field, in order.
    static func xForwardedFor(_ field: String) -> [String] {
        field.split(separator: ",").map { normalized(String($0)) }.filter { !$0.isEmpty }
    }

    /// An address as compared: no quotes, brackets or port, IPv6 in lower case, an IPv4-mapped
    /// IPv6 address as its IPv4 one.
    static func normalized(_ text: String) -> String {
        // The peer's own address (inet_ntop's IPv4 text) is the common case: nothing to change.
        if text.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || $0 == 46 }) { return text }
        var address = HeaderText.trimmed(text)
        if address.hasPrefix("\""), address.hasSuffix("\""), address.count >= 2 { address = String(address.dropFirst().dropLast()) }
        if address.hasPrefix("[") {
            address = String(address.dropFirst().prefix { $0 != "]" })
        } else if HeaderText.count(address, UInt8(ascii: ":")) == 1 {
            address = String(address.prefix { $0 != ":" })
        }
        address = address.lowercased()
        if address.hasPrefix("::ffff:"), address.dropFirst(7).contains(".") { address = String(address.dropFirst(7)) }
        return address
    }
}
