@testable import DatebookCLI
import Foundation
import Testing

/// Large imports and exports show a progress line on stderr when it is a terminal, and nothing
/// when it is not (a pipe, a log).
struct ProgressTests {
    /// Runs the CLI with stderr that says it is (or is not) a terminal.
    func run(_ sandbox: Sandbox, _ arguments: [String], terminal: Bool) -> CLIRun {
        let out = StringSink(), err = StringSink(isTerminal: terminal)
        let code = Datebook.main(arguments: ["--store", sandbox.store, "--now", sandbox.now, "--tz", sandbox.tz] + arguments,
                                 environment: ["HOME": sandbox.home], stdoutIsTerminal: false, out: out, err: err)
        return CLIRun(out: out.text, err: err.text, code: code)
    }

    @Test func largeImportsAndExportsShowProgressOnATerminalOnly() throws {
        let sandbox = Sandbox()
        let events = (0..<12_000).map { n in
            #"{"id": "\#(String(format: "%016x", n + 1))", "title": "Event \#(n)", "start": "2026-12-01T09:00:00Z", "tasks": [{"id": "t1", "text": "a"}]}"#
        }
        let path = sandbox.home + "/large.json"
        try ("{\"events\": [\n" + events.joined(separator: ",\n") + "\n]}\n").write(toFile: path, atomically: true, encoding: .utf8)
        let imported = run(sandbox, ["import", path], terminal: true)
        #expect(imported.code == 0)
        #expect(imported.err.contains("\rimporting [##############################] 12000/12000"))
        #expect(imported.err.hasSuffix("\r\u{1B}[K"), "the line is cleared at the end")
        for format in ["json", "ics"] {
            let shown = run(sandbox, ["export", "--format", format, "-o", sandbox.home + "/out." + format], terminal: true)
            #expect(shown.code == 0)
            #expect(shown.err.contains("\rexporting [##########                    ] 4000/12000"), "\(format)")
            #expect(shown.err.hasSuffix("\r\u{1B}[Kdatebook: exported 12000 events to \(sandbox.home)/out.\(format)\n"))
            let quiet = run(sandbox, ["export", "--format", format], terminal: false)
            #expect(quiet.err.isEmpty)
            #expect(quiet.out.utf8.count == (try Data(contentsOf: URL(fileURLWithPath: sandbox.home + "/out." + format))).count)
        }
    }
}
