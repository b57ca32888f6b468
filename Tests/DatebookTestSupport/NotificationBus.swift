import Foundation

/// A private D-Bus session bus (`dbus-daemon` on `unix:path=DIR/bus`) with the scripted
/// notification server of `Support/notification_server.py` on it, for tests that run the real
/// notify-send. Every Notify call is recorded; `invoke`/`close` emit the server's signals.
/// The bus has its own config with no service directory, so a notification daemon installed on
/// the machine is never activated on it; the server and its bus are one process group, watched
/// by the `Reaper`.
public final class NotificationBus: @unchecked Sendable {  // the process and pipes are used from one test
    public let process = Process()
    public let directory: URL
    public let recordFile: URL
    /// `unix:path=DIR/bus`, for `DBUS_SESSION_BUS_ADDRESS`.
    public let address: String
    private let commands = Pipe()
    private let replies = Pipe()

    /// - Parameter server: false runs the bus alone (no one owns org.freedesktop.Notifications).
    /// - Parameter environment: added to the server's and the bus's environment (this process's).
    public init(server: Bool = true, capabilities: [String]? = nil, environment: [String: String] = [:]) throws {
        directory = URL(fileURLWithPath: makeScratchFolder("bus"))
        recordFile = directory.appendingPathComponent("notifications.jsonl")
        _ = FileManager.default.createFile(atPath: recordFile.path, contents: Data())
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        var arguments = [serverScripts.appendingPathComponent("notification_server.py").path, recordFile.path, directory.path]
        if !server { arguments.append("--no-server") }
        if let capabilities { arguments += ["--capabilities", capabilities.joined(separator: ",")] }
        process.arguments = arguments
        process.standardInput = commands
        process.standardOutput = replies
        process.standardError = FileHandle.nullDevice
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        try process.run()
        Reaper.watch(process)
        guard let line = Self.readLine(replies.fileHandleForReading), line.hasPrefix("unix:path=") else {
            Reaper.stop(process)
            removeScratchFolder(directory.path)
            throw NotificationBusError.notStarted
        }
        address = line
    }

    /// The bus socket's path (what `$XDG_RUNTIME_DIR/bus` would be).
    public var socketPath: String { directory.appendingPathComponent("bus").path }

    /// Every Notify call so far: summary, body, actions, hints, app_name, id, expire_timeout.
    public func notifications() throws -> [[String: Any]] {
        let text = try String(contentsOf: recordFile, encoding: .utf8)
        return try text.split(separator: "\n").compactMap {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// Waits up to `timeout` seconds for at least `count` notifications.
    public func waitForNotifications(_ count: Int, timeout: TimeInterval = 10) throws -> [[String: Any]] {
        let deadline = Date().addingTimeInterval(timeout)
        var seen = try notifications()
        while seen.count < count, Date() < deadline {
            usleep(20_000)
            seen = try notifications()
        }
        return seen
    }

    /// Emits ActionInvoked(id, key), as a click on a button does.
    public func invoke(_ id: Int, action: String) { send("action \(id) \(action)") }

    /// Emits NotificationClosed(id, reason): 1 expired, 2 dismissed by the user.
    public func close(_ id: Int, reason: Int = 1) { send("close \(id) \(reason)") }

    private func send(_ command: String) {
        commands.fileHandleForWriting.write(Data((command + "\n").utf8))
        _ = Self.readLine(replies.fileHandleForReading)
    }

    private static func readLine(_ handle: FileHandle) -> String? {
        var line = Data()
        while true {
            let byte = handle.readData(ofLength: 1)
            if byte.isEmpty { return line.isEmpty ? nil : String(decoding: line, as: UTF8.self) }
            if byte.first == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
            line.append(byte)
        }
    }

    public func stop() {
        if process.isRunning {
            try? commands.fileHandleForWriting.close()
            let deadline = Date().addingTimeInterval(3)
            while process.isRunning, Date() < deadline { usleep(10_000) }
        }
        // A child of this test process may hold the pipe open (no EOF then): the group's end stops the server and its bus.
        Reaper.stop(process)
        removeScratchFolder(directory.path)
    }

    deinit { stop() }
}

public enum NotificationBusError: Error { case notStarted }
