import Foundation

/// Text rendering of a request for `--dry-run`: method, redacted URL, headers (credentials
/// replaced by `****`) and body, with every value listed in `redactions` removed.
public enum DryRun {
    public static func render(_ request: HTTPRequest) -> String {
        var lines = ["\(request.method) \(redactURL(request.url))"]
        for header in request.headers {
            let value = isSecretBearing(header.name) ? "****" : header.value
            lines.append("\(header.name): \(value)")
        }
        lines.append("")
        lines.append(String(decoding: request.body, as: UTF8.self))
        return scrub(lines.joined(separator: "\n"), url: request.url, secrets: request.redactions)
    }

    /// Headers that carry credentials.
    static func isSecretBearing(_ name: String) -> Bool {
        let lower = name.lowercased()
        if ["authorization", "proxy-authorization", "cookie"].contains(lower) { return true }
        return ["token", "secret", "password", "api-key", "apikey"].contains { lower.contains($0) }
    }
}
