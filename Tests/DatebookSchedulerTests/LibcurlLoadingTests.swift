import DatebookCore
import Foundation
import Testing

/// libcurl and its ~30 libraries are opened on first use (Sources/CLoader/include/datebook_libraries.h): commands that send
/// nothing never load them, and a command that sends does.
@Suite(.serialized) struct LibcurlLoadingTests {
    /// The shared objects the dynamic loader opened for `datebook arguments…` (LD_DEBUG=files).
    func loadedLibraries(_ sandbox: ProcessSandbox, _ arguments: [String]) throws -> String {
        let log = sandbox.directory + "/ld-\(arguments.first ?? "x").log"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: datebookBinary)
        process.arguments = arguments
        process.environment = sandbox.environment.merging(["LD_DEBUG": "files"]) { $1 }
        process.standardOutput = FileHandle.nullDevice
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: log)
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "datebook \(arguments.joined(separator: " ")) failed")
        return try String(contentsOfFile: log, encoding: .utf8)
    }

    @Test func onlyCommandsThatSendLoadLibcurl() throws {
        let sink = try Sink()
        let sandbox = try ProcessSandbox(sink: sink, channels: ["hook": "/hook"], lead: "10m")
        let due = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 300).rounded(.down))
        try sandbox.save([event("Due soon", at: due)])
        for arguments in [["--version"], ["list"], ["preview"]] {
            let loaded = try loadedLibraries(sandbox, arguments)
            #expect(loaded.contains("libsqlite3"), "LD_DEBUG output is there")
            #expect(!loaded.contains("libcurl"), "datebook \(arguments[0]) loaded libcurl")
            // libxml2 likewise: only the CalDAV sync opens it (Sources/CLoader).
            #expect(!loaded.contains("libxml2"), "datebook \(arguments[0]) loaded libxml2")
        }
        // The alert is due within the lead time: tick sends it, through libcurl.
        let loaded = try loadedLibraries(sandbox, ["tick"])
        #expect(loaded.contains("libcurl.so.4"))
        #expect(try sink.requests().count == 1)
    }
}
