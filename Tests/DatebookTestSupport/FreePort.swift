import Foundation

/// A TCP port on 127.0.0.1 that was free a moment ago (bound to port 0, then closed).
public func freePort() throws -> Int {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw FreePortError(reason: "socket: " + String(cString: strerror(errno))) }
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
            bind(descriptor, pointer, length) == 0 && getsockname(descriptor, pointer, &length) == 0
        }
    }
    guard bound else { throw FreePortError(reason: "bind 127.0.0.1:0: " + String(cString: strerror(errno))) }
    return Int(UInt16(bigEndian: address.sin_port))
}

public struct FreePortError: Error, CustomStringConvertible {
    public var reason: String
    public var description: String { "no free port on 127.0.0.1: " + reason }
}
