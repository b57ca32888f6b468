import Foundation

/// A secret value (webhook URL, password, token) whose printed forms are always redacted.
/// Use `.value` only where the bytes go on the wire.
public struct Secret: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    public let value: String

    public init(_ value: String) { self.value = value }

    public var description: String { "****" }
    public var debugDescription: String { "Secret(****)" }
    public var customMirror: Mirror { Mirror(self, children: []) }
}

/// Keeps scheme, host and port of a URL and replaces user info, path, query and fragment
/// with `****`, e.g. `https://hooks.slack.com/services/****`-style output for logs.
/// Returns `****` when the text is not a URL with a host.
public func redactURL(_ url: String) -> String {
    guard let components = URLComponents(string: url), let scheme = components.scheme,
        let host = components.host, !host.isEmpty
    else { return "****" }
    var text = "\(scheme)://\(host)"
    if let port = components.port { text += ":\(port)" }
    let path = components.percentEncodedPath
    let hasMore = !(path.isEmpty || path == "/") || components.query != nil
        || components.fragment != nil || components.user != nil
    text += hasMore ? "/****" : "/"
    return text
}

/// Replaces every occurrence of each secret, and of the URL's path, query and password,
/// in `text` with `****`.
func scrub(_ text: String, url: String?, secrets: [String]) -> String {
    var result = text
    var needles = secrets.filter { $0.count >= 3 }
    if let url {
        if let components = URLComponents(string: url) {
            let path = components.percentEncodedPath
            if path.count > 1 { needles.append(path) }
            if let query = components.percentEncodedQuery, !query.isEmpty { needles.append(query) }
            if let password = components.password, !password.isEmpty { needles.append(password) }
        }
    }
    for needle in needles.sorted(by: { $0.count > $1.count }) {
        result = result.replacingOccurrences(of: needle, with: "****")
    }
    return result
}
