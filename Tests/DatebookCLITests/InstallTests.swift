import DatebookTestSupport
import Foundation
import Testing

/// `make install` / `make uninstall` through scripts/install.sh, on the debug binary (`BIN=`),
/// into a temporary DESTDIR.
@Suite(.serialized) struct InstallTests {
    static let script = repositoryRoot.appendingPathComponent("scripts/install.sh").path
    static let binary = repositoryRoot.appendingPathComponent(".build/debug/datebook").path

    static func install(_ action: String, destdir: String, prefix: String = "/usr/local") throws -> ProgramRun {
        try runProgram("/bin/bash", [script, action], environment: [
            "PATH": "/usr/bin:/bin", "BIN": binary, "DESTDIR": destdir, "PREFIX": prefix, "HOME": destdir,
        ])
    }

    static func regularFiles(under path: String) -> [String] {
        let files = FileManager.default.enumerator(atPath: path)?.compactMap { $0 as? String } ?? []
        return files.filter { name in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: path + "/" + name, isDirectory: &isDirectory) && !isDirectory.boolValue
        }.sorted()
    }

    static func temporaryDirectory() throws -> String {
        makeScratchFolder("install")
    }

    @Test func installWritesEveryFileAndUninstallRemovesThemAll() throws {
        let destdir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: destdir) }
        let run = try Self.install("install", destdir: destdir, prefix: "/opt/db")
        #expect(run.status == 0, "\(run.err)")
        #expect(Self.regularFiles(under: destdir) == [
            "opt/db/bin/datebook",
            "opt/db/bin/datebook-notify-wait",
            "opt/db/lib/systemd/user/datebook-tick.service",
            "opt/db/lib/systemd/user/datebook-tick.timer",
            "opt/db/lib/systemd/user/datebook.service",
            "opt/db/share/bash-completion/completions/datebook",
            "opt/db/share/doc/datebook/config.example.json5",
            "opt/db/share/fish/vendor_completions.d/datebook.fish",
            "opt/db/share/man/man1/datebook.1",
            "opt/db/share/man/man5/datebook-config.5",
            "opt/db/share/zsh/site-functions/_datebook",
        ])
        let root = destdir + "/opt/db/"
        func text(_ path: String) throws -> String { try String(contentsOfFile: root + path, encoding: .utf8) }
        func generated(_ arguments: [String]) throws -> String { try runProgram(Self.binary, arguments, environment: ["HOME": destdir]).out }
        #expect(try text("share/man/man1/datebook.1") == generated(["man", "1"]))
        #expect(try text("share/man/man5/datebook-config.5") == generated(["man", "5"]))
        #expect(try text("share/bash-completion/completions/datebook") == generated(["completions", "bash"]))
        #expect(try text("share/zsh/site-functions/_datebook") == generated(["completions", "zsh"]))
        #expect(try text("share/fish/vendor_completions.d/datebook.fish") == generated(["completions", "fish"]))
        #expect(try text("lib/systemd/user/datebook.service").contains("ExecStart=/opt/db/bin/datebook run\n"))
        #expect(try text("lib/systemd/user/datebook-tick.service").contains("ExecStart=/opt/db/bin/datebook tick\n"))
        #expect(try text("share/doc/datebook/config.example.json5")
            == String(contentsOf: repositoryRoot.appendingPathComponent("etc/config.example.json5"), encoding: .utf8))
        #expect(try text("lib/systemd/user/datebook-tick.timer") == String(contentsOf: repositoryRoot.appendingPathComponent("etc/systemd/datebook-tick.timer"), encoding: .utf8))
        let mode = try FileManager.default.attributesOfItem(atPath: root + "bin/datebook")[.posixPermissions] as? Int
        #expect(mode == 0o755)
        #expect(try runProgram(root + "bin/datebook", ["--version"]).out.hasPrefix("datebook "))

        let removal = try Self.install("uninstall", destdir: destdir, prefix: "/opt/db")
        #expect(removal.status == 0, "\(removal.err)")
        #expect(Self.regularFiles(under: destdir) == [])
    }

    @Test func aPrefixThatCannotBeWrittenGetsAClearErrorAndNothing() throws {
        // /sys refuses new entries even to root.
        let run = try Self.install("install", destdir: "", prefix: "/sys/datebook-install-test")
        #expect(run.status != 0)
        #expect(run.err.contains("install: cannot create /sys/datebook-install-test: /sys/datebook-install-test is not writable (install as root, or choose PREFIX=$HOME/.local); nothing was installed"), "\(run.err)")
        #expect(!FileManager.default.fileExists(atPath: "/sys/datebook-install-test"))
    }

    @Test func aFailureHalfWayTakesBackWhatWasWritten() throws {
        // share/zsh is a file, so share/zsh/site-functions cannot be made after bin/ and share/man/ were.
        let destdir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: destdir) }
        try FileManager.default.createDirectory(atPath: destdir + "/usr/local/share", withIntermediateDirectories: true)
        try "not a folder".write(toFile: destdir + "/usr/local/share/zsh", atomically: true, encoding: .utf8)
        let run = try Self.install("install", destdir: destdir)
        #expect(run.status != 0)
        #expect(run.err.contains("cannot create \(destdir)/usr/local/share/zsh"), "\(run.err)")
        #expect(Self.regularFiles(under: destdir) == ["usr/local/share/zsh"])
        let folders = FileManager.default.enumerator(atPath: destdir)?.compactMap { $0 as? String }.sorted()
        #expect(folders == ["usr", "usr/local", "usr/local/share", "usr/local/share/zsh"])
    }
}
