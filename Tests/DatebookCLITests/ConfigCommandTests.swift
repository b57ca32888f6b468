import DatebookTestSupport
import Foundation
import Testing

/// `datebook config init` and `config add-channel` through the built binary, in a sandbox HOME.
struct ConfigCommandTests {
    @Test(arguments: [
        ("America/New_York", "en_US.UTF-8", "timeZone: \"America/New_York\"", "locale: \"en_US\""),
        (":Asia/Kolkata", "de_DE.UTF-8@euro", "timeZone: \"Asia/Kolkata\"", "locale: \"de_DE\""),
        ("Europe/Berlin", "C", "timeZone: \"Europe/Berlin\"", "// locale: \"en_US\""),
    ])
    func initWritesTheSystemsZoneAndLocaleWithNothingSwitchedOn(tz: String, lang: String, zoneLine: String, localeLine: String) throws {
        let sandbox = try ProgramSandbox(zone: tz, lang: lang)
        defer { sandbox.remove() }
        let run = try sandbox.run(["config", "init"])
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out.contains("wrote \(sandbox.configPath)"))
        let text = try String(contentsOfFile: sandbox.configPath, encoding: .utf8)
        #expect(text.contains("\n  " + zoneLine + ","), "\(text)")
        #expect(text.contains("\n  " + localeLine), "\(text)")
        #expect(ProgramSandbox.mode(sandbox.configPath) == 0o600)
        // It loads, and nothing is configured to send.
        let channels = try sandbox.run(["channels"])
        #expect(channels.status == 0, "\(channels.err)")
        #expect(channels.out.contains("No channels configured"), "\(channels.out)")
        let preview = try sandbox.run(["preview"])
        #expect(preview.out.contains("Nothing to send"), "\(preview.out)")
    }

    @Test func initKeepsAnExistingConfigUnlessForced() throws {
        let sandbox = try ProgramSandbox()
        defer { sandbox.remove() }
        #expect(try sandbox.run(["config", "init"]).status == 0)
        try "{ locale: \"ja_JP\" } // mine\n".write(toFile: sandbox.configPath, atomically: true, encoding: .utf8)
        let again = try sandbox.run(["config", "init"])
        #expect(again.status == 64)
        #expect(again.err.contains("\(sandbox.configPath) exists already"), "\(again.err)")
        #expect(again.err.contains("--force"))
        #expect(try String(contentsOfFile: sandbox.configPath, encoding: .utf8) == "{ locale: \"ja_JP\" } // mine\n")
        #expect(try sandbox.run(["config", "init", "--force"]).status == 0)
        #expect(!(try String(contentsOfFile: sandbox.configPath, encoding: .utf8)).contains("// mine"))
    }

    /// Each type takes what it needs from options (secrets from stdin), keeps secrets in 0600
    /// files named in the config as {file: …}, never prints one, and keeps the user's comments.
    @Test(arguments: [
        ("slack", ["--url", "-"], "url"), ("discord", ["--url", "-"], "url"), ("teams", ["--url", "-"], "url"),
        ("mattermost", ["--url", "-"], "url"), ("webhook", ["--url", "-"], "url"),
        ("ntfy", ["--url", "https://ntfy.example.org", "--topic", "-"], "topic"),
        ("email", ["--smtp", "smtps://smtp.example.org:465", "--username", "me", "--password", "-",
                   "--from", "me@example.org", "--to", "a@example.org", "--to", "b@example.org"], "password"),
    ] as [(String, [String], String)])
    func addChannelStoresTheSecretInAPrivateFileAndKeepsComments(type: String, options: [String], secretKey: String) throws {
        let sandbox = try ProgramSandbox()
        defer { sandbox.remove() }
        try FileManager.default.createDirectory(atPath: sandbox.home + "/config/datebook", withIntermediateDirectories: true)
        let mine = """
            // my own notes: keep me
            {
              channels: {
                notes: { type: "file", path: "~/notes.md" },  // the old one
              },
              /* a block comment */
              alerts: { channels: ["notes"] },
            }

            """
        try mine.write(toFile: sandbox.configPath, atomically: true, encoding: .utf8)
        chmod(sandbox.configPath, 0o640)
        let secret = "s3cret-\(canarySecret)"
        let run = try sandbox.run(["config", "add-channel", type, "mine"] + options + ["--alerts"], stdin: secret + "\n")
        #expect(run.status == 0, "\(run.err)")
        #expect(!(run.out + run.err).contains(canarySecret), "a secret was printed: \(run.out)")
        #expect(run.out.hasSuffix("Send a test message: datebook channels test mine\n"), "\(run.out)")
        let text = try String(contentsOfFile: sandbox.configPath, encoding: .utf8)
        for comment in ["// my own notes: keep me", "// the old one", "/* a block comment */"] {
            #expect(text.contains(comment), "\(text)")
        }
        #expect(!text.contains(canarySecret))
        let file = sandbox.home + "/config/datebook/mine-\(secretKey).secret"
        #expect(text.contains("\(secretKey): { file: \"~/config/datebook/mine-\(secretKey).secret\" }"), "\(text)")
        #expect(ProgramSandbox.mode(file) == 0o600)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == secret + "\n")
        #expect(ProgramSandbox.mode(sandbox.configPath) == 0o640, "the config keeps its mode")
        #expect(text.contains("alerts: { channels: [\"notes\", \"mine\"] }"), "\(text)")
        // datebook reads it back: the channel is listed with its secret hidden.
        let listed = try sandbox.run(["channels"])
        #expect(listed.status == 0, "\(listed.err)")
        #expect(listed.out.contains("mine"), "\(listed.out)")
        #expect(!listed.out.contains(canarySecret))
    }

    @Test func aDesktopChannelNeedsNothingAndAConfigIsWrittenFirstWhenThereIsNone() throws {
        let sandbox = try ProgramSandbox()
        defer { sandbox.remove() }
        let run = try sandbox.run(["config", "add-channel", "desktop", "desk", "--alerts"])
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out.contains("wrote \(sandbox.configPath)"))
        let text = try String(contentsOfFile: sandbox.configPath, encoding: .utf8)
        #expect(text.contains("desk: { type: \"desktop\" },"), "\(text)")
        #expect(text.contains("channels: [\"desk\"]"), "\(text)")
        #expect(try sandbox.run(["channels"]).out.contains("desk"))
    }

    @Test(arguments: [
        (["config", "add-channel", "slack", "team"], "a slack channel needs --url"),
        (["config", "add-channel", "slak", "team"], "unknown channel type 'slak' (did you mean 'slack'?)"),
        (["config", "add-channel", "command", "x"], "a command channel is written by hand"),
        (["config", "add-channel", "email", "m", "--smtp", "smtps://h:465", "--from", "a@b"], "an email channel needs --to"),
        (["config", "add-channel", "desktop", "bad name"], "channel name 'bad name' may only contain"),
        (["config", "frobnicate"], "unknown config action 'frobnicate'"),
    ])
    func aMissingOrWrongValueIsAUsageErrorThatNamesIt(arguments: [String], message: String) throws {
        let sandbox = try ProgramSandbox()
        defer { sandbox.remove() }
        let run = try sandbox.run(arguments)
        #expect(run.status == 64)
        #expect(run.err.contains(message), "\(run.err)")
    }

    @Test func aSecondChannelOfTheSameNameIsRefusedAndTheFileLeftAsItWas() throws {
        let sandbox = try ProgramSandbox()
        defer { sandbox.remove() }
        #expect(try sandbox.run(["config", "add-channel", "desktop", "desk"]).status == 0)
        let before = try String(contentsOfFile: sandbox.configPath, encoding: .utf8)
        let again = try sandbox.run(["config", "add-channel", "desktop", "desk"])
        #expect(again.status == 64)
        #expect(again.err.contains("has a channel named 'desk' already"), "\(again.err)")
        #expect(try String(contentsOfFile: sandbox.configPath, encoding: .utf8) == before)
    }
}

