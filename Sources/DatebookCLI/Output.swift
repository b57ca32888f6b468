import DatebookDelivery
import Foundation

/// Where the CLI writes text; the real one buffers and writes to a file descriptor, tests capture.
public protocol OutputSink: AnyObject {
    func write(_ text: String)
    /// UTF-8 bytes, e.g. a listing row built in a reused buffer.
    func write(bytes: [UInt8])
    func flush()
    /// Whether a person watches this output (progress lines are shown only then).
    var isTerminal: Bool { get }
}

extension OutputSink {
    public func write(bytes: [UInt8]) { write(String(decoding: bytes, as: UTF8.self)) }
    public var isTerminal: Bool { false }
}

/// Buffers writes and flushes them to a file descriptor in large chunks (listing 100k rows stays fast).
public final class FileDescriptorSink: OutputSink {
    private let fd: Int32
    private var buffer: [UInt8] = []

    public init(fd: Int32) {
        self.fd = fd
        buffer.reserveCapacity(1 << 16)
    }

    deinit { flush() }

    public var isTerminal: Bool { isatty(fd) == 1 }

    public func write(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= 1 << 16 { flush() }
    }

    public func write(bytes: [UInt8]) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= 1 << 16 { flush() }
    }

    public func flush() {
        _ = buffer.withUnsafeBytes { FileDescriptorWrite.all($0, to: fd) }
        buffer.removeAll(keepingCapacity: true)
    }
}

/// Collects output in memory (tests, and commands that render before writing).
public final class StringSink: OutputSink {
    public private(set) var text = ""
    /// Lets a test see what a terminal would.
    public let isTerminal: Bool
    public init(isTerminal: Bool = false) { self.isTerminal = isTerminal }
    public func write(_ text: String) { self.text += text }
    public func flush() {}
}
