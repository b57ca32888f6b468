import Foundation

/// Where the reference config `make install` puts (`PREFIX/share/doc/datebook/config.example.json5`),
/// found beside the running binary, for messages that point to it.
enum ExampleConfig {
    static let relativePath = "share/doc/datebook/config.example.json5"

    /// The installed file when it exists beside this binary's `bin/`; else the source tree's name.
    static func location() -> String {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments.first ?? ""
        let prefix = URL(fileURLWithPath: executable).deletingLastPathComponent().deletingLastPathComponent().path
        let installed = prefix + "/" + relativePath
        return FileManager.default.fileExists(atPath: installed) ? installed : "etc/config.example.json5 (in datebook's source; make install puts it in PREFIX/\(relativePath))"
    }
}
