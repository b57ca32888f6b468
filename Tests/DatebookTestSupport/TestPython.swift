import Foundation

/// The Python the tests run their peers with (icalendar, recurring-ical-events, Radicale, service
/// validators): the test set-up's virtual environment under `.build/venv` when it exists, else the
/// first `python3` on PATH. One place, so the set-up decides and no test reads the system's Python.
public enum TestPython {
    public static let executable: String? = {
        let venv = repositoryRoot.appendingPathComponent(".build/venv/bin/python3").path
        if FileManager.default.isExecutableFile(atPath: venv) { return venv }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/python3" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// Whether `executable` imports every module named (e.g. `["icalendar", "recurring_ical_events"]`).
    public static func imports(_ modules: [String]) -> Bool {
        guard let executable else { return false }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["-c", "import " + modules.joined(separator: ", ")]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}
