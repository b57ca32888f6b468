@testable import DatebookCLI
import DatebookTestSupport
import Foundation
import Testing

/// The result of one in-process CLI run.
struct CLIRun {
    var out: String
    var err: String
    var code: Int32
}

/// A scratch HOME and store for one test; runs the CLI in process with a fixed clock and zone.
/// The folder is removed when the last copy of the sandbox is released.
struct Sandbox {
    let folder = ScratchFolder("cli")
    var home: String { folder.path }
    var store: String { home + "/store.sqlite3" }
    var now = "2026-11-30 09:00"
    /// Passed as `--tz`; empty passes none (the zone then comes from `DATEBOOK_TZ` in the environment).
    var tz = "Europe/Berlin"

    init() {}

    @discardableResult
    func run(_ arguments: [String], environment extra: [String: String] = [:], storePath: String? = nil,
             terminal: Bool = false) -> CLIRun {
        let out = StringSink(), err = StringSink()
        // The whole environment the CLI sees (nothing of this process's is passed on).
        var environment = ["HOME": home, "XDG_CONFIG_HOME": home + "/config", "XDG_DATA_HOME": home + "/data",
                           "XDG_DATA_DIRS": home + "/share"]
        environment.merge(extra) { $1 }
        let code = Datebook.main(arguments: ["--store", storePath ?? store, "--now", now] + (tz.isEmpty ? [] : ["--tz", tz]) + arguments,
                                 environment: environment, stdoutIsTerminal: terminal, out: out, err: err)
        return CLIRun(out: out.text, err: err.text, code: code)
    }
}

/// This target's golden files (`Snapshots/` beside this file).
let snapshots = GoldenFiles()
