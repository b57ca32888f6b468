import Foundation

/// What a process is and holds, from /proc: its program, resident memory, and who writes to its stdin.
public enum WaitingProcesses {
    /// The file name of the program it runs (`/proc/PID/exe`; `comm` would cut it to 15 bytes).
    public static func name(_ pid: Int32) -> String {
        let path = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")) ?? ""
        return URL(fileURLWithPath: path).lastPathComponent
    }

    /// `VmRSS` of `/proc/PID/status` in kB; nil once the process is gone.
    public static func residentKilobytes(_ pid: Int32) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return nil }
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
    }

    /// The processes whose stdout is the pipe on `pid`'s stdin (notify-send feeding the waiter).
    public static func writers(toStdinOf pid: Int32) -> [Int32] {
        guard let pipe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/0"),
              pipe.hasPrefix("pipe:") else { return [] }
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { other in
            other != pid && (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(other)/fd/1")) == pipe
        }
    }
}