/// `config add-channel` on a terminal (a pseudo-terminal from Python's `pty`): it asks for what
/// is missing, and a secret typed there is not echoed.
struct ConfigPromptTests {
    /// Runs datebook on a pseudo-terminal, typing `answers` one after each prompt (`…: `); returns
    /// everything the terminal showed, and the exit status.
    static let driver = """
        import os, pty, select, sys
        answers = [a.encode() + b"\\n" for a in os.environ["DATEBOOK_TEST_ANSWERS"].split("\\x1f")]
        pid, fd = pty.fork()
        if pid == 0:
            os.execv(sys.argv[1], sys.argv[1:])
        shown, since = b"", b""
        while True:
            ready, _, _ = select.select([fd], [], [], 20)
            if not ready:
                os.kill(pid, 9)
                break
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            shown += chunk
            since += chunk
            if answers and since.rstrip(b" ").endswith(b":"):
                os.write(fd, answers.pop(0))
                since = b""
        _, status = os.waitpid(pid, 0)
        sys.stdout.write(shown.decode("utf-8", "replace"))
        sys.exit(os.waitstatus_to_exitcode(status))
        """

    @Test func missingValuesAreAskedForAndASecretIsNotEchoed() throws {
        let sandbox = try ProgramSandbox()
        defer { sandbox.remove() }
        let secret = "https://hooks.example.org/\(canarySecret)"
        var environment = sandbox.environment
        environment["DATEBOOK_TEST_ANSWERS"] = secret
        let run = try runProgram("/usr/bin/python3", ["-c", Self.driver, ProgramSandbox.binary, "config", "add-channel", "slack", "team", "--alerts"],
                                 environment: environment)
        #expect(run.status == 0, "\(run.out) \(run.err)")
        #expect(run.out.contains("slack webhook URL: "), "\(run.out)")
        #expect(!run.out.contains(canarySecret), "the secret was echoed: \(run.out)")
        #expect(run.out.contains("Send a test message: datebook channels test team"))
        let file = sandbox.home + "/config/datebook/team-url.secret"
        #expect(try String(contentsOfFile: file, encoding: .utf8) == secret + "\n")
        #expect(ProgramSandbox.mode(file) == 0o600)
    }

    @Test func anEmailChannelAsksForEachOfItsValuesInTurn() throws {
        let sandbox = try ProgramSandbox()
        defer { sandbox.remove() }
        var environment = sandbox.environment
        environment["DATEBOOK_TEST_ANSWERS"] = ["smtps://smtp.example.org:465", "me@example.org", "pw-\(canarySecret)",
                                                "me@example.org", "you@example.org"].joined(separator: "\u{1F}")
        let run = try runProgram("/usr/bin/python3", ["-c", Self.driver, ProgramSandbox.binary, "config", "add-channel", "email", "mail"],
                                 environment: environment)
        #expect(run.status == 0, "\(run.out) \(run.err)")
        #expect(!run.out.contains(canarySecret), "the password was echoed: \(run.out)")
        let text = try String(contentsOfFile: sandbox.configPath, encoding: .utf8)
        #expect(text.contains("mail: { type: \"email\", smtp: \"smtps://smtp.example.org:465\", username: \"me@example.org\", "
                              + "password: { file: \"~/config/datebook/mail-password.secret\" }, from: \"me@example.org\", to: [\"you@example.org\"] },"),
                "\(text)")
    }
}
