import Foundation

/// Why a daemon could not listen, and, on a busy port, which process holds it (from `/proc`, when
/// it is readable: another user's process shows no pid).
enum PortOwner {
    static func whyNotListening(_ listen: ListenAddress) -> String {
        let code = bindError(listen)
        guard code == EADDRINUSE else {
            let reason = code == 0 ? "libmicrohttpd refused to start" : String(cString: strerror(code))
            return "cannot listen on \(listen): \(reason)"
        }
        let holder = pid(listeningOn: listen.port).map { " by pid \($0)" } ?? " by another process"
        return "cannot listen on \(listen): address in use\(holder); stop that server or choose another port (--listen or serve.listen)"
    }

    /// The errno of binding a plain socket to the address (without SO_REUSEPORT), 0 when it binds.
    static func bindError(_ listen: ListenAddress) -> Int32 {
        let fd = socket(listen.isIPv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return errno }
        defer { close(fd) }
        var on: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        let length = socklen_t(listen.isIPv6 ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size)
        let result = (try? listen.withSocketAddress { Glibc.bind(fd, $0, length) }) ?? -1
        return result == 0 ? 0 : errno
    }

    /// The process with a socket listening on `port` (TCP, IPv4 or IPv6), if `/proc` tells.
    static func pid(listeningOn port: UInt16) -> Int32? {
        let hexPort = String(format: ":%04X", port)
        var inodes: Set<String> = []
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            guard let text = try? String(contentsOfFile: table, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                // local_address, rem_address, st (0A: LISTEN), …, inode (the tenth field)
                guard fields.count > 9, fields[1].hasSuffix(hexPort), fields[3] == "0A" else { continue }
                inodes.insert("socket:[\(fields[9])]")
            }
        }
        guard !inodes.isEmpty, let processes = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return nil }
        for name in processes {
            guard let pid = Int32(name), let fds = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(name)/fd") else { continue }
            for fd in fds {
                if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(name)/fd/\(fd)"), inodes.contains(target) {
                    return pid
                }
            }
        }
        return nil
    }
}
