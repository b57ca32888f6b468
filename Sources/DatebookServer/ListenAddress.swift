import Foundation

/// Where the server listens: an IP address and a port (`127.0.0.1:8650`, `[::1]:8650`, `0.0.0.0:0`).
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: UInt16

    public static let standard = ListenAddress(host: "127.0.0.1", port: 8650)

    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// Parses `HOST:PORT` with a numeric IPv4 host or a bracketed IPv6 one; nil otherwise.
    public init?(_ text: String) {
        let host: Substring, port: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            port = text[text.index(close, offsetBy: 2)...]
        } else {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2 else { return nil }
            host = parts[0]
            port = parts[1]
        }
        guard let number = UInt16(port), Self.isNumeric(String(host)) else { return nil }
        self.init(host: String(host), port: number)
    }

    public var isIPv6: Bool { host.contains(":") }

    /// 127.0.0.0/8 or ::1: only this machine can connect, so no token is needed.
    public var isLoopback: Bool {
        host == "::1" || host.split(separator: ".").first == "127"
    }

    public var description: String { isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)" }

    static func isNumeric(_ host: String) -> Bool {
        var v4 = in_addr(), v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }

    /// Calls `body` with this address as a `sockaddr`.
    func withSocketAddress<T>(_ body: (UnsafePointer<sockaddr>) throws -> T) throws -> T {
        if isIPv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            guard inet_pton(AF_INET6, host, &address.sin6_addr) == 1 else { throw ServerError("not an IPv6 address: \(host)") }
            return try withUnsafePointer(to: &address) { try $0.withMemoryRebound(to: sockaddr.self, capacity: 1, body) }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { throw ServerError("not an IPv4 address: \(host)") }
        return try withUnsafePointer(to: &address) { try $0.withMemoryRebound(to: sockaddr.self, capacity: 1, body) }
    }
}
