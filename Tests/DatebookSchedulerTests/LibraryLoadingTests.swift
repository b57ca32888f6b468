import DatebookTestSupport
import Foundation
import Testing

/// The libraries datebook opens on first use (Sources/CLoader/include/datebook_libraries.h), each
/// hidden in turn from the dynamic loader of a real `datebook` process: the command that needs it
/// fails with one sentence naming the library, what needs it and its Debian package; `doctor
/// --libraries` says the same of the hidden one and `ok` of the others.
@Suite(.serialized) struct LibraryLoadingTests {
    /// The four sonames and Debian packages of the list, as the messages must name them.
    static let libraries = [("libcurl.so.4", "libcurl4"), ("libpq.so.5", "libpq5"),
                            ("libmicrohttpd.so.12", "libmicrohttpd12"), ("libxml2.so.2", "libxml2")]

    /// An LD_AUDIT module that answers "no such file" when the dynamic loader looks for the soname
    /// in HIDDEN_LIBRARY, as on a machine without its package; compiled into `folder`.
    static func auditModule(in folder: String) throws -> String {
        let source = folder + "/hide.c", module = folder + "/hide.so"
        try """
            #define _GNU_SOURCE
            #include <link.h>
            #include <stdlib.h>
            #include <string.h>
            unsigned int la_version(unsigned int version) { (void)version; return LAV_CURRENT; }
            char *la_objsearch(const char *name, uintptr_t *cookie, unsigned int flag) {
                (void)cookie;
                const char *hidden = getenv("HIDDEN_LIBRARY");
                return flag == LA_SER_ORIG && hidden && strcmp(name, hidden) == 0 ? NULL : (char *)name;
            }
            """.write(toFile: source, atomically: true, encoding: .utf8)
        let compiler = FileManager.default.isExecutableFile(atPath: "/usr/bin/cc") ? "/usr/bin/cc" : "/opt/swift/usr/bin/clang"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: compiler)
        process.arguments = ["-shared", "-fPIC", "-o", module, source]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(compiler) could not build the LD_AUDIT module")
        return module
    }

    /// Runs `datebook arguments…` with `hidden` hidden (nil: nothing); its output, error output and
    /// status. Stopped after 60 s (a serve that started after all).
    func run(_ arguments: [String], hiding hidden: String?, in sandbox: ProcessSandbox, module: String) throws -> (out: String, err: String, code: Int32) {
        let out = sandbox.directory + "/out.txt", err = sandbox.directory + "/err.txt"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: datebookBinary)
        process.arguments = arguments
        process.environment = sandbox.environment.merging(hidden.map { ["LD_AUDIT": module, "HIDDEN_LIBRARY": $0] } ?? [:]) { $1 }
        for path in [out, err] { _ = FileManager.default.createFile(atPath: path, contents: nil) }
        process.standardOutput = FileHandle(forWritingAtPath: out)
        process.standardError = FileHandle(forWritingAtPath: err)
        try process.run()
        Reaper.watch(process)
        let ended = waitForExit(process, seconds: 60)
        Reaper.stop(process)
        #expect(ended, "datebook \(arguments.joined(separator: " ")) did not end")
        return (try String(contentsOfFile: out, encoding: .utf8), try String(contentsOfFile: err, encoding: .utf8), process.terminationStatus)
    }

    @Test func aHiddenLibraryIsNamedWithItsDebianPackage() throws {
        let sink = try Sink()
        let sandbox = try ProcessSandbox(sink: sink, channels: ["hook": "/hook"], lead: "10m")
        let module = try Self.auditModule(in: sandbox.directory)

        // Nothing hidden: every library loads.
        let all = try run(["doctor", "--libraries"], hiding: nil, in: sandbox, module: module)
        #expect(all.code == 0, "\(all.out)")
        for (soname, package) in Self.libraries {
            #expect(all.out.contains("ok    library \(soname): loads (Debian \(package), for "), "\(all.out)")
        }
        for (soname, package) in Self.libraries {
            let doctor = try run(["doctor", "--libraries"], hiding: soname, in: sandbox, module: module)
            #expect(doctor.code == 1, "\(doctor.out)")
            #expect(doctor.out.contains("warn  library \(soname): cannot load \(soname) ("), "\(doctor.out)")
            #expect(doctor.out.contains("needs it; install the Debian package \(package)\n"), "\(doctor.out)")
            #expect(doctor.out.split(separator: "\n").filter { $0.hasPrefix("ok    library ") }.count == Self.libraries.count - 1)
        }

        // The commands that need one: a PostgreSQL store, serve, a test message. The reason in the
        // parentheses is glibc's dlerror(), whose text for a name the audit module hid depends on
        // the process (a serve process was once told "wrong ELF class"), so only its place is checked.
        let store = try run(["list", "--store", "postgresql://postgres@127.0.0.1:1/nothing"], hiding: "libpq.so.5", in: sandbox, module: module)
        #expect(store.code != 0)
        #expect(store.err.contains("cannot load libpq.so.5 ("), "\(store.err)")
        #expect(store.err.contains("a PostgreSQL store needs it; install the Debian package libpq5"), "\(store.err)")

        let serve = try run(["serve", "--listen", "127.0.0.1:0"], hiding: "libmicrohttpd.so.12", in: sandbox, module: module)
        #expect(serve.code != 0)
        #expect(serve.err.contains("cannot load libmicrohttpd.so.12 ("), "\(serve.err)")
        #expect(serve.err.contains("datebook serve needs it; install the Debian package libmicrohttpd12"), "\(serve.err)")

        let send = try run(["channels", "test", "hook"], hiding: "libcurl.so.4", in: sandbox, module: module)
        #expect(send.code != 0)
        #expect((send.out + send.err).contains("cannot load libcurl.so.4 ("), "\(send.out)\(send.err)")
        #expect((send.out + send.err).contains("install the Debian package libcurl4"), "\(send.out)\(send.err)")
        #expect(try sink.requests().isEmpty)
    }
}
