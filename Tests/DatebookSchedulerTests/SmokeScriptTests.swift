import DatebookTestSupport
import Foundation
import Testing

/// `scripts/smoke.sh` (the last step of `make test`) keeps to its scratch HOME whatever the caller's
/// environment points at: run here on the debug binary with a user's store, config and XDG folders set.
@Suite(.serialized) struct SmokeScriptTests {
    @Test func smokeRunLeavesTheCallersStoreAndConfigAlone() throws {
        let user = makeScratchFolder("user")
        try FileManager.default.createDirectory(atPath: user + "/config/datebook", withIntermediateDirectories: true)
        defer { removeScratchFolder(user) }
        // Configs that fail to load: reading either one fails the smoke run.
        try "{ not json5".write(toFile: user + "/config.json5", atomically: true, encoding: .utf8)
        try "{ not json5".write(toFile: user + "/config/datebook/config.json5", atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [repositoryRoot.appendingPathComponent("scripts/smoke.sh").path]
        process.environment = [
            "PATH": "/usr/bin:/bin", "HOME": user, "DATEBOOK_SMOKE_BINARY": datebookBinary,
            "DATEBOOK_STORE": user + "/store.sqlite3", "DATEBOOK_CONFIG": user + "/config.json5",
            "XDG_DATA_HOME": user + "/data", "XDG_CONFIG_HOME": user + "/config", "DATEBOOK_TZ": "Not/AZone",
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")
        #expect(text.contains("smoke: debug binary ok"), "\(text)")
        #expect(!FileManager.default.fileExists(atPath: user + "/store.sqlite3"))
        #expect(!FileManager.default.fileExists(atPath: user + "/data"))
        #expect(!FileManager.default.fileExists(atPath: user + "/.local"))
    }
}
