import Foundation

/// One channel's share of a delivery, prepared and ready to go (or to print for a dry run).
public enum DeliveryStep: Sendable {
    /// Requests sent in order; the step is accepted when every one is (Discord splits long digests).
    case http([HTTPRequest])
    case email(SMTPConfiguration, EmailMessage)
    case command(argv: [String], environment: [String: String], timeout: TimeInterval)
    /// A notify-send run: like `command`, but a bus without a notification server is a transient failure.
    case notification(argv: [String], environment: [String: String], timeout: TimeInterval)
    case file(path: String, contents: String)

    /// Exactly what would be sent, with every secret replaced by `****`.
    public var dryRun: String {
        switch self {
        case .http(let requests):
            return requests.map(DryRun.render).joined(separator: "\n\n")
        case .email(let smtp, let message):
            let text = String(decoding: message.render(), as: UTF8.self)
            return "SMTP " + redactURL(smtp.url) + (smtp.username.map { " as \($0)" } ?? "") + "\n" + text
        case .command(let argv, let environment, _), .notification(let argv, let environment, _):
            let env = environment.keys.sorted().map { "\($0)=…" }.joined(separator: " ")
            return "exec " + argv.map(Self.shellQuoted).joined(separator: " ") + "\n(environment: " + env + ")"
        case .file(let path, let contents):
            return "write " + path + "\n" + contents
        }
    }

    /// True for the steps `Deliverer` sends through libcurl's multi handle (the rest go to workers).
    var isHTTP: Bool {
        if case .http = self { return true }
        return false
    }

    static func shellQuoted(_ word: String) -> String {
        word.allSatisfy({ $0.isLetter || $0.isNumber || "-_./=:@".contains($0) }) && !word.isEmpty
            ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
