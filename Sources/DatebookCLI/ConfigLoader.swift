import DatebookDelivery
import DatebookScheduler
import Foundation

/// Loads `config.json5` (or runs without one: local store, stdout only) and warns about
/// inline secrets in a file others can read.
enum ConfigLoader {
    static func load(path: String, named: Bool, environment: [String: String], err: OutputSink) throws -> Config {
        guard FileManager.default.fileExists(atPath: path) else {
            if named { throw CLIError.data("config \(path): no such file") }
            return Config()
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CLIError.data("config \(path): cannot read (permissions?)")
        }
        let config = try Config.parse(Array(data), file: path, environment: environment)
        if config.channels.contains(where: \.hasInlineSecret), let mode = openMode(path) {
            err.write("datebook: warning: \(path) holds an inline secret and is readable by others (mode \(mode)); run: chmod 600 \(path)\n")
        }
        return config
    }

    /// The file's mode in octal (`644`) when its group or others have any access to it, else nil.
    static func openMode(_ path: String) -> String? {
        guard let mode = (try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? Int,
              mode & 0o077 != 0 else { return nil }
        return String(mode, radix: 8)
    }
}
