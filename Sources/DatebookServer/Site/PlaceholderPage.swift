/// A cached page with a placeholder (the agenda's CSRF value, which differs per session), split at
/// the placeholder once when the page is made, so each request only copies the parts around its
/// own value.
///
/// Replacing byte by byte on every `GET /` was a quarter of the server's CPU for that page (`perf`
/// under `wrk`, 21 KB agenda, bench/results-serve.md). `PlannerSite.replacing` is the plain path;
/// `PlaceholderPageTests` checks both give the same bytes.
struct PlaceholderPage: Sendable {
    /// The page's bytes between the placeholders (one more than the placeholders).
    let parts: [[UInt8]]

    init(_ body: [UInt8], placeholder: [UInt8]) {
        guard let first = placeholder.first else {
            parts = [body]
            return
        }
        var parts: [[UInt8]] = []
        var start = 0, i = 0
        while i < body.count {
            if body[i] == first, i + placeholder.count <= body.count, body[i..<i + placeholder.count].elementsEqual(placeholder) {
                parts.append(Array(body[start..<i]))
                i += placeholder.count
                start = i
            } else {
                i += 1
            }
        }
        parts.append(Array(body[start...]))
        self.parts = parts
    }

    /// The page with `value` where each placeholder was.
    func filled(with value: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(parts.reduce(0) { $0 + $1.count } + value.count * (parts.count - 1))
        for (index, part) in parts.enumerated() {
            if index > 0 { out += value }
            out += part
        }
        return out
    }
}
