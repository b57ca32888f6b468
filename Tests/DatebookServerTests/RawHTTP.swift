import Foundation

/// A response as read off the wire.
struct RawResponse {
    var status: Int
    var headers: [String: String]
    var body: [UInt8]
    var text: String { String(decoding: body, as: UTF8.self) }
    func header(_ name: String) -> String? { headers[name.lowercased()] }
}

enum RawHTTPError: Error { case connect(Int32), closed, malformed(String) }

/// A plain TCP connection to 127.0.0.1: the tests send exactly the bytes they mean (traversal
/// paths curl would normalise, bodies a byte at a time) and read what comes back.
final class RawConnection {
    let fd: Int32

    /// The socket is kept only once connected: a throwing init of a fully initialised class runs
    /// `deinit`, and closing a failed socket there too would close whatever reused its number
    /// meanwhile (a server's connection, in a test running beside this one).
    /// `source`: the loopback address to connect from (`127.0.0.2` is another client to the server).
    init(port: UInt16, receiveTimeout: Double = 10, source: String = "127.0.0.1") throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        /// `call` (bind or connect) on `host:port`; the socket is closed when it fails.
        func on(_ host: String, _ port: UInt16, _ call: (Int32, UnsafePointer<sockaddr>, socklen_t) -> Int32) throws {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = inet_addr(host)
            let result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { call(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard result == 0 else {
                let code = errno
                close(fd)
                throw RawHTTPError.connect(code)
            }
        }
        try on(source, 0, bind)
        try on("127.0.0.1", port, connect)
        self.fd = fd
        var timeout = timeval(tv_sec: Int(receiveTimeout), tv_usec: Int((receiveTimeout - receiveTimeout.rounded(.down)) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    /// Sends bytes; false when the server closed the connection.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { return false }
            offset += sent
        }
        return true
    }

    @discardableResult
    func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// Reads one response (headers, then `Content-Length` bytes or to the end).
    func readResponse() throws -> RawResponse {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        func fill() throws -> Bool {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { return false }
            data.append(contentsOf: buffer[0..<count])
            return true
        }
        let separator: [UInt8] = [13, 10, 13, 10]
        var headerEnd: Int?
        while headerEnd == nil {
            guard try fill() else { throw RawHTTPError.closed }
            headerEnd = data.indices.dropLast(3).first { Array(data[$0..<$0 + 4]) == separator }
        }
        guard let end = headerEnd else { throw RawHTTPError.closed }
        let head = String(decoding: data[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = head[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw RawHTTPError.malformed(head[0]) }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = Array(data[(end + 4)...])
        // A 304's Content-Length is the 200's (RFC 9110 section 8.6): it has no body to wait for.
        if status != 304, let length = headers["content-length"].flatMap(Int.init) {
            while body.count < length {
                let before = data.count
                guard try fill() else { break }
                body.append(contentsOf: data[before...])
            }
        }
        return RawResponse(status: status, headers: headers, body: body)
    }

    /// True when the server has closed the connection by now (its end of file waits to be read),
    /// without waiting for it.
    func isClosedByPeerNow() -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) == 1
    }

    /// True when the server has closed the connection (a read returns end of file or an error).
    func isClosedByPeer() -> Bool {
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, 0) <= 0
    }
}

/// One request on a fresh connection.
func request(_ port: UInt16, _ method: String, _ target: String, headers: [String: String] = [:], body: [UInt8] = [],
             source: String = "127.0.0.1") throws -> RawResponse {
    let connection = try RawConnection(port: port, source: source)
    var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
    for (name, value) in headers { head += "\(name): \(value)\r\n" }
    if !body.isEmpty || method == "POST" || method == "PATCH" { head += "Content-Length: \(body.count)\r\n" }
    _ = connection.send(Array((head + "\r\n").utf8) + body)
    return try connection.readResponse()
}
