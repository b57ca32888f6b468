@testable import DatebookCLI
import DatebookStore
import DatebookTestSupport
import Foundation
import Testing

/// `datebook completions bash|zsh|fish`, run in each real shell against the debug binary, which
/// answers `datebook __complete` from the specs, a config with two channels and the demo planner.
@Suite(.serialized) struct CompletionTests {
    /// A scratch HOME with `datebook` on PATH, the sample planner, a config and a feed.
    struct Setup {
        let sandbox = Sandbox()
        var home: String { sandbox.home }
        var environment: [String: String] {
            ["PATH": home + "/bin:/usr/bin:/bin", "HOME": home, "XDG_CONFIG_HOME": home + "/config",
             "XDG_DATA_HOME": home + "/data", "DATEBOOK_STORE": sandbox.store, "LANG": "C.UTF-8"]
        }

        init() throws {
            try FileManager.default.createDirectory(atPath: home + "/bin", withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: home + "/bin/datebook",
                                                       withDestinationPath: repositoryRoot.appendingPathComponent(".build/debug/datebook").path)
            try FileManager.default.createDirectory(atPath: home + "/config/datebook", withIntermediateDirectories: true)
            try """
            { channels: { team: { type: "file", path: "\(home)/team.txt" }, notes: { type: "file", path: "\(home)/notes.md" } } }
            """.write(toFile: home + "/config/datebook/config.json5", atomically: true, encoding: .utf8)
            try "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nEND:VCALENDAR\r\n".write(toFile: home + "/work.ics", atomically: true, encoding: .utf8)
            #expect(sandbox.run(["demo"]).code == 0)
            #expect(sandbox.run(["feed", "add", "work", home + "/work.ics"]).code == 0)
            for shell in CompletionsCommand.shells {
                try #require(CompletionsCommand.script(for: shell)).write(toFile: home + "/datebook." + shell, atomically: true, encoding: .utf8)
            }
        }
    }

    /// (command line up to the cursor, a candidate that must be offered, one that must not be).
    static let cases: [(line: String, offered: String, notOffered: String?)] = [
        ("datebook li", "list", "add"),
        ("datebook ", "digest", "__complete"),
        ("datebook list --per", "--period", "--json"),
        ("datebook list --period ", "next30", "html"),
        ("datebook digest --format ", "markdown", "ics"),
        ("datebook export --format ", "ics", "markdown"),
        ("datebook add X --symbol gi", "gift.fill", "leaf.fill"),
        ("datebook add X --event-color pu", "purple", "red"),
        ("datebook --color ", "never", "red"),
        ("datebook digest --locale de_", "de_DE", "ja_JP"),
        ("datebook --tz Europe/Be", "Europe/Berlin", "Asia/Tokyo"),
        ("datebook send digest --channel ", "team", "work"),
        ("datebook channels test n", "notes", "team"),
        ("datebook feed refresh ", "work", "team"),
        ("datebook show Pag", "Pagliacci", "Game Night"),
        ("datebook task done Cam", "Camping Trip", "Pagliacci"),
        ("datebook task ", "undo", "list"),
        ("datebook completions ", "fish", "powershell"),
        ("datebook serve --listen ", "127.0.0.1:8650", "Pagliacci"),
    ]

    /// The words of `line` as a shell array literal (an empty last word when it ends in a space).
    static func shellArray(_ line: String) -> (literal: String, count: Int) {
        var words = line.split(separator: " ").map(String.init)
        if line.hasSuffix(" ") { words.append("") }
        return (words.map { "'" + $0 + "'" }.joined(separator: " "), words.count)
    }

    @Test func bashCompletesFromTheScript() throws {
        let setup = try Setup()
        for (line, offered, notOffered) in Self.cases {
            let (array, count) = Self.shellArray(line)
            let script = """
            source /usr/share/bash-completion/bash_completion
            source \(setup.home)/datebook.bash
            COMP_WORDS=(\(array)); COMP_CWORD=\(count - 1)
            _datebook
            printf '%s\\n' "${COMPREPLY[@]}"
            """
            let run = try runProgram("/bin/bash", ["--norc", "-c", script], environment: setup.environment)
            let replies = run.out.split(separator: "\n").map { $0.replacingOccurrences(of: "\\ ", with: " ").replacingOccurrences(of: "\\'", with: "'") }
            #expect(replies.contains(offered), "bash: '\(line)' offered \(replies) \(run.err)")
            if let notOffered { #expect(!replies.contains(notOffered), "bash: '\(line)' offered \(notOffered)") }
        }
    }

    @Test func bashCompletesFileNamesForImport() throws {
        let setup = try Setup()
        let script = "source \(setup.home)/datebook.bash; cd \(setup.home); COMP_WORDS=(datebook import wo); COMP_CWORD=2; _datebook; printf '%s\\n' \"${COMPREPLY[@]}\""
        let run = try runProgram("/bin/bash", ["--norc", "-c", script], environment: setup.environment)
        #expect(run.out == "work.ics\n", "\(run.out) \(run.err)")
    }

    @Test func fishCompletesFromTheScript() throws {
        let setup = try Setup()
        for (line, offered, notOffered) in Self.cases {
            let run = try runProgram("/usr/bin/fish", ["--no-config", "-c", "source \(setup.home)/datebook.fish; complete -C '\(line)'"],
                                     environment: setup.environment)
            let replies = run.out.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") }
            #expect(replies.contains(offered), "fish: '\(line)' offered \(replies) \(run.err)")
            if let notOffered { #expect(!replies.contains(notOffered), "fish: '\(line)' offered \(notOffered)") }
        }
    }

    /// The real zsh runs the script's function; compsys's `compadd`, `_files` and `compdef` are
    /// stand-ins that print what they are given (a pseudo-terminal session is not needed).
    @Test func zshCompletesFromTheScript() throws {
        let setup = try Setup()
        let check = try runProgram("/usr/bin/zsh", ["-n", setup.home + "/datebook.zsh"])
        #expect(check.status == 0, "zsh -n: \(check.err)")
        for (line, offered, notOffered) in Self.cases {
            let (array, count) = Self.shellArray(line)
            let script = """
            compdef() { : }
            compadd() { [[ $1 == -- ]] && shift; print -rl -- "$@" }
            _files() { print -r -- '(files)' }
            source \(setup.home)/datebook.zsh
            words=(\(array)); CURRENT=\(count)
            _datebook
            """
            let run = try runProgram("/usr/bin/zsh", ["-f", "-c", script], environment: setup.environment)
            let replies = run.out.split(separator: "\n").map(String.init)
            #expect(replies.contains(offered), "zsh: '\(line)' offered \(replies) \(run.err)")
            if let notOffered { #expect(!replies.contains(notOffered), "zsh: '\(line)' offered \(notOffered)") }
        }
    }

    /// The same in an interactive zsh with compinit on a pseudo-terminal: Tab after `show Pag`
    /// turns the line into `show Pagliacci`, the script found on fpath as `_datebook`.
    @Test func zshCompletesOnTabInAnInteractiveShell() throws {
        let setup = try Setup()
        try FileManager.default.createDirectory(atPath: setup.home + "/zfunc", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: setup.home + "/datebook.zsh", toPath: setup.home + "/zfunc/_datebook")
        let script = """
        zmodload zsh/zpty
        zpty shell 'PS1="> " zsh -f -i'
        zpty -w shell 'fpath=(\(setup.home)/zfunc $fpath); autoload -Uz compinit; compinit -u -D'
        zpty -w shell $'datebook show Pag\\t'
        if zpty -r -m shell line '*show Pagliacci*'; then print completed; fi
        zpty -d shell
        """
        let run = try runProgram("/usr/bin/timeout", ["20", "/usr/bin/zsh", "-f", "-c", script], environment: setup.environment)
        #expect(run.out.hasSuffix("completed\n"), "\(run.out) \(run.err)")
    }

    @Test func anUnknownShellNamesTheThreeKnownOnes() {
        let run = Sandbox().run(["completions", "powershell"])
        #expect(run.code == 64)
        #expect(run.err.contains("unknown shell 'powershell'; expected bash, zsh or fish"))
    }

    @Test func everyCommandWhoseFirstArgumentIsNotFreeTextCompletesIt() {
        // Commands whose positionals are free text (a title, a month, a program to run).
        let freeText: Set<String> = ["add", "cal", "await-notification", "__complete", "demo", "list", "tick", "run", "status", "preview"]
        for spec in Datebook.commands.map({ $0.spec }) where spec.positionals.upperBound > 0 && !freeText.contains(spec.name) {
            #expect(CompletionValues.positional(spec.name, 0, before: []) != .none, "no completion for the first argument of '\(spec.name)'")
        }
    }

    @Test func eventNamesComeFromTitlesAndIdPrefixes() throws {
        let sandbox = Sandbox()
        #expect(sandbox.run(["demo"]).code == 0)
        let store = try Store(path: sandbox.store, readOnly: true)
        let id = try #require(try store.events(titled: "Pagliacci").first?.id)
        #expect(try store.eventNames(prefix: "Pag") == [EventName(shortID: String(id.prefix(8)), title: "Pagliacci")])
        #expect(try store.eventNames(prefix: "pag").isEmpty)
        #expect(try store.eventNames(prefix: "", limit: 3).map(\.title) == ["Book Launch", "Camping Trip", "Doctor's Appointment"])
        let byID = sandbox.run(["__complete", "--", "show", String(id.prefix(5))]).out
        #expect(byID == "words\n" + id.prefix(8) + "\n")
    }

    @Test func theStoreNamedOnTheCommandLineIsTheOneCompletedFrom() {
        let sandbox = Sandbox(), other = Sandbox()
        #expect(sandbox.run(["demo"]).code == 0)
        #expect(other.run(["add", "Pagoda visit", "--at", "2026-12-05"]).code == 0)
        let run = sandbox.run(["__complete", "--", "--store", other.store, "show", "Pag"])
        #expect(run.out == "words\nPagoda visit\n", "\(run.out)")
    }
}
